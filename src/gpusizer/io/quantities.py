"""Typed quantities, read the way people write them: ``1T``, ``1.5e12``, ``500B``, ``32k``,
``128K``, ``1,000,000``, ``2 TB``. One parser for the CLI's flags and the window's fields.

What a suffix means depends on the field (the :data:`KINDS` registry):

- **tokens** (training tokens): k = 10³, M = 10⁶, B or G = 10⁹, T = 10¹².
- **context** (sequence length, prompt, generated tokens): k = 1,024, M = 1,048,576 — context
  lengths are powers of two ("8k" = 8,192; Llama 3.1's "128K" is 131,072 in its config.json,
  https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json).
- **parameters**: k = 10³, M = 10⁶, B or G = 10⁹, T = 10¹² ("70B").
- **count** (batch sizes, GPUs, layers, ranks): whole numbers; k = 10³, M = 10⁶.
- **bytes**: B = 1 byte; kB, MB, GB, TB = 10³…10¹²; KiB, MiB, GiB, TiB = 2¹⁰…2⁴⁰ (GB and GiB
  are different units: GiB = 2³⁰, GB = 10⁹). A bare number is in the field's own unit.
- **number** (bandwidths, TFLOPS, prices): plain decimals; k = 10³.
- **percent**: 0-100, the value is the fraction (``40`` or ``40 %`` -> 0.4).

Group separators: commas between groups of three digits (``1,000,000``), underscores, and
spaces between digit groups. Digits are ASCII (0-9): other scripts' digits are refused.
Anything else is refused with a :class:`ScenarioError` naming the field and the forms it
accepts; the number itself is exact (decimal arithmetic, no binary rounding: ``1.5e12`` is
1,500,000,000,000).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from ..core.errors import ScenarioError

MAX_TEXT = 64  # characters: a quantity longer than this is not a typed number
_DEC = {"k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}
_BYTES = {
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "pb": 10**15,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
    "pib": 2**50,
}


@dataclass(frozen=True)
class QuantityKind:
    """How one kind of field reads a suffix (``multipliers``, keys lower case) and which words
    may follow the number (``words``); ``integer``: the value must be whole."""

    id: str
    label: str  # in messages: "a number of tokens"
    multipliers: Mapping[str, int]
    integer: bool
    meaning: str  # what the suffixes mean, shown in messages and tooltips
    words: tuple[str, ...] = ()
    default_unit: str = ""  # bytes fields: the unit of a bare number ("gib")
    scale: float = 1.0  # percent: the value is the typed number x scale
    examples: tuple[str, ...] = field(default=("1,000,000", "32k"))


KINDS: dict[str, QuantityKind] = {
    k.id: k
    for k in (
        QuantityKind(
            "tokens",
            "a number of tokens",
            _DEC,
            False,
            "k = 10³, M = 10⁶, B = 10⁹, T = 10¹² tokens",
            ("tokens", "token", "tok"),
            examples=("1T", "1.5e12", "500B"),
        ),
        QuantityKind(
            "context",
            "a length in tokens",
            {"k": 2**10, "m": 2**20},
            True,
            "k = 1,024 and M = 1,048,576 tokens (context lengths are powers of two)",
            ("tokens", "token", "tok"),
            examples=("8k", "128K", "4096"),
        ),
        QuantityKind(
            "parameters",
            "a parameter count",
            _DEC,
            True,
            "k = 10³, M = 10⁶, B = 10⁹, T = 10¹² parameters",
            ("parameters", "params", "param"),
            examples=("70B", "1.5T", "8,030,261,248"),
        ),
        QuantityKind(
            "count",
            "a count",
            {"k": 10**3, "m": 10**6},
            True,
            "k = 1,000, M = 10⁶",
            examples=("8", "1,024", "32k"),
        ),
        QuantityKind(
            "bytes",
            "an amount of memory",
            _BYTES,
            True,
            "GB = 10⁹ bytes, GiB = 2³⁰ bytes (also kB/MB/TB, KiB/MiB/TiB; B = bytes)",
            default_unit="gib",
            examples=("80 GiB", "141 GB", "2 TB"),
        ),
        QuantityKind("number", "a number", {"k": 10**3}, False, "k = 1,000", examples=("3,350", "989.5")),
        QuantityKind(
            "percent", "a percentage", {"%": 1}, False, "0-100 %", scale=0.01, examples=("40", "40 %")
        ),
    )
}

_NUMBER = re.compile(
    r"""^(?P<sign>[+-]?)
    (?P<num>(\d{1,3}(,\d{3})+|\d+(_\d+)*|\d{1,3}(\ \d{3})+)?(\.\d+)?([eE][+-]?\d+)?)
    \s*(?P<suffix>[A-Za-z%]*)$""",
    re.VERBOSE | re.ASCII,  # ASCII digits only: "١٢", "８" and "𝟴" were read as 12, 8 and 8
)


def _refuse(field_name: str, kind: QuantityKind, text: str, why: str = "") -> ScenarioError:
    shown = text if len(text) <= 24 else text[:21] + "..."
    reason = f" ({why})" if why else ""
    return ScenarioError(
        field_name,
        f"cannot read {shown!r} as {kind.label}{reason}; "
        f"write e.g. {', '.join(kind.examples)} — {kind.meaning}",
    )


def _strip_word(text: str, kind: QuantityKind) -> str:
    low = text.lower()
    for word in sorted(kind.words, key=len, reverse=True):
        if low.endswith(word) and (len(low) == len(word) or not low[-len(word) - 1].isalpha()):
            return text[: -len(word)].rstrip()
    return text


def _multiplier(suffix: str, kind: QuantityKind, field_name: str, text: str) -> int:
    if not suffix:
        return kind.multipliers[kind.default_unit] if kind.default_unit else 1
    low = suffix.lower()
    if kind.id == "bytes" and low in ("k", "m", "g", "t"):
        raise _refuse(field_name, kind, text, f"{suffix} alone is ambiguous")
    if kind.id != "bytes" and low.endswith("b") and low[:-1] in _DEC and low != "b":
        raise _refuse(field_name, kind, text, f"{suffix} is an amount of bytes")
    if low not in kind.multipliers:
        raise _refuse(field_name, kind, text, f"unknown unit {suffix!r}")
    return kind.multipliers[low]


def parse_quantity(text: str, kind: str, field_name: str) -> int | float:
    """The value ``text`` stands for in a field of ``kind`` (an id of :data:`KINDS`): an int
    for whole kinds, else a float. ScenarioError(``field_name``) for anything else."""
    k = KINDS[kind]
    raw = str(text).strip()
    if not raw:
        raise ScenarioError(field_name, f"is empty; write {k.label}, e.g. {', '.join(k.examples)}")
    if len(raw) > MAX_TEXT:
        raise _refuse(field_name, k, raw, "too long")
    body = _strip_word(raw, k).replace("\u202f", " ").replace("\u00a0", " ")
    match = _NUMBER.match(body)
    if match is None or not match.group("num") or match.group("num") == ".":
        raise _refuse(field_name, k, raw)
    mult = _multiplier(match.group("suffix"), k, field_name, raw)
    digits = re.sub(r"[, _]", "", match.group("num"))
    try:
        exact = Decimal(match.group("sign") + digits) * Decimal(mult) * Decimal(str(k.scale))
    except InvalidOperation:
        raise _refuse(field_name, k, raw) from None
    if not exact.is_finite() or abs(exact) > Decimal(10) ** 30:
        raise _refuse(field_name, k, raw, "out of range")
    if k.integer:
        if exact != exact.to_integral_value():
            raise _refuse(field_name, k, raw, "must be a whole number")
        return int(exact)
    return float(exact)


def _compact(value: int, kind: QuantityKind) -> str:
    """``1T``, ``1.5T``, ``8k``: the shortest suffix form that is exact, else digits."""
    steps = sorted(
        ((m, s) for s, m in kind.multipliers.items() if s != "g" or kind.id == "bytes"), reverse=True
    )
    for mult, suffix in steps:
        if mult <= 1 or abs(value) < mult or abs(value) >= 1000 * mult:
            continue
        hundredths, rest = divmod(abs(value) * 100, mult)  # exact: integers only
        if rest == 0:
            whole, frac = divmod(hundredths, 100)
            shown = f"{'-' if value < 0 else ''}{whole}" + (f".{frac:02d}".rstrip("0") if frac else "")
            return f"{shown}{_suffix_text(suffix, kind)}"
    if abs(value) >= 10**15 and kind.id != "bytes":  # "1e18", not 19 digits and 6 commas
        mantissa, exponent = f"{value:e}".split("e")
        short = f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
        if Decimal(short) == value:  # exact only: parse_quantity reads it back to value
            return short
    return f"{value:,} B" if kind.id == "bytes" else f"{value:,}"


def _suffix_text(suffix: str, kind: QuantityKind) -> str:
    if kind.id == "bytes":
        return " " + {"kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB", "pib": "PiB", "kb": "kB"}.get(
            suffix, suffix.upper()
        )
    return {"k": "k", "m": "M", "t": "T"}.get(suffix, suffix.upper())


def format_quantity(value: int | float, kind: str) -> str:
    """Text that :func:`parse_quantity` reads back to exactly ``value`` (``1T``, ``4,096``,
    ``80 GiB``, ``40 %``)."""
    k = KINDS[kind]
    if k.id == "percent":
        return f"{Decimal(repr(float(value))) * 100:f}".rstrip("0").rstrip(".") + " %"
    if isinstance(value, float) and not value.is_integer():
        text = repr(value)  # the shortest exact form
        if "e" in text or "n" in text:
            return text
        whole, _, frac = text.partition(".")
        return f"{int(whole):,}.{frac}" if whole not in ("-0", "0") else text
    n = int(value)
    if k.id == "context" or (k.id == "count" and abs(n) < 10**6):
        return f"{n:,}"  # lengths and small counts read best in full
    return _compact(n, k)


def compact_quantity(value: int | float, kind: str) -> str:
    """The shortest exact text of ``value`` (``64M`` tokens, ``1 PiB``, ``16,777,216``): a
    limit in a message, where the full digits of a context length would be hard to read."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.12f}".rstrip("0").rstrip(".") if abs(value) < 1 else format_quantity(value, kind)
    return _compact(int(value), KINDS[kind])


def describe(kind: str) -> str:
    """One line for a tooltip: what the field reads (``k = 1,024 ...``)."""
    k = KINDS[kind]
    return f"Accepts {', '.join(k.examples)} ({k.meaning})."
