"""The comparison's search off the UI thread, cancellable, remembered per scenario.

The search over the whole catalog takes 40 ms (an 8B model) to about a second (DeepSeek-V3
with serving targets, or a full fine-tune of it) on this 2-core machine: too long for an
edit, which must redraw within a frame. It runs in one worker thread; a newer request cancels
the running one (``compare_gpus``' ``cancel`` is polled at every evaluation of the search) and
a result for an older scenario is dropped. Python holds the GIL for one switch interval
(5 ms) at a time, so the UI thread stays responsive while the worker searches (measured in
benchmarks/bench_hardware.py).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ...core.errors import ScenarioError
from ...core.model.presets import gpu_spec
from ...core.model.specs import Scenario
from ...core.pipeline.scenario import scenario_dict
from ...core.sizing.compare import Cancelled, size_gpus

log = logging.getLogger(__name__)
DELAY_MS = 60  # after the last edit: a burst of edits starts one search, not ten
LAYOUT = ("tensor", "pipeline", "data", "context", "expert")  # searched, not an input
MAX_CACHED = 32


def search_key(s: Scenario, settings: dict[str, Any]) -> str:
    """What the search depends on: the scenario without the layout it searches (so applying
    a row, or editing TP, does not search again), the batch when users are a target (spread
    over the replicas), the GPU only where its node shape differs from its catalog entry's."""
    data = scenario_dict(s)
    for key in LAYOUT:
        data["parallelism"].pop(key, None)
    if s.targets.users is not None:
        data["workload"].pop("batch_size", None)
    hw = data["hardware"]
    if isinstance(s.hardware.gpu, str):
        try:
            default = gpu_spec(s.hardware.gpu).gpus_per_node
        except (KeyError, ValueError, TypeError):
            default = None
        if hw["gpus_per_node"] == default:
            hw.pop("gpu")
            hw.pop("gpus_per_node")
    return json.dumps([data, settings], sort_keys=True)


class CompareRunner(QObject):
    """``request(scenario, settings)``; then ``finished(key, options)`` (catalog order,
    unpriced: core/compare.size_gpus), or ``failed(key, message)``. ``busy(bool)`` while a
    search runs."""

    finished = Signal(str, object)
    failed = Signal(str, str)
    busy = Signal(bool)
    _done = Signal(str, object, str)  # from the worker thread (queued to this one)

    def __init__(self, parent: QObject | None = None, delay_ms: int = DELAY_MS) -> None:
        super().__init__(parent)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpusizer-compare")
        self._stop: threading.Event | None = None
        # Deleted with its window: stop the search (the lambda holds the pool, not self).
        self._stops: list[threading.Event] = []
        self.destroyed.connect(partial(_stop_all, self._stops, self._pool))
        self._pending: tuple[str, Scenario, dict[str, Any]] | None = None
        self.current = ""  # the key of the last request
        self.idle = True  # no search pending or running for the last request
        self.cache: dict[str, list[dict[str, Any]]] = {}
        self._timer = QTimer(self, singleShot=True, interval=delay_ms)
        self._timer.timeout.connect(self.start)
        self._done.connect(self._on_done)

    def request(self, scenario: Scenario, settings: dict[str, Any]) -> str:
        """Search for ``scenario`` soon (at once from the cache); returns its key."""
        key = search_key(scenario, settings)
        self.current = key
        if key in self.cache:
            self._timer.stop()
            self._cancel()
            self.idle = True
            self.busy.emit(False)
            self.finished.emit(key, self.cache[key])
            return key
        self.idle = False
        self._pending = (key, scenario, settings)
        self._timer.start()
        return key

    def start(self) -> None:
        """Start the pending search now (cancelling a running one)."""
        self._timer.stop()
        if self._pending is None:
            return
        key, scenario, settings = self._pending
        self._pending = None
        self._cancel()
        stop = self._stop = threading.Event()
        self._stops[:] = [stop]
        self.busy.emit(True)
        self._pool.submit(self._work, key, scenario, settings, stop)

    def _cancel(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None

    def _work(self, key: str, scenario: Scenario, settings: dict[str, Any], stop: threading.Event) -> None:
        """In the worker thread: search, then hand the result to the UI thread."""
        try:
            options: Any = size_gpus(scenario, cancel=stop.is_set, **settings)
            error = ""
        except Cancelled:
            return
        except ScenarioError as exc:
            options, error = None, str(exc)
        except Exception as exc:  # a bug must not kill the worker: say so in the tab
            log.exception("comparison failed")
            options, error = None, f"internal error: {exc}"
        with contextlib.suppress(RuntimeError):  # the runner was deleted (window closed)
            self._done.emit(key, options, error)

    def _on_done(self, key: str, options: Any, error: str) -> None:
        if options is not None:
            if len(self.cache) >= MAX_CACHED:
                self.cache.pop(next(iter(self.cache)))
            self.cache[key] = options
        if key != self.current:
            return  # an older scenario's result: the newer one is on its way
        self.idle = True
        self.busy.emit(False)
        if error:
            self.failed.emit(key, error)
        else:
            self.finished.emit(key, options)

    def shutdown(self) -> None:
        """Cancel and wait for the worker (the window is closing)."""
        self._timer.stop()
        self._pending = None
        self._cancel()
        self._pool.shutdown(wait=True, cancel_futures=True)


def _stop_all(events: list[threading.Event], pool: ThreadPoolExecutor, *_: object) -> None:
    """Stop the search and let the worker end (a plain function: it outlives the runner)."""
    for event in events:
        event.set()
    pool.shutdown(wait=False)
