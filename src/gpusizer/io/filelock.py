"""A lock around a settings file's read-modify-write, between processes (two windows, a window
and a script): each save reads the file, adds its entry and writes it back atomically
(io/atomic.py), so two saves at once each wrote the file they had read and one lost the
other's entry (16 concurrent custom-GPU saves kept 4-9 of 16, each caller told it succeeded).

The lock is a file beside the settings file (``NAME.lock``, never removed: removing it would let
a third process lock a new file while the second still holds the old one), locked whole with
``fcntl.flock`` on POSIX (Python docs, fcntl module) or ``msvcrt.locking`` on Windows (its
LK_LOCK retries for 10 s, then raises). A lock not had within :data:`WAIT_SECONDS` is a
ScenarioError naming the file, never a hang.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..core.errors import ScenarioError

WAIT_SECONDS = 30.0  # a save takes milliseconds; a holder this long has hung
_POLL = 0.01


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _unlock(fd: int) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)


@contextmanager
def locked(path: Path, field: str) -> Iterator[None]:
    """Hold the lock of ``path`` (its folder is created: the app's own settings folder) for
    the block; ScenarioError naming ``field`` when it cannot be had."""
    lock = path.with_name(path.name + ".lock")
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise ScenarioError(field, f"cannot lock {lock.name}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise ScenarioError(field, f"{path.name} is being saved by another process; try again")
            time.sleep(_POLL)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
