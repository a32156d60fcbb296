"""The methods ``@dataclass`` writes, compiled once and kept between runs of the programs.

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
import sys
import tempfile
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

CACHE_ENV = "GPUSIZER_CACHE_DIR"
MAX_BYTES = 32 * 2**20  # ~1 MB in use (the window's ~800 texts)
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
    return None if folder is None else folder / f"dataclass-code-{sys.implementation.cache_tag}.marshal"


def _read(path: Path) -> dict[str, CodeType]:
    """The texts and their code in ``path``; {} for anything but a sound file of this Python."""
    try:
        if path.stat().st_size > MAX_BYTES:
            return {}
        magic, codes = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if magic != MAGIC_NUMBER or not isinstance(codes, dict):
        return {}
    return {k: v for k, v in codes.items() if isinstance(k, str) and isinstance(v, CodeType)}


class DataclassCodeCache:
    """Stands in for ``exec`` in the ``dataclasses`` module: a text it has seen runs its kept
    code. :meth:`save` writes the file when this run compiled a text it did not have."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.codes = _read(path)
        self.used: set[str] = set()
        self.compiled = 0

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        if isinstance(source, str):
            code = self.codes.get(source)
            if code is None:
                # dont_inherit: the flags of this module's own ``from __future__`` imports
                # must not reach the code (``exec`` in dataclasses compiles with none).
                code = self.codes[source] = compile(source, "<string>", "exec", dont_inherit=True)
                self.compiled += 1
            self.used.add(source)
            source = code
        builtins.exec(source, globals, locals)

    def save(self) -> None:
        """Write the file (atomically: a temporary file renamed over it) if this run compiled
        a text; a folder that cannot be written is left as it is."""
        if not self.compiled:
            return
        codes = self.codes if len(self.codes) <= MAX_TEXTS else {k: self.codes[k] for k in self.used}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".dataclass-code-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(marshal.dumps((MAGIC_NUMBER, codes)))
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):
            pass  # a cache: the next start compiles again


def cache_dataclass_code() -> DataclassCodeCache | None:
    """Install the cache for this process (once; None where there is no cache folder, or
    ``dataclasses`` already has another ``exec``); saved at exit."""
    current = getattr(dataclasses, "exec", None)
    if current is not None:
        owner = getattr(current, "__self__", None)
        return owner if isinstance(owner, DataclassCodeCache) else None
    path = cache_file()
    if path is None:
        return None
    cache = DataclassCodeCache(path)
    dataclasses.exec = cache.exec  # type: ignore[attr-defined]  # found before the builtin
    atexit.register(cache.save)
    return cache
