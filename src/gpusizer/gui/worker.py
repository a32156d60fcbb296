"""One background worker for the window's slow questions: the sizing advisor's "GPUs needed"
(gui/advisor.py), the Hardware tab's comparison (charts/hardware.py), the window's estimates
(gui/estimator.py), Models That Fit (gui/fit_models.py) and the variants chart's estimates
(charts/background.py).

After napari's ``create_worker`` / superqt's ``thread_worker`` (napari/_qt/qthreading.py):
the work is a plain function run in a worker thread, its result comes back as a Qt signal in
the GUI thread, and stopping is cooperative: each job gets a :class:`~gpusizer.core.cancel.
CancelToken` (napari's ``quit()`` / ``abort_requested``), which the sizing search checks
before every estimate, so a job stops within one estimate of being told to. Written here
rather than taken from superqt: the window needs a debounce, a cache and a join that those
do not give, and one thread is all it uses.

One policy for every use:

- **Debounce**: a request starts its job ``delay_ms`` after the last request (a burst of edits
  starts one search, not ten); a newer request for other data cancels the running job at once.
- **Cache**: results by key, least recently used evicted past ``cache_size`` (a long session
  does not grow without bound; going back to a recent scenario answers at once).
- **Stale results**: a job's result is cached, but shown only if its key is still the one
  last requested.
- **Shutdown**: :meth:`shutdown` cancels the job and joins the thread (the window's close);
  ``shutdown(wait=False)`` abandons a job that cannot be cancelled (an estimate), whose
  thread is then a daemon (``daemon=True``): the process exits without waiting for it.
- **Now or later**: :meth:`run_wait` starts a job at once and waits a bounded time for it, so
  that a quick answer (most estimates: 0.1-60 ms) is shown with the edit that asked for it,
  and a slow one follows through ``finished`` while the window stays responsive.

The search takes 5 ms to about a second on this 2-core machine (benchmarks/bench_hardware.py);
Python holds the GIL for one switch interval (5 ms) at a time, so the GUI thread stays
responsive while the worker searches.
"""

from __future__ import annotations

import queue
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_for
from functools import partial
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer, Signal, Slot

from ..core.cancel import CancelToken
from ..core.errors import ScenarioError
from .daemon_pool import DaemonPool
from .worker_parts import LruCache, Mailbox, Relay, Work, abandon_jobs, detach_mailbox, run_job

NOT_YET = object()  # run_wait: the result comes later, through ``finished``


class BackgroundWorker(QObject):
    """``request(key, payload)``; then ``finished(key, result)`` in the GUI thread, or
    ``failed(key, message)`` (bad input: the ScenarioError's line; a bug: "internal error").
    ``busy(bool)`` while a job for the last request runs. ``work(payload, token)`` runs in
    the worker thread and should check ``token`` now and then (core/cancel.py)."""

    finished = Signal(str, object)
    failed = Signal(str, str)
    busy = Signal(bool)

    def __init__(
        self,
        work: Work,
        parent: QObject | None = None,
        *,
        delay_ms: int = 60,
        cache_size: int = 32,
        name: str = "gpusizer-worker",
        daemon: bool = False,
    ) -> None:
        super().__init__(parent)
        self.work = work
        self.cache = LruCache(cache_size)
        self.current = ""  # the key last requested
        self.idle = True  # nothing pending or running for the last request
        self._pool: ThreadPoolExecutor | DaemonPool = (
            DaemonPool(name) if daemon else ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        )
        self._taken: set[CancelToken] = set()  # jobs whose result run_wait has handed over
        self._pending: tuple[str, Any] | None = None
        self._running: tuple[str, CancelToken, Future[tuple[Any, str]]] | None = None
        # Deleted with its window without a shutdown: stop the job (a plain function that
        # holds the pool and the token list, not this object).
        self._tokens: list[CancelToken] = []
        self._threads: set[threading.Thread] = set()
        self.destroyed.connect(partial(abandon_jobs, self._tokens, self._pool))
        self._timer = QTimer(self, singleShot=True, interval=delay_ms)
        self._timer.timeout.connect(self.start)
        self._closed = False  # after shutdown: a late request (a field committed as the
        # window closes, its focus leaving) starts nothing
        self._relay = Relay(self)
        self._relay.ready.connect(self._take_answers, Qt.ConnectionType.QueuedConnection)
        self._mailbox = Mailbox(self._relay)
        self.destroyed.connect(partial(detach_mailbox, weakref.ref(self._mailbox)))

    # -- requests --------------------------------------------------------------------------
    def request(self, key: str, payload: Any) -> str:
        """Compute ``key`` from ``payload`` soon (at once from the cache); returns ``key``."""
        self.current = key
        if key in self.cache:
            self._timer.stop()
            self._pending = None
            self.cancel()
            self._settle()
            self.finished.emit(key, self.cache.get(key))
            return key
        self.idle = False
        if self._running is not None and self._running[0] == key:
            self._timer.stop()  # already on it
            self._pending = None
            return key
        self.cancel()
        self._pending = (key, payload)
        self._timer.start()
        return key

    def start(self) -> None:
        """Start the pending job now (cancelling a running one)."""
        self._timer.stop()
        if self._pending is None or self._closed:
            return
        (key, payload), self._pending = self._pending, None
        self.cancel()
        token = CancelToken()
        self._tokens[:] = [token]
        self.busy.emit(True)
        job = partial(run_job, self.work, self._mailbox, self._threads)
        future = self._pool.submit(job, key, payload, token)
        self._running = (key, token, future)

    def cancel(self) -> None:
        """Tell the running job to stop (its result, if it still comes, is not shown)."""
        if self._running is not None:
            self._running[1].cancel()
            self._running = None

    def run_wait(self, key: str, payload: Any, timeout: float) -> Any:
        """Start ``key``'s job at once (cancelling a running one) and wait up to ``timeout``
        seconds: its result (an error: :class:`ScenarioError`), or :data:`NOT_YET` when it
        takes longer; ``finished`` or ``failed`` then brings it (never both)."""
        if key in self.cache:
            self.current = key
            self._timer.stop()
            self._pending = None
            self.cancel()
            self._settle()
            return self.cache.get(key)
        self.current = key
        self.idle = False
        self._pending = (key, payload)
        self.start()
        if self._running is None:  # shut down
            return NOT_YET
        _key, token, future = self._running
        wait_for([future], timeout)
        if not future.done():
            return NOT_YET
        self._taken.add(token)  # its queued answer is dropped when it comes
        self._running = None
        self._settle()
        result, error = future.result()
        if error:
            return ScenarioError("", error)
        self.cache.put(key, result)
        return result

    def run_now(self, key: str, payload: Any) -> Any:
        """The result for ``key``: cached, or computed here in the calling thread (a report
        being written needs it now)."""
        if key not in self.cache:
            self.cache.put(key, self.work(payload, CancelToken()))
        return self.cache.get(key)

    # -- waiting and stopping --------------------------------------------------------------
    def wait(self, timeout: float = 30.0) -> bool:
        """Start the pending job (if any), wait for it and deliver its result; True when it
        finished in time (screenshots and tests, which want the answer on screen)."""
        if self._pending is not None:
            self.start()
        future = self._running[2] if self._running is not None else None
        if future is not None:
            wait_for([future], timeout)
        QCoreApplication.processEvents()  # deliver the queued result
        return future is None or future.done()

    def shutdown(self, wait: bool = True) -> None:
        """Cancel everything and join the worker thread (the window is closing); with
        ``wait=False`` a job that does not stop is abandoned (see ``daemon``)."""
        self._closed = True
        self._timer.stop()
        self._pending = None
        self.cancel()
        for token in self._tokens:
            token.cancel()
        self._pool.shutdown(wait=wait, cancel_futures=True)

    @property
    def alive(self) -> bool:
        """Whether a worker thread is still running (False after :meth:`shutdown`)."""
        return any(t.is_alive() for t in self._threads)

    # -- back in the GUI thread ------------------------------------------------------------
    @Slot()
    def _take_answers(self) -> None:
        """Every answer the worker thread has queued, in order (one wake-up may bring several)."""
        while True:
            try:
                answer = self._mailbox.answers.get_nowait()
            except queue.Empty:
                return
            self._on_done(*answer)

    def _on_done(self, key: str, result: Any, error: str, token: CancelToken) -> None:
        if token in self._taken:
            self._taken.discard(token)
            return
        if self._running is not None and self._running[1] is token:
            self._running = None
        if not error:
            self.cache.put(key, result)
        if key != self.current:
            return  # an older request's answer: the newer one is on its way
        # The answer for the key last asked (a job cancelled too late still answers it):
        # nothing more to wait for.
        self._timer.stop()
        self._pending = None
        if self._running is not None and self._running[0] == key:
            self.cancel()
        self._settle()
        if error:
            self.failed.emit(key, error)
        else:
            self.finished.emit(key, result)

    def _settle(self) -> None:
        self.idle = True
        self.busy.emit(False)


_Mailbox = Mailbox  # its name before worker_parts.py (tests/gui/test_worker.py)
__all__ = ["NOT_YET", "BackgroundWorker", "LruCache", "Work"]
