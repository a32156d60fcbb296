"""A chart's own estimates in a background worker (gui/worker.py) when it is in the window.

The Training vs inference chart estimates each variant of the scenario (core/views/variants.py,
seven estimates): a few ms, but seconds each for a heavy serving load (300,000 requests: 3.4 s
of CPU per estimate), which froze the window while the tab was shown. In the window the chart
asks :class:`ChartJob`; an answer within :data:`WAIT_S` is drawn at once (the usual case: the
chart never shows an older scenario), a slower one when it comes. Outside the window (CLI,
report) the chart computes in line, as before.
"""

from __future__ import annotations

import inspect
import logging
import weakref
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from ...core.cancel import CancelToken
from ...core.model.specs import Scenario
from ..advisor import scenario_key
from ..worker import NOT_YET, BackgroundWorker

log = logging.getLogger(__name__)
WAIT_S = 0.2  # s the GUI thread waits before it goes on without the answer


class ChartJob(QObject):
    """``run(scenario)``: ``compute(scenario)`` in a worker, then ``show(result)`` in the GUI
    thread (only the last scenario's); errors are logged and leave the chart as it was."""

    def __init__(
        self, parent: QObject, compute: Callable[[Scenario], Any], show: Callable[[Any], None]
    ) -> None:
        super().__init__(parent)
        # a weak reference: the chart holds the job, and a job holding the chart's bound method
        # back would make a cycle of Qt objects for the cyclic collector to free (a crash risk
        # when a collection frees Qt wrappers); a plain function is kept as it is
        self._show: Callable[[], Callable[[Any], None] | None] = (
            weakref.WeakMethod(show) if inspect.ismethod(show) else (lambda: show)
        )
        self._asked = ""

        def work(scenario: Scenario, _token: CancelToken) -> Any:
            return compute(scenario)

        self.worker = BackgroundWorker(
            work, self, delay_ms=0, cache_size=4, name="gpusizer-chart", daemon=True
        )
        self.worker.finished.connect(self._done)
        self.worker.failed.connect(lambda _key, message: log.warning("chart not drawn: %s", message))

    def run(self, scenario: Scenario) -> None:
        key = self._asked = scenario_key(scenario)
        result = self.worker.run_wait(key, scenario, WAIT_S)
        if result is NOT_YET:
            return
        if isinstance(result, Exception):
            raise result  # the chart tabs say so, as for a chart computed in line
        self._done(key, result)

    def _done(self, key: str, result: Any) -> None:
        show = self._show()
        if key == self._asked and show is not None:
            show(result)

    def wait(self, timeout_s: float) -> bool:
        return self.worker.wait(timeout_s)

    def shutdown(self) -> None:
        self.worker.shutdown(wait=False)


class WorkerChart:
    """Mixin for a chart (a ``ChartBase``) whose data is computed by ``compute(scenario)`` in a
    :class:`ChartJob` when it is in the window: ``_in_worker`` asks, ``_show_data(result)``
    (the chart's own) keeps and draws the answer; waits and shutdown follow the job."""

    job: ChartJob | None = None

    def _in_worker(self, compute: Callable[[Scenario], Any], scenario: Scenario) -> None:
        if self.job is None:
            self.job = ChartJob(self, compute, self._shown)  # type: ignore[arg-type]
        self.job.run(scenario)

    def _shown(self, result: Any) -> None:
        self._show_data(result)
        self.has_data = True
        self._redraw()  # type: ignore[attr-defined]
        self.relayout()  # type: ignore[attr-defined]

    def _show_data(self, result: Any) -> None:
        raise NotImplementedError

    def wait_settled(self, timeout_s: float = 30.0) -> bool:
        return self.job is None or self.job.wait(timeout_s)

    def shutdown(self) -> None:
        if self.job is not None:
            self.job.shutdown()
