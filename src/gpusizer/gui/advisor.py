"""How many GPUs the scenario needs at least: the sizing advisor (``gpusizer.plan``) for the
chosen GPU, run off the GUI thread once editing pauses, and cancelled when the scenario
changes under it, so that a slow search never freezes the window."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ..core.model.specs import GPUSpec, Scenario
from ..core.sizing.layout_search import DEFAULT_MARGIN

log = logging.getLogger(__name__)
IDLE_MS = 150  # after the last edit; the search takes 5-100 ms, too much for every frame


def scenario_key(scenario: Scenario) -> str:
    """The scenario as canonical JSON (a cache key). ``json.dumps`` escapes a lone surrogate
    in a name where pydantic's JSON encoder raises (issue 15)."""
    return json.dumps(scenario.model_dump(mode="json"), sort_keys=True)


def gpu_id(scenario: Scenario) -> str:
    gpu = scenario.hardware.gpu
    return gpu.id if isinstance(gpu, GPUSpec) else gpu


def cheapest_on_gpu(
    scenario: Scenario,
    cancel: Callable[[], bool] | None = None,
    margin: float = DEFAULT_MARGIN,
    whole_nodes: bool = False,
) -> dict[str, Any] | None:
    """The advice for the scenario's GPU (``plan``, the Hardware tab's row for it with the
    same ``margin`` and ``whole_nodes``): how many, laid out how, with which techniques;
    None when nothing fits or the advisor fails (the summary then says so). PlanCancelled
    passes."""
    from ..core.sizing.solver import PlanCancelled, plan

    try:
        options = plan(
            scenario, gpus=[gpu_id(scenario)], cancel=cancel, margin=margin, whole_nodes=whole_nodes
        )
    except PlanCancelled:
        raise
    except Exception:  # the advice is optional: the estimate stays on screen without it
        log.warning("sizing advisor failed", exc_info=True)
        return None
    return options[0] if options else None


class Advisor(QObject):
    """``advised(scenario, option)`` once the advice for ``scenario`` is known. One search at a
    time, in a worker thread; a newer request cancels the running one."""

    advised = Signal(object, object)
    _finished = Signal(object, str, object, object)  # from the worker: scenario, key, option, job

    def __init__(
        self, parent: QObject | None = None, idle_ms: int = IDLE_MS, margin: float = DEFAULT_MARGIN
    ) -> None:
        super().__init__(parent)
        self.margin = margin
        self.whole_nodes = False  # the Hardware tab's setting, as its row for this GPU
        self._last: Scenario | None = None
        self._pending: Scenario | None = None
        # Keyed by the scenario's JSON: an inline GPU's dict field makes Scenario unhashable.
        self._cache: dict[str, dict[str, Any] | None] = {}
        self._job: threading.Event | None = None  # set = cancel the running search
        self._thread: threading.Thread | None = None
        self._timer = QTimer(self, singleShot=True, interval=idle_ms)
        self._timer.timeout.connect(self.run)
        self._finished.connect(self._done)

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def request(self, scenario: Scenario) -> None:
        """Advise on ``scenario`` when editing pauses (at once if it is already known)."""
        self._last = scenario
        key = scenario_key(scenario)
        self.cancel()
        if key in self._cache:
            self._timer.stop()
            self._pending = None
            self.advised.emit(scenario, self._cache[key])
            return
        self._pending = scenario
        self._timer.start()

    def cancel(self) -> None:
        """Stop the running search (its result, if any, is dropped)."""
        if self._job is not None:
            self._job.set()
            self._job = None

    def run(self) -> None:
        """Start the pending search now, in the worker thread."""
        self._timer.stop()
        scenario, self._pending = self._pending, None
        if scenario is None:
            return
        self.cancel()
        job = self._job = threading.Event()
        key = scenario_key(scenario)
        self._thread = threading.Thread(
            target=self._work, args=(scenario, key, job), name="gpusizer-advisor", daemon=True
        )
        self._thread.start()

    def _work(self, scenario: Scenario, key: str, job: threading.Event) -> None:
        from ..core.sizing.solver import PlanCancelled

        try:
            option = cheapest_on_gpu(scenario, job.is_set, self.margin, self.whole_nodes)
        except PlanCancelled:
            return
        except BaseException:  # never let the worker die silently
            log.exception("sizing advisor failed")
            option = None
        if not job.is_set():
            self._finished.emit(scenario, key, option, job)  # queued into the GUI thread

    def _done(self, scenario: Scenario, key: str, option: Any, job: threading.Event) -> None:
        if job.is_set() or job is not self._job:
            return  # cancelled after it finished: a newer scenario is being advised on
        self._job = None
        if len(self._cache) > 64:  # a long session must not grow without bound
            self._cache.clear()
        self._cache[key] = option
        self.advised.emit(scenario, option)

    def advice_for(self, scenario: Scenario) -> dict[str, Any] | None:
        """The advice for ``scenario`` now: known, or computed here (a report being written)."""
        key = scenario_key(scenario)
        if key not in self._cache:
            self._cache[key] = cheapest_on_gpu(scenario, None, self.margin, self.whole_nodes)
        return self._cache[key]

    def set_margin(self, margin: float, whole_nodes: bool | None = None) -> None:
        """Advise with another memory margin (and whole-node setting: the Hardware tab's),
        again for the last scenario."""
        nodes = self.whole_nodes if whole_nodes is None else whole_nodes
        if (margin, nodes) == (self.margin, self.whole_nodes):
            return
        self.margin, self.whole_nodes = margin, nodes
        self._cache.clear()
        if self._last is not None:
            self.request(self._last)

    def wait(self, timeout: float = 30.0) -> bool:
        """Run the pending search (if any) and wait for it; True when it finished in time
        (screenshots and tests, which want the advice on screen)."""
        if self._pending is not None:
            self.run()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        from PySide6.QtCore import QCoreApplication

        QCoreApplication.processEvents()  # deliver the queued result
        return thread is None or not thread.is_alive()

    def shutdown(self) -> None:
        """Cancel everything (the window is closing); the daemon worker ends on its own."""
        self._timer.stop()
        self._pending = None
        self.cancel()
