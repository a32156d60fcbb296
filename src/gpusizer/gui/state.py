"""The one source of truth of the window: the current scenario, its estimate and the error.

Panels push edits here (through :mod:`gpusizer.gui.binding`) and listen to the signals; they
never talk to each other. An edit is a dotted path and a value (``"parallelism.tensor", 4``).
Edits that make the scenario invalid are kept as *pending* so the widget keeps what the user
typed, while the last valid scenario and estimate stay on screen, marked stale.

Estimates come from the background worker (gui/estimator.py), never from the GUI thread: an
answer within 0.2 s comes with the edit; a slower one (a heavy serving load) later, the edit
kept as pending meanwhile, and a whole scenario (open, restore, undo) shown when it comes.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoStack

from ..core.errors import ScenarioError
from ..core.model.naming import is_derived, with_derived_name
from ..core.model.result import Estimate
from ..core.model.specs import Scenario
from ..core.pipeline.scenario import parse_scenario, scenario_dict
from .estimator import Answer, Estimator, dropped_note, plain_name, refusal
from .state_paths import follow_gpu_node, get_path, named_new, related_paths, set_path
from .undo import SnapshotCommand

log = logging.getLogger(__name__)

DEFAULT_SCENARIO: dict[str, Any] = {  # unnamed: the name follows the scenario
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "lora", "sequence_length": 4096, "micro_batch_size": 1},
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
}
ESTIMATING = "Estimating"  # the status bar's word while an estimate is still to come
START_WAIT_S = 60.0  # s for the default scenario's estimate at start (a few ms when idle)
__all__ = ["DEFAULT_SCENARIO", "ESTIMATING", "START_WAIT_S", "ScenarioState", "get_path", "set_path"]


class ScenarioState(QObject):
    """Current valid scenario + estimate, pending (invalid) edits, error, undo history.

    Signals: ``scenarioChanged(Scenario)`` and ``estimateChanged(Estimate)`` after a valid
    change; ``errorChanged(object)`` with the :class:`ScenarioError` or ``None``; ``changed()``
    after every attempt (panels refresh what they show or hide from :meth:`value`).
    """

    scenarioChanged = Signal(object)
    estimateChanged = Signal(object)
    errorChanged = Signal(object)
    changed = Signal()
    notice = Signal(str)  # a sentence for the status bar (what an edit also changed)
    # A whole scenario comes in (new, open, import: True; undo, redo: False): typed text goes.
    replaced = Signal(bool)

    def __init__(
        self,
        scenario: Scenario | dict[str, Any] | None = None,
        parent: QObject | None = None,
        delay_ms: int = 30,
        merge_ms: int = 1000,
        fallback: bool = False,
    ):
        """``fallback``: a first scenario the estimator refuses gives way to the default and
        :attr:`start_note` says why (a remembered one), instead of raising ScenarioError."""
        super().__init__(parent)
        self.estimator = Estimator(self)
        self.estimator.arrived.connect(self._arrived)
        self._pending: dict[str, Any] = {}
        self._queued: dict[str, Any] = {}
        self._error: ScenarioError | None = None
        self._replacing: Scenario | None = None  # a whole scenario whose estimate is to come
        self.merge_ms = merge_ms
        self._last_edit: tuple[str, float] = ("", 0.0)
        self.undo_stack = QUndoStack(self)
        self.labels: dict[str, str] = {}  # field path -> the label users see (undo items)
        # how each kind not shown was last done (gui/kind_switch.py), saved with the file
        self.other_kinds: dict[str, dict[str, Any]] = {}
        # Throttle, not restart: a held spin-box arrow still redraws every ~30 ms.
        self._timer = QTimer(self, singleShot=True, interval=delay_ms)
        self._timer.timeout.connect(self.flush)
        self.start_note = ""  # what the window says about the first scenario
        self._scenario, self._estimate = self._first(
            named_new(scenario if scenario is not None else DEFAULT_SCENARIO), fallback
        )

    def _first(self, first: Scenario, fallback: bool) -> tuple[Scenario, Estimate]:
        """The scenario to start on and its estimate, each from the worker: the default (an
        estimate of a few ms) at once, the one given when it comes within the estimator's
        wait, else later (a heavy saved scenario must not delay the window)."""
        default = named_new(DEFAULT_SCENARIO)
        base = self.estimator.ask(default, None, wait_s=START_WAIT_S)
        if not isinstance(base, Estimate):
            raise ScenarioError("", f"the default scenario cannot be estimated ({base})")
        if first == default:
            return default, base
        answer = self.estimator.ask(first, ("start", first, False, ""))
        if isinstance(answer, Estimate):
            return first, answer
        if answer is None:
            self._replacing = first
            self.start_note = f"{ESTIMATING} {plain_name(first)}: it follows when ready."
        elif fallback:
            self.start_note = dropped_note(answer)
        else:
            raise refusal(answer)
        return default, base

    # -- reading ---------------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        """The last valid scenario (what the estimate was computed from)."""
        return self._scenario

    @property
    def estimate(self) -> Estimate:
        """The estimate of :attr:`scenario`; stale while :attr:`error` is set."""
        return self._estimate

    @property
    def error(self) -> ScenarioError | None:
        return self._error

    @property
    def stale(self) -> bool:
        """True while pending edits are invalid: the estimate shown is the last valid one."""
        return self._error is not None

    def value(self, path: str) -> Any:
        """What the user sees at ``path``: a queued or pending edit, else the scenario's value."""
        for edits in (self._queued, self._pending):
            for p in sorted(edits, key=len, reverse=True):
                if p == path:
                    return edits[p]
                if path.startswith(p + "."):
                    return get_path(edits[p], path[len(p) + 1 :])
        return get_path(self._scenario, path)

    # -- editing ---------------------------------------------------------------------------
    def edit(self, path: str, value: Any, immediate: bool = False) -> None:
        """Queue an edit; applied within ``delay_ms`` (or now), merged with a burst of others."""
        self._queued = {p: v for p, v in self._queued.items() if not related_paths(p, path)}
        self._queued[path] = value
        if immediate:
            self.flush()
        elif not self._timer.isActive():
            self._timer.start()

    def edit_many(self, edits: dict[str, Any], immediate: bool = True) -> None:
        """Several edits applied together (one undo step)."""
        for path, value in edits.items():
            self.edit(path, value, immediate=False)
        if immediate:
            self.flush()

    def flush(self) -> None:
        """Apply queued edits now: validate, estimate, record for undo, emit."""
        self._timer.stop()
        if not self._queued:
            return
        queued, self._queued = self._queued, {}
        pending = {p: v for p, v in self._pending.items() if not any(related_paths(p, q) for q in queued)}
        pending.update(queued)
        # The first edit names the undo step (a kind switch that also resets the framework
        # reads "Change Kind"); only single edits merge with the next one of the same field.
        self._try_apply(pending, key=next(iter(queued)), single=len(queued) == 1)

    def _try_apply(self, pending: dict[str, Any], key: str, single: bool = True) -> None:
        base = self._replacing or self._scenario  # an edit during an open applies to the file
        data = scenario_dict(base)
        follow_gpu_node(data, base, pending)
        for path in sorted(pending, key=len):  # parents first, then their fields
            set_path(data, path, pending[path])
        try:
            scenario = self._named(parse_scenario(data), "name" in pending, base)
        except ScenarioError as exc:
            self._refused(pending, exc)
            return
        self._replacing = None
        answer = self.estimator.ask(scenario, ("edit", scenario, pending, key, single))
        if answer is None:  # slow: the form keeps the edits until the estimate comes
            self._pending = pending
            self.changed.emit()
            self.notice.emit(f"{ESTIMATING} the edit: it follows when ready.")
            return
        self._settle_edit(scenario, pending, key, single, answer)

    def _settle_edit(
        self, scenario: Scenario, pending: dict[str, Any], key: str, single: bool, answer: Answer
    ) -> None:
        if isinstance(answer, Exception):
            self._refused(pending, refusal(answer, edit=True))
            return
        self._pending = {}
        before = self._scenario
        self._commit(scenario, answer)
        if scenario != before:
            self._record(before, scenario, key, single)

    def _refused(self, pending: dict[str, Any], exc: ScenarioError) -> None:
        self._pending, self._error = pending, exc
        self.errorChanged.emit(exc)
        self.changed.emit()

    def _named(self, scenario: Scenario, renamed: bool, base: Scenario) -> Scenario:
        """An edit keeps a name that follows the scenario following it (a gpt-oss on
        RTX 4090 setup still read "Llama 3.1 8B, LoRA on one H100"); a name the user typed
        stays; an emptied name follows the scenario again."""
        if not scenario.name or (not renamed and is_derived(base)):
            return with_derived_name(scenario)
        return scenario

    def _record(self, before: Scenario, after: Scenario, key: str, single: bool) -> None:
        now = time.monotonic()
        last_key, last_time = self._last_edit
        merge = single and bool(key) and key == last_key and (now - last_time) * 1000 < self.merge_ms
        self._last_edit = (key if single else "", now)
        label = f"Change {self.labels.get(key, key)}" if key else ""
        self.undo_stack.push(SnapshotCommand(self, before, after, key, merge, label))

    def _commit(self, scenario: Scenario, est: Estimate) -> None:
        self._scenario, self._estimate = scenario, est
        had_error, self._error = self._error is not None, None
        if had_error:
            self.errorChanged.emit(None)
        self.scenarioChanged.emit(scenario)
        self.estimateChanged.emit(est)
        self.changed.emit()

    def set_scenario(
        self, scenario: Scenario | dict[str, Any], record: bool = True, label: str = "Load scenario"
    ) -> None:
        """Replace the whole scenario (open, new, undo). Invalid input raises ScenarioError and
        changes nothing; a scenario whose estimate takes longer is shown when it comes (a
        refusal then is said in the status bar)."""
        s = named_new(scenario)
        answer = self.estimator.ask(s, ("replace", s, record, label))
        if answer is None:
            self._replacing = s
            self.notice.emit(f"{ESTIMATING} {plain_name(s)}: it follows when ready.")
            return
        self._replacing = None
        if isinstance(answer, Exception):
            raise refusal(answer)
        self._replace(s, answer, record, label)

    def _replace(self, s: Scenario, est: Estimate, record: bool, label: str) -> None:
        self._timer.stop()
        self._queued, self._pending = {}, {}
        before = self._scenario
        self._last_edit = ("", 0.0)
        self.replaced.emit(record)
        self._commit(s, est)
        if record and s != before:
            self.undo_stack.push(SnapshotCommand(self, before, s, "", False, label))

    def _arrived(self, ticket: tuple[Any, ...], answer: Answer) -> None:
        """A slow estimate's answer (the last one asked for: the estimator drops older ones)."""
        kind, scenario, first, second = ticket[0], ticket[1], ticket[2], ticket[3]
        self._replacing = None
        if kind == "edit":
            self._settle_edit(scenario, first, second, ticket[4], answer)
        elif isinstance(answer, Estimate):
            self._replace(scenario, answer, first, second)
        elif kind == "start":
            self.notice.emit(dropped_note(answer))
        else:
            self.notice.emit(f"Not opened: {refusal(answer)}")

    def wait(self, timeout: float = 120.0) -> bool:
        """Wait for an estimate still to come and show it; True when none is left."""
        return self.estimator.wait(timeout)

    @property
    def latest(self) -> Scenario:
        """The scenario last opened or restored, whether its estimate has come or not."""
        return self._replacing or self._scenario

    @property
    def estimating(self) -> bool:
        """Whether an estimate is still to come (the window shows the previous one)."""
        return self.estimator.pending

    def shutdown(self) -> None:
        """The window closes: an estimate still running is abandoned, not waited for."""
        self.estimator.shutdown()

    def restore(self, scenario: Scenario) -> None:
        """Undo/redo entry point: show a snapshot without recording it."""
        self.set_scenario(scenario, record=False)
