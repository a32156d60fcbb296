"""The one reader of user files (scenarios, config.json, safetensors, the user-GPU list).

A file a user points at may be anything: a FIFO that never ends, a device, a folder, a 10 GB
file, UTF-16 text, JSON nested 10^5 deep, a 5,000-digit number, ``NaN``, a key given twice.
Every reader of user files goes through here, so each of those is one ScenarioError naming the
file, never a hang, a traceback or unbounded memory:

- only regular files are read (opened non-blocking, so a FIFO cannot stall the open), and at
  most ``limit`` bytes of them;
- text must be UTF-8 (a UTF-8 byte-order mark is allowed, as Windows editors write one);
- JSON must be strict (RFC 8259): no ``NaN``/``Infinity``, no number beyond a float's range
  (nor a non-zero one that underflows to 0, as ``1e-400``), no key twice in one object, at
  most :data:`MAX_DEPTH` levels of nesting.

It lives in the core because the core reads the user-GPU list (io re-exports it).
"""

from __future__ import annotations

import codecs
import json
import math
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from .errors import ScenarioError, check_text, excerpt

MiB = 2**20
MAX_DEPTH = 64  # a scenario is 4 levels deep, a config.json about 4; 64 is never real
_NONBLOCK = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class Opened(NamedTuple):
    """An open regular file and the path opened (a folder's ``folder_file``)."""

    file: BinaryIO
    path: Path


class FileBytes(NamedTuple):
    data: bytes
    path: Path  # the path read (a folder's ``folder_file``)


class FileText(NamedTuple):
    text: str
    path: Path


class FileJson(NamedTuple):
    data: Any
    path: Path


def _size(n: int) -> str:
    return f"{n / MiB:,.2f} MiB" if n >= MiB else f"{n:,} bytes"


def open_regular(path: str | Path, field: str, limit: int, folder_file: str | None = None) -> Opened:
    """Open a regular file of at most ``limit`` bytes for binary reading.

    A folder is refused, or replaced by ``folder_file`` inside it when that is given
    (``config.json`` of a model folder)."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | _NONBLOCK)
    except OSError as exc:
        raise ScenarioError(field, f"cannot read {p}: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    why = None
    if stat.S_ISDIR(st.st_mode):
        why = "" if folder_file else f"cannot read {p}: a folder"
    elif not stat.S_ISREG(st.st_mode):
        why = f"cannot read {p}: not a regular file"
    elif st.st_size > limit:
        why = f"{p.name} is {_size(st.st_size)}; at most {_size(limit)} is read"
    if why is None:
        return Opened(os.fdopen(fd, "rb"), p)
    os.close(fd)
    if not why and folder_file:
        return open_regular(p / folder_file, field, limit)
    raise ScenarioError(field, why)


def read_bytes(path: str | Path, field: str, limit: int, folder_file: str | None = None) -> FileBytes:
    """All bytes of a regular file of at most ``limit`` bytes, and the path read."""
    fh, p = open_regular(path, field, limit, folder_file)
    with fh:
        try:
            data = fh.read(limit + 1)  # a file growing while read is still bounded
        except OSError as exc:
            raise ScenarioError(field, f"cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ScenarioError(field, f"{p.name} is over {_size(limit)}")
    return FileBytes(data, p)


_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def decode_utf8(data: bytes, field: str, name: str) -> str:
    """UTF-8 text (a leading byte-order mark dropped), or a ScenarioError saying what it is."""
    for bom, enc in _WIDE_BOMS:  # UTF-32 LE first: its mark starts with UTF-16 LE's
        if data.startswith(bom):
            raise ScenarioError(field, f"{name} is {enc} text; save it as UTF-8")
    if b"\x00" in data:
        raise ScenarioError(
            field, f"{name} holds NUL bytes: a binary file, or UTF-16/UTF-32 text (save it as UTF-8)"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(field, f"{name} is not UTF-8 text (bad byte at offset {exc.start})") from None


def read_text(path: str | Path, field: str, limit: int, folder_file: str | None = None) -> FileText:
    """A regular UTF-8 text file of at most ``limit`` bytes, and the path read."""
    data, p = read_bytes(path, field, limit, folder_file)
    return FileText(decode_utf8(data, field, p.name), p)


class _JSONRefused(Exception):
    def __init__(self, why: str) -> None:
        self.why = why


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _JSONRefused(f"the key {excerpt(key)} appears twice in one object")
            seen.add(key)
    return out


class _Refused:
    """A number the reader refuses, left in the parsed data so that the refusal can name where it
    stands (``rl.reward.verify_workers``): json's hooks see a number's text, not its key."""

    def __init__(self, why: str) -> None:
        self.why = why


def _no_constant(name: str) -> _Refused:
    return _Refused(f"{name} is not a JSON number; write a finite number")


def _finite_float(text: str) -> float | _Refused:
    value = float(text)
    if not math.isfinite(value):
        return _Refused(f"the number {excerpt(text)} is beyond a float's range")
    # 1e-400 reads as 0.0 (below the smallest subnormal, IEEE 754 binary64 underflow): a
    # count of 0 or a rate of 0 the user never wrote, so the value is refused, not rounded
    if value == 0.0 and any(c in "123456789" for c in text.lower().split("e")[0]):
        return _Refused(f"the number {excerpt(text)} is below a float's range (it would read as 0)")
    return value


def _first_refused(data: Any) -> tuple[str, _Refused] | None:
    """(dotted path, refusal) of the first refused number of parsed ``data`` in document order
    (``model.layers[2]``; "" for the whole document), iteratively (no recursion limit)."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Refused):
            return path, value
        if isinstance(value, dict):
            stack.extend((f"{path}.{k}" if path else str(k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    return None


def _depth(data: Any) -> int:
    """Nesting depth of parsed JSON (iterative: no recursion limit to hit)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, d = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, d)
            if d > MAX_DEPTH:
                break
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, d + 1) for v in items if isinstance(v, (dict, list)))
    return deepest


def parse_json(text: str, field: str, where: str) -> Any:
    """Strict JSON (see the module doc); ScenarioError(``field``) names ``where`` and, for a
    syntax error, the line and column."""
    refusals: list[_Refused] = []

    def constant(name: str) -> _Refused:
        refusals.append(_no_constant(name))
        return refusals[-1]

    def number(text: str) -> float | _Refused:
        value = _finite_float(text)
        if isinstance(value, _Refused):
            refusals.append(value)
        return value

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        # a key twice is refused as it is read; a refused number read before it stands first in
        # the file and is said instead (its path is not known until the whole file is parsed)
        if refusals and len({k for k, _ in items}) != len(items):
            raise _JSONRefused(refusals[0].why)
        return _unique_keys(items)

    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_constant=constant, parse_float=number)
    except _JSONRefused as exc:
        raise ScenarioError(field, f"{where}: {exc.why}") from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(
            field, f"{where} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise ScenarioError(field, f"{where} is nested more than {MAX_DEPTH} levels deep") from None
    except ValueError:  # int() refuses over 4,300 digits (CVE-2020-10735 limit)
        raise ScenarioError(field, f"{where} holds a number with too many digits") from None
    if _depth(data) > MAX_DEPTH:
        raise ScenarioError(field, f"{where} is nested more than {MAX_DEPTH} levels deep")
    refused = _first_refused(data) if refusals else None
    if refused is not None:
        path, bad = refused
        raise ScenarioError(field, f"{where}: {f'{path}: ' if path else ''}{bad.why}")
    try:
        check_text(data)
    except ScenarioError as exc:  # "\ud800" escapes decode to no text
        raise ScenarioError(field, f"{where}: {exc}") from None
    return data


def parse_json_object(text: str, field: str, where: str, what: str = "a JSON object") -> dict[str, Any]:
    """:func:`parse_json` that must give a dict."""
    data = parse_json(text, field, where)
    if not isinstance(data, dict):
        raise ScenarioError(field, f"{where} must be {what}")
    return data


def read_json(path: str | Path, field: str, limit: int, folder_file: str | None = None) -> FileJson:
    """Read and parse a strict-JSON regular file; (data, the path read)."""
    text, p = read_text(path, field, limit, folder_file)
    return FileJson(parse_json(text, field, p.name), p)


def read_json_object(path: str | Path, field: str, limit: int, what: str = "a JSON object") -> dict[str, Any]:
    """Read a file holding one JSON object (see :func:`parse_json_object`)."""
    text, p = read_text(path, field, limit)
    return parse_json_object(text, field, p.name, what)
