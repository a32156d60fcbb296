"""Source texts the standard library compiles on every start, compiled once and kept between
runs of the programs: the methods ``@dataclass`` writes and ``typing``'s forward references.

The standard library's ``dataclasses`` builds ``__init__``, ``__repr__``, ``__eq__``,
``__hash__`` and a frozen class's ``__setattr__`` / ``__delattr__`` from source text and runs
``exec`` on each text (Python 3.11: ``dataclasses._create_fn``, one ``exec`` per method;
3.13: one per class). Compiling those texts is most of a dataclass's cost: measured on the
2-core development machine, the window's start creates ~150 dataclasses, ~800 texts compiled
in ~0.07 s of CPU, ~0.09 s with the rest of their making. The same texts come back on every
start, so, like the ``.pyc`` files Python keeps for modules, the compiled code is kept in a
cache file (``marshal``, the ``.pyc`` format) keyed by the exact text; a text not in it is
compiled as before. The code run is the code ``exec`` would compile (same file name
``<string>``, no inherited ``__future__`` flags): a dataclass is the same either way.
``typing.ForwardRef`` compiles each string annotation it is given (``compile(text,
"<string>", "eval")``): 1,208 at the window's start, 341 distinct texts, ~0.016 s of CPU
(pydantic resolving the scenario models' annotations); those are kept the same way.

The file is in the user's cache folder (``GPUSIZER_CACHE_DIR`` overrides it; set empty, no
cache), one per interpreter (``sys.implementation.cache_tag``) with the bytecode magic number
inside; a file that is missing, damaged, of another Python or over :data:`MAX_BYTES` is
ignored and rewritten at exit, as is one that gained texts this run. The library (``import
gpusizer``) leaves ``dataclasses`` alone: only the two programs install the cache.
"""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import stat
import sys
import tempfile
import typing
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

CACHE_ENV = "GPUSIZER_CACHE_DIR"
MAX_BYTES = 32 * 2**20  # ~1 MB in use (the window's ~1,200 texts)
MAX_TEXTS = 20_000  # past this, the file keeps only the texts of the run that writes it


def cache_dir() -> Path | None:
    """The user's cache folder for gpusizer (None: ``GPUSIZER_CACHE_DIR`` set empty).
    Linux: ``$XDG_CACHE_HOME/gpusizer`` (``~/.cache``), macOS ``~/Library/Caches/gpusizer``,
    Windows ``%LOCALAPPDATA%\\gpusizer\\Cache``."""
    if CACHE_ENV in os.environ:
        folder = os.environ[CACHE_ENV]
        return Path(folder) if folder else None
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local"
        return Path(local) / "gpusizer" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "gpusizer"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gpusizer"


def cache_file() -> Path | None:
    folder = cache_dir()
    return None if folder is None else folder / f"compiled-code-{sys.implementation.cache_tag}.marshal"


Key = tuple[str, str]  # (compile mode: "exec" or "eval", source text)


def _read(path: Path) -> dict[Key, CodeType]:
    """The texts and their code in ``path``; {} for anything but a sound file of this Python."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:  # a FIFO would block the start
            return {}
        magic, codes = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if magic != MAGIC_NUMBER or not isinstance(codes, dict):
        return {}
    return {
        k: v
        for k, v in codes.items()
        if isinstance(k, tuple)
        and len(k) == 2
        and all(isinstance(x, str) for x in k)
        and isinstance(v, CodeType)
    }


class CodeCache:
    """Stands in for ``exec`` in the ``dataclasses`` module and for ``compile`` in ``typing``: a
    text it has seen gets its kept code. :meth:`save` writes the file when this run compiled a
    text it did not have."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.codes = _read(path)
        self.used: set[Key] = set()
        self.compiled = 0

    def code(self, source: str, mode: str) -> CodeType:
        key = (mode, source)
        code = self.codes.get(key)
        if code is None:
            # dont_inherit: the flags of this module's own ``from __future__`` imports must not
            # reach the code (dataclasses and typing compile with none of their own).
            code = self.codes[key] = builtins.compile(source, "<string>", mode, dont_inherit=True)
            self.compiled += 1
        self.used.add(key)
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        builtins.exec(self.code(source, "exec") if isinstance(source, str) else source, globals, locals)

    def compile(self, source: Any, filename: Any, mode: str, flags: int = 0, *args: Any, **kw: Any) -> Any:
        if (
            isinstance(source, str)
            and filename == "<string>"
            and mode == "eval"
            and not (flags or args or kw)
        ):
            return self.code(source, "eval")
        return builtins.compile(source, filename, mode, flags, *args, **kw)

    def save(self) -> None:
        """Write the file (atomically: a temporary file renamed over it) if this run compiled
        a text; a folder that cannot be written is left as it is."""
        if not self.compiled:
            return
        # Copies (each one C call under the GIL): a worker thread may still make a dataclass.
        codes, used = dict(self.codes), set(self.used)
        if len(codes) > MAX_TEXTS:
            codes = {k: codes[k] for k in used if k in codes}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".compiled-code-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(marshal.dumps((MAGIC_NUMBER, codes)))
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):
            pass  # a cache: the next start compiles again


def cache_compiled_code() -> CodeCache | None:
    """Install the cache for this process (once; None where there is no cache folder, or
    ``dataclasses`` already has another ``exec``); saved at exit. ``typing`` gets it where it
    has no ``compile`` of its own either."""
    current = getattr(dataclasses, "exec", None)
    if current is not None:
        owner = getattr(current, "__self__", None)
        return owner if isinstance(owner, CodeCache) else None
    path = cache_file()
    if path is None:
        return None
    cache = CodeCache(path)
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # found before the builtin
    if "compile" not in vars(typing):
        typing.compile = cache.compile  # type: ignore[attr-defined]
    atexit.register(cache.save)
    return cache
