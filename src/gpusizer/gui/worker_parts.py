"""The parts of gui/worker.py's BackgroundWorker that live outside it: the LRU cache of
results, the mailbox through which a job in the worker thread answers the GUI thread, and the
functions run in the worker thread or as the worker is destroyed (why each is built so: the
docstrings below, and worker.py's)."""

from __future__ import annotations

import logging
import queue
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..core.cancel import Cancelled, CancelToken
from ..core.errors import ScenarioError
from .daemon_pool import DaemonPool

log = logging.getLogger("gpusizer.gui.worker")  # the worker's log, as before the move
Work = Callable[[Any, CancelToken], Any]  # (payload, token) -> result, in the worker thread


class LruCache:
    """Results by key, the least recently used dropped past ``size`` entries."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[str, Any] = OrderedDict()

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str) -> Any:
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key: str, value: Any) -> None:
        self._data[key] = value
        self._data.move_to_end(key)
        while len(self._data) > self.size:
            self._data.popitem(last=False)

    def clear(self) -> None:
        self._data.clear()


class Relay(QObject):
    """Wakes the GUI thread when a job has queued an answer (a child of its worker: deleted
    with it, in the GUI thread)."""

    ready = Signal()


class Mailbox:
    """What a job holds to send its answer: a plain thread-safe queue and, while its worker
    lives, the relay that wakes the GUI thread. Never a Qt object of its own.

    - The answer never travels inside the Qt event: the worker thread puts it on the queue and
      emits ``ready`` with no arguments, and the GUI thread takes it off. A queued signal
      carrying Python objects had PySide6 hold them in Qt's event from another thread, and a
      full GUI test run then crashed in a later garbage collection (memory corrupted in
      "Garbage-collecting").
    - The job's last reference to its mailbox drops in the worker thread when the job ends.
      Had the job held the relay itself, a worker deleted while its job ran (its window
      closed) left the job the relay's last owner, and the relay, a QObject of the GUI thread,
      was deleted in the worker thread: Qt requires an object to be deleted in its own thread
      (QObject docs, "Thread affinity"), and the same crash followed. The worker's
      ``destroyed`` detaches the relay first, under the lock a late ``post`` takes."""

    def __init__(self, relay: Relay) -> None:
        self.answers: queue.SimpleQueue[tuple[str, Any, str, CancelToken]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._relay: Relay | None = relay

    def post(self, key: str, result: Any, error: str, token: CancelToken) -> None:
        """In the worker thread: queue the answer, then wake the GUI thread (if anyone is left)."""
        self.answers.put((key, result, error, token))
        with self._lock:
            if self._relay is not None:
                self._relay.ready.emit()

    def detach(self, *_: object) -> None:
        """In the GUI thread, as the worker is destroyed: no more wake-ups."""
        with self._lock:
            self._relay = None


def run_job(
    work: Work, mailbox: Mailbox, threads: set[threading.Thread], key: str, payload: Any, token: CancelToken
) -> tuple[Any, str]:
    """In the worker thread: ``work(payload, token)``, its answer sent through ``mailbox`` and
    returned as (result, error) for :meth:`BackgroundWorker.run_wait`."""
    threads.add(threading.current_thread())
    try:
        result, error = work(payload, token), ""
    except Cancelled:
        return None, "cancelled"
    except ScenarioError as exc:
        result, error = None, str(exc)
    except Exception as exc:  # a bug must not kill the worker: say so where the answer goes
        log.exception("background job failed")
        result, error = None, f"internal error: {exc}"
    mailbox.post(key, result, error, token)
    return result, error


def detach_mailbox(mailbox: weakref.ref[Mailbox], *_: object) -> None:
    """The worker is destroyed: its mailbox, if it still lives, wakes no one from now on.

    Through a weak reference, not the mailbox's bound method: when a garbage collection frees
    a worker, its wrapper and its mailbox together, CPython clears the weak references to
    them before it clears the objects (``gc`` module, "handle_weakrefs" runs before
    ``tp_clear``), so the Qt object's ``destroyed``, emitted while the cycle is cleared, would
    otherwise call ``detach`` on a mailbox whose attributes were already gone. That reading fits
    the AttributeError '_lock' seen once in the event loop of a full GUI test run; it was not
    reproduced, and this reference is the one the code controls (how PySide holds a bound
    method's object is PySide's)."""
    box = mailbox()
    if box is not None:
        box.detach()


def abandon_jobs(tokens: list[CancelToken], pool: ThreadPoolExecutor | DaemonPool, *_: object) -> None:
    """Stop the job and let the thread end (the worker object is gone)."""
    for token in tokens:
        token.cancel()
    pool.shutdown(wait=False)
