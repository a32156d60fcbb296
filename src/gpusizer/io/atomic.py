"""The one writer of user files: scenario saves, reports, CSV, chart PNG/SVG.

Written to a temporary file in the target's folder, flushed to disk, then renamed over the
target (``os.replace`` is atomic within a file system), so a full disk or a crash leaves the old
file whole and the error reaches the user. Also:

- an existing file keeps its permission bits; a new one gets 0666 minus the umask, as any
  editor's file would (``mkstemp``'s 0600 is for secrets, not documents);
- a symbolic link is written through: its target is replaced, the link stays;
- the folder must exist: a mistyped folder is an error, not a silently created tree;
- only a regular file is replaced: a FIFO, a device or a socket at the path (or at the end of
  its links) is refused with the reason, never deleted for a regular file in its place (as
  root ``--output /dev/null`` replaced ``/dev/null``). ``/dev/stdout``, ``/dev/stderr`` and
  ``/dev/null`` are the exceptions users mean: they are written to as streams.

JSON files (scenarios, the user's GPUs) go through :func:`write_json`: strict JSON, as
core/readfile.py reads it back.
"""

from __future__ import annotations

import errno
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError

STREAMS = ("/dev/stdout", "/dev/stderr", "/dev/null")  # written to, never replaced
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def _target(path: str | Path) -> Path:
    """The file to replace: the end of a symlink chain; its folder must exist, and what is
    there now must be a regular file (or nothing)."""
    p = Path(path)
    if p.is_symlink():
        p = Path(os.path.realpath(p))
    if not p.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"the folder {p.parent} does not exist", str(p))
    try:
        mode = os.stat(p).st_mode
    except OSError:  # nothing there (or unreadable: the rename will say)
        return p
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, f"{p} is a folder", str(p))
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        raise OSError(errno.EINVAL, f"{p} is {kind}; only a regular file is replaced", str(p))
    return p


def _write_stream(path: str, payload: bytes) -> Path:
    """``/dev/stdout`` and friends: written to as they are (nothing to replace)."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_BINARY", 0))
    try:
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    return Path(path)


def _create_temp(target: Path) -> tuple[int, Path]:
    """A new file beside ``target``, created with mode 0666 so the umask applies."""
    for _ in range(100):
        tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no free temporary name in {target.parent}")


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Replace ``path`` (or create it) with ``data`` (str is written as UTF-8), atomically;
    returns the file written (a symlink's target). Raises OSError with the reason."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    name = os.fspath(path)
    if os.name == "posix" and (name in STREAMS or os.path.realpath(name) in STREAMS):
        return _write_stream(name, payload)
    target = _target(path)
    fd, tmp = _create_temp(target)
    try:
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = None
        if mode is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    return target


def write_json(path: str | Path, data: Any, field: str) -> Path:
    """``data`` as indented JSON and a final newline, written by :func:`write_atomic`. Strict
    (RFC 8259), as core/readfile.py reads it: a NaN or an infinity, which that reader refuses,
    is a ScenarioError(``field``) and nothing is written."""
    try:
        text = json.dumps(data, indent=2, allow_nan=False)
    except ValueError:
        raise ScenarioError(
            field, "holds a number that is not finite (NaN or infinity); not written"
        ) from None
    return write_atomic(path, text + "\n")
