"""How many GPUs the scenario needs at least: the sizing advisor (``gpusizer.plan``) for the
chosen GPU, run once editing pauses, so that it never slows an edit down."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from ..core.layout_search import DEFAULT_MARGIN
from ..core.specs import GPUSpec, Scenario

log = logging.getLogger(__name__)
IDLE_MS = 150  # after the last edit; the search takes 5-100 ms, too much for every frame


def gpu_id(scenario: Scenario) -> str:
    gpu = scenario.hardware.gpu
    return gpu.id if isinstance(gpu, GPUSpec) else gpu


def cheapest_on_gpu(scenario: Scenario, margin: float = DEFAULT_MARGIN) -> dict[str, Any] | None:
    """The fewest GPUs of the scenario's GPU (and their layout) whose peak leaves ``margin``
    of memory spare (the Hardware tab's margin); None when nothing fits or the advisor fails
    (the summary then says so)."""
    from ..core.solver import plan

    try:
        options = plan(scenario, gpus=[gpu_id(scenario)], margin=margin)
    except Exception:  # the advice is optional: the estimate stays on screen without it
        log.warning("sizing advisor failed", exc_info=True)
        return None
    return options[0] if options else None


class Advisor(QObject):
    """``advised(scenario, option)`` once the advice for ``scenario`` is known."""

    advised = Signal(object, object)

    def __init__(self, parent: QObject | None = None, idle_ms: int = IDLE_MS,
                 margin: float = DEFAULT_MARGIN) -> None:
        super().__init__(parent)
        self.margin = margin
        self._last: Scenario | None = None
        self._pending: Scenario | None = None
        # Keyed by the scenario's JSON: an inline GPU's dict field makes Scenario unhashable.
        self._cache: dict[str, dict[str, Any] | None] = {}
        self._timer = QTimer(self, singleShot=True, interval=idle_ms)
        self._timer.timeout.connect(self.run)

    def request(self, scenario: Scenario) -> None:
        """Advise on ``scenario`` when editing pauses (at once if it is already known)."""
        self._last = scenario
        key = scenario.model_dump_json()
        if key in self._cache:
            self._timer.stop()
            self._pending = None
            self.advised.emit(scenario, self._cache[key])
            return
        self._pending = scenario
        self._timer.start()

    def run(self) -> None:
        """Compute the pending advice now."""
        self._timer.stop()
        scenario, self._pending = self._pending, None
        if scenario is None:
            return
        option = cheapest_on_gpu(scenario, self.margin)
        if len(self._cache) > 64:  # a long session must not grow without bound
            self._cache.clear()
        self._cache[scenario.model_dump_json()] = option
        self.advised.emit(scenario, option)

    def set_margin(self, margin: float) -> None:
        """Advise with another memory margin (the Hardware tab's), again for the last
        scenario."""
        if margin == self.margin:
            return
        self.margin = margin
        self._cache.clear()
        if self._last is not None:
            self.request(self._last)
