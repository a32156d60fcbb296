"""The one error type users see for bad input, and how it quotes a bad value."""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # annotations only: importing pydantic here cost every CLI start 35 ms
    from pydantic import ValidationError
    from pydantic_core import ErrorDetails

EXCERPT_CHARS = 60  # a bad value is quoted up to this many characters, then "…"
MESSAGE_CHARS = 400  # and a whole message is cut here (a path or a key may be long)

_T = TypeVar("_T")
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxdict, _REPR.maxlist, _REPR.maxtuple = 2, 4, 6, 6
_REPR.maxset = _REPR.maxfrozenset = _REPR.maxdeque = _REPR.maxarray = 6
_REPR.maxstring = _REPR.maxother = EXCERPT_CHARS


def excerpt(value: Any, limit: int = EXCERPT_CHARS) -> str:
    """``repr(value)``, at most ``limit`` characters: never builds the whole repr of a huge list,
    string or integer (a 100 MB value quoted in full made a 150 MB error line)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 190:
        text = f"an integer of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    else:
        text = _REPR.repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_id(value: object, registry: Mapping[str, object], what: str) -> str:
    """An id of a registry (read at validation time, so registered entries are accepted); the
    message names what is allowed and quotes the value (shortened). A value of another type (a
    number, a list: a validator run before pydantic's own) gets the same message, not pydantic's
    "Input should be a valid string", which names no id."""
    if not isinstance(value, str) or value not in registry:
        raise ValueError(f"unknown {what}; must be one of {', '.join(registry)}; got {excerpt(value)}")
    return value


def _not_text(value: str) -> str | None:
    """The first lone surrogate of ``value`` (escaped), or None for text that is UTF-8."""
    if value.isascii():
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return repr(value[exc.start])[1:-1]
    return None


def check_text(data: Any, field: str = "") -> None:
    """Every string (key or value) of JSON-like ``data`` must be text: a lone surrogate
    (``"\\ud800"`` in JSON; a byte that is not UTF-8 in a command-line argument, such as
    ``\\xff``) cannot be written to a file or a terminal, and made ``report`` and the exports
    fail half-way. Raises ScenarioError naming the field."""
    stack: list[tuple[Any, str]] = [(data, field)]
    while stack:
        value, where = stack.pop()
        if isinstance(value, str):
            bad = _not_text(value)
        elif isinstance(value, dict):
            bad = next((b for b in map(_not_text, (k for k in value if isinstance(k, str))) if b), None)
            stack.extend((v, f"{where}.{k}" if where else str(k)) for k, v in value.items())
        elif isinstance(value, (list, tuple)):
            bad = None
            stack.extend((v, where) for v in value)
        else:
            continue
        if bad:
            raise ScenarioError(
                where,
                f"is not text: it holds {bad}, a lone surrogate (a byte not UTF-8, or half a UTF-16 pair)",
            )


def registered(table: Mapping[str, _T], key: str, field: str, owner: str) -> _T:
    """The rule ``key`` names in a registry of rule objects (a framework's memory rule, a
    release's KV layout...); a ScenarioError on ``field`` naming the registered ones when
    nobody registered it (``owner``: who names it, "vLLM names memory rule")."""
    found = table.get(key)
    if found is None:
        raise ScenarioError(
            field, f"{owner} {excerpt(key)}, which is not registered; registered: {', '.join(table)}"
        )
    return found


class ScenarioError(ValueError):
    """Bad input, naming the field and what is allowed.

    ``field`` is the dotted path of the offending field (``"parallelism.tensor"``),
    ``str(err)`` is one line: ``"parallelism.tensor: must divide attention_heads (32); got 3"``.
    """

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = _one_line(message)
        super().__init__(_one_line(f"{field}: {message}" if field else message))


def _one_line(text: str) -> str:
    """Cut to MESSAGE_CHARS, one line (see :func:`printable`)."""
    if len(text) > MESSAGE_CHARS:
        text = text[: MESSAGE_CHARS - 1] + "…"
    return printable(text)


def printable(text: str) -> str:
    """``text`` with line breaks (``\\n``, NEL, U+2028...) and other unprintable characters
    (a terminal's escape sequences, lone surrogates) shown escaped, as repr() does."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _loc(loc: tuple[Any, ...]) -> str:
    """``model.moe.experts``; a part is quoted short (an unknown key may be any string)."""
    parts = (str(p) for p in loc if not str(p).startswith("function-"))
    return ".".join(p if len(p) <= EXCERPT_CHARS else excerpt(p) for p in parts)


def _message(err: ErrorDetails) -> str:
    kind, msg = err["type"], err["msg"]
    if kind == "extra_forbidden":
        return "unknown field (check the spelling; see scenario-format.md)"
    if kind == "missing":
        return "required field is missing"
    if kind == "model_type":  # pydantic names its class ("instance of PolicySpec"), no user's word
        got = excerpt(err.get("input"))
        return f"must be an object of its fields ({{...}}; see scenario-format.md); got {got}"
    if msg.startswith("Value error, "):
        return msg[len("Value error, ") :]  # a validator's own message quotes the value
    return f"{msg}; got {excerpt(err.get('input'))}"


def from_validation(
    exc: ValidationError,
    prefix: tuple[str, ...] = (),
    field_hint: Callable[[str], str | None] | None = None,
) -> ScenarioError:
    """The first error pydantic found, as a ScenarioError naming the field (under ``prefix``).
    ``field_hint``: for an unknown field's path, the line that answers it instead (the scenario
    parser passes core/registry/engine_flags.py's: an engine's own flag name names the field
    that states it, or what is not modelled); the errors layer imports no registry."""
    err = exc.errors()[0]
    path = _loc((*prefix, *err["loc"]))
    hint = field_hint(path) if field_hint and err["type"] == "extra_forbidden" else None
    return ScenarioError(path, f"unknown field: {hint}" if hint else _message(err))
