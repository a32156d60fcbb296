"""Every estimate the window runs, in a background worker (gui/worker.py), never on the GUI
thread: an estimate takes 0.1-60 ms (README, Development), but a valid scenario can take
seconds (a ``serving.load`` of 300,000 requests: 3-8 s of CPU), which froze the window at
open and at each edit, and delayed every start while it was the last scenario.

Each estimate is started at once and waited for :data:`WAIT_S` at most: a quick answer comes
with the edit that asked for it (the form, the charts and undo see one consistent step), a
slow one through ``arrived`` while the window answers. Only the last request's answer is
delivered. Closing abandons a running estimate (a daemon thread): the estimator does not
stop part-way, and nothing waits for it.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..core.cancel import CancelToken
from ..core.errors import ScenarioError
from ..core.model.result import Estimate
from ..core.model.specs import Scenario
from ..core.pipeline.estimate import estimate
from .worker import NOT_YET, BackgroundWorker

log = logging.getLogger(__name__)
WAIT_S = 0.2  # s the GUI thread waits for an answer before it goes on without it
Answer = Estimate | Exception  # what an estimate gives: the estimate, or why not


def _estimate(scenario: Scenario, _token: CancelToken) -> Answer:
    """In the worker thread: the estimate, or the exception that refused it (returned, so
    that the field a ScenarioError names reaches the form)."""
    try:
        return estimate(scenario)
    except Exception as exc:  # the window turns any failure into a message
        if not hasattr(exc, "field"):
            log.exception("estimate failed")
        return exc


def plain_name(s: Scenario) -> str:
    """The scenario's name for a status-bar sentence, cut short (names may be 1 MB long)."""
    name = s.name or s.model.name or "the scenario"
    return name if len(name) <= 80 else name[:79] + "…"


def refusal(exc: Exception, edit: bool = False) -> ScenarioError:
    """The ScenarioError to show for an estimate's failure (a bug's is wrapped)."""
    if isinstance(exc, ScenarioError):
        return exc
    if edit:
        return ScenarioError("", f"internal error while estimating: {exc}")
    return ScenarioError("", f"cannot be estimated ({type(exc).__name__}: {str(exc)[:120]})")


def dropped_note(exc: Exception) -> str:
    """The status bar's sentence when the remembered scenario cannot be estimated."""
    reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
    return f"The last scenario could not be restored and was dropped ({reason}); starting from the default."


class Estimator(QObject):
    """``ask(scenario, ticket)``: the answer now, or None and later ``arrived(ticket, answer)``
    (``ticket``: whatever the asker needs to finish the step)."""

    arrived = Signal(object, object)

    def __init__(self, parent: QObject | None = None, wait_s: float | None = None) -> None:
        super().__init__(parent)
        self.wait_s = WAIT_S if wait_s is None else wait_s  # read now: tests set the module's
        self.worker = BackgroundWorker(
            _estimate, self, delay_ms=0, cache_size=1, name="gpusizer-estimate", daemon=True
        )
        self.worker.finished.connect(self._finished)
        self.worker.failed.connect(self._finished)
        self._count = 0
        self._asked: tuple[str, Any] | None = None  # (key, ticket) of the answer still to come

    def ask(self, scenario: Scenario, ticket: Any, wait_s: float | None = None) -> Answer | None:
        """Estimate ``scenario``; its answer within ``wait_s`` (default :attr:`wait_s`), else
        None, and ``arrived`` brings it. A newer ask drops the older one's answer."""
        self._count += 1
        key = str(self._count)
        self._asked = (key, ticket)
        answer = self.worker.run_wait(key, scenario, self.wait_s if wait_s is None else wait_s)
        if answer is NOT_YET:
            return None
        self._asked = None
        return answer

    def forget(self) -> None:
        """Drop the answer still to come (the scenario was replaced meanwhile)."""
        self._asked = None

    @property
    def pending(self) -> bool:
        """Whether an answer is still to come."""
        return self._asked is not None

    def wait(self, timeout: float = 120.0) -> bool:
        """Wait for the answer still to come and deliver it; True when there is none left
        (screenshots and tests, which want the estimate on screen)."""
        if self._asked is not None:
            self.worker.wait(timeout)
        return self._asked is None

    def _finished(self, key: str, answer: Any) -> None:
        if self._asked is None or key != self._asked[0]:
            return
        ticket, self._asked = self._asked[1], None
        self.arrived.emit(ticket, answer if not isinstance(answer, str) else RuntimeError(answer))

    def shutdown(self) -> None:
        """Stop answering; a running estimate is abandoned, not waited for."""
        self._asked = None
        self.worker.shutdown(wait=False)
