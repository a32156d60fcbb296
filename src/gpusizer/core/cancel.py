"""Cooperative cancellation of a long search (``plan``, ``compare_gpus``): one token that the
caller sets and the search checks, instead of an exception type per search.

The search asks :meth:`CancelToken.check` before every estimate (the unit of work of every
loop of the layout search), so a cancelled search stops within one estimate. The window's
background worker (gui/worker.py) gives each job its own token and sets it when a newer
request supersedes the job or the window closes: the pattern of napari's ``WorkerBase.quit()``
and ``abort_requested`` (napari/_qt/qthreading.py), where the worker itself decides where
it may stop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Cancelled(Exception):
    """The search stopped because its token was cancelled; it returns nothing."""


class CancelToken:
    """Set once by whoever started the work (any thread); read by the work itself. ``poll``:
    a callable also asked (the public API's ``cancel=lambda: ...``)."""

    def __init__(self, poll: Callable[[], bool] | None = None) -> None:
        self._event = threading.Event()
        self._poll = poll

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        if not self._event.is_set() and self._poll is not None and self._poll():
            self._event.set()
        return self._event.is_set()

    def __call__(self) -> bool:
        """The token as the ``cancel()`` callable older callers poll."""
        return self.cancelled

    def check(self) -> None:
        """Raise :class:`Cancelled` once the token is cancelled."""
        if self.cancelled:
            raise Cancelled


def as_token(cancel: CancelToken | Callable[[], bool] | None) -> CancelToken | None:
    """A token from what a caller passes as ``cancel``: a token, a callable, or nothing."""
    if cancel is None or isinstance(cancel, CancelToken):
        return cancel
    return CancelToken(cancel)
