"""Unexpected exceptions are logged and shown in the status bar: the window never crashes.

PySide6 passes exceptions raised in slots and event handlers to ``sys.excepthook``; the
default one prints and carries on, which a user never sees. This one logs the traceback
and tells the user in one line, through a callback the main window provides.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from types import TracebackType

log = logging.getLogger("gpusizer")

Notify = Callable[[str], None]
_notify: list[Notify] = []


def set_notifier(fn: Notify | None) -> None:
    """Where the one-line message goes (the main window's status bar); None stops showing."""
    _notify.clear()
    if fn is not None:
        _notify.append(fn)


def _hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
        return
    log.error("unexpected error", exc_info=(kind, exc, tb))
    for fn in _notify:
        try:
            fn(f"Something went wrong ({kind.__name__}: {exc}); the details are in the log.")
        except Exception:  # the notifier itself failing must not recurse into the hook
            log.exception("cannot show the error")


def install(notify: Notify | None = None) -> None:
    """Install the hook (idempotent)."""
    if notify is not None:
        set_notifier(notify)
    sys.excepthook = _hook
