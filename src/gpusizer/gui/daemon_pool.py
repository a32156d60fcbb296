"""A one-thread executor whose thread is a daemon: what the interpreter does not wait for at
exit (gui/worker.py uses it for work that cannot be cancelled part-way, such as an estimate)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any


class DaemonPool:
    """One daemon thread running submitted jobs in order, with ThreadPoolExecutor's
    ``submit`` and ``shutdown``. ThreadPoolExecutor's threads are joined at interpreter exit
    (concurrent.futures' atexit hook), so a 10 s estimate kept the process alive after its
    window had closed; a daemon thread is abandoned instead."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._jobs: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None]
        self._jobs = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        if self._closed:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: Future[Any] = Future()
        self._jobs.put((future, fn, args))
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
            self._thread.start()
        return future

    def _loop(self) -> None:
        while (item := self._jobs.get()) is not None:
            future, fn, args = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:  # handed to whoever waits on the future
                    future.set_exception(exc)

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        self._closed = True
        while cancel_futures:
            try:
                item = self._jobs.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                item[0].cancel()
        self._jobs.put(None)
        if wait and self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
