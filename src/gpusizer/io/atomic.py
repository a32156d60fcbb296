"""The one writer of user files: scenario saves, reports, CSV, chart PNG/SVG.

Written to a temporary file in the target's folder, flushed to disk, then renamed over the
target (``os.replace`` is atomic within a file system), so a full disk or a crash leaves the old
file whole and the error reaches the user. Also:

- an existing file keeps its permission bits; a new one gets 0666 minus the umask, as any
  editor's file would (``mkstemp``'s 0600 is for secrets, not documents);
- a symbolic link is written through: its target is replaced, the link stays;
- the folder must exist: a mistyped folder is an error, not a silently created tree.

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


def _target(path: str | Path) -> Path:
    """The file to replace: the end of a symlink chain; its folder must exist."""
    p = Path(path)
    if p.is_symlink():
        p = Path(os.path.realpath(p))
    if not p.parent.is_dir():
        raise FileNotFoundError(errno.ENOENT, f"the folder {p.parent} does not exist", str(p))
    if p.is_dir():
        raise IsADirectoryError(errno.EISDIR, f"{p} is a folder", str(p))
    return p


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
    target = _target(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
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
