"""The main window: panels on the left, the answer (summary, charts, table) on the right."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent, QShowEvent
from PySide6.QtWidgets import QMainWindow, QMenu, QSplitter

from ..core.errors import ScenarioError
from ..core.model.result import Estimate
from ..core.model.specs import Scenario
from ..core.pipeline.scenario import scenario_dict
from ..core.sizing.option import SizingOption
from ..core.views.settings import HardwareView
from .advisor import Advisor
from .binding import Binder, plain_text
from .elide import elide, labelled
from .error_field import banner_words, reveal
from .files import FileController
from .gc_guard import collect_in_gui_thread
from .hardware.settings import load_noted as load_hardware_view
from .hardware.settings import remember, remembered
from .icon import app_icon
from .menus import build_menus
from .panels import PANELS
from .settings import Prefs
from .shortcuts import WindowShortcuts
from .startup import initial_scenario
from .state import ESTIMATING, ScenarioState
from .widgets import align_captions
from .window_body import LEFT_WIDTH, answer_side, left_column, share_height
from .window_commands import WindowCommands
from .window_session import dropped_paths, restore_geometry, save_geometry

if TYPE_CHECKING:  # the charts load pyqtgraph, which the first frame must not wait for
    from .charts.base import ChartBase

log = logging.getLogger(__name__)
CHART_FALLBACK_MS = 400


class MainWindow(WindowCommands, QMainWindow):
    """One scenario, its estimate, every view of it. ``restore=False`` (screenshots, tests)
    neither reads nor writes the remembered geometry and scenario."""

    recent_menu: QMenu

    def __init__(
        self,
        scenario: Scenario | dict[str, Any] | None = None,
        prefs: Prefs | None = None,
        restore: bool = True,
        defer_charts: bool = False,
    ) -> None:
        super().__init__()
        collect_in_gui_thread()  # workers estimate now: a collection there could free Qt objects
        self._defer_charts = defer_charts
        self._charts_queued = False
        self._shared = False  # the chart/details heights set once (see _share_height)
        self._said_estimating = False  # the status bar says an estimate is to come
        self.setObjectName("main_window")
        dropped, view_note = self._set_up_state(scenario, prefs, restore)
        self._views: dict[type, Any] = {}  # each chart view as last shown (what is remembered)
        self.last_render_ms = 0.0
        self.setWindowIcon(app_icon())
        self.setAcceptDrops(True)
        self._build()
        build_menus(self)
        self.shortcuts = WindowShortcuts(self, listen=not defer_charts)  # else with the charts
        self._connect()
        # The summary drawn once, by _render: reading the calibration or setting the units
        # drew it again each time (~0.01 s of CPU each at start).
        self._read_calibration()
        self.set_units(self.unit)
        self._render(self.state.estimate)
        self._update_title()
        if restore:
            self._restore_geometry()
        for message in (dropped, view_note, *self.dropped_gpus()):
            if message:
                self.notify(message)

    def _set_up_state(
        self, scenario: Scenario | dict[str, Any] | None, prefs: Prefs | None, restore: bool
    ) -> tuple[str, str]:
        """The scenario's state, its files and the advisor; (what the status bar says of the
        first scenario, of the remembered Hardware view)."""
        self.prefs = prefs if prefs is not None else Prefs()
        self.restore = restore
        self.unit = self.prefs.units
        self.fit_models = None  # View > Models That Fit, once opened (gui/fit_models.py)
        first, dropped, remembered_one = initial_scenario(scenario, self.prefs, restore)
        self.state = ScenarioState(first, self, fallback=remembered_one)
        dropped = dropped or self.state.start_note
        self.binder = Binder(self.state)
        self.files = FileController(self.state, self.prefs, self)
        shown, view_note = load_hardware_view(self.prefs)
        self.advisor = Advisor(self, margin=shown.margin)
        self.advisor.set_margin(shown.margin, shown.whole_nodes, shown.cards_per_box)
        self.files.advice = lambda: self.advisor.advice_for(self.state.scenario)
        self.files.prices = lambda: self.hardware_view().prices
        return dropped, view_note

    # -- construction ----------------------------------------------------------------------
    def _build(self) -> None:
        """The panels' column and the answer side by side (gui/window_body.py)."""
        self.panels = [cls(self.binder) for cls in PANELS]
        align_captions([f for p in self.panels for f in p.forms])
        self.left = left_column([panel.box for panel in self.panels])
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("splitter_main")
        self.splitter.addWidget(self.left)
        side = answer_side(self._defer_charts)
        self.summary, self.tabs, self.table, self.figures = side.summary, side.tabs, side.table, side.figures
        self.right_split = side.split
        self.splitter.addWidget(side.widget)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(0, False)
        self.splitter.setSizes([LEFT_WIDTH + 20, 1000])
        self.setCentralWidget(self.splitter)

    def _share_height(self) -> None:
        """The details' and the charts' heights (gui/window_body.py ``share_height``): once,
        until the user drags the handle."""
        share_height(self.table, self.right_split)

    def _splitters(self) -> dict[str, QSplitter]:
        """The splitters whose places are remembered, by their settings key."""
        return {"splitter_main": self.splitter, "splitter_right": self.right_split}

    def _connect(self) -> None:
        self.state.estimateChanged.connect(self._render)
        self.state.errorChanged.connect(self._show_error)
        self.state.notice.connect(self.notify)
        self.state.replaced.connect(self._replaced)
        # Bound methods, not lambdas: Qt drops them when the window is deleted, while a lambda
        # would outlive it and call into a deleted C++ object (abort in the tests).
        self.state.undo_stack.cleanChanged.connect(self._update_title)
        self.state.scenarioChanged.connect(self._update_title)
        self.files.pathChanged.connect(self._update_title)
        self.tabs.failed.connect(lambda msg: self.statusBar().showMessage(msg, 8000))
        self.tabs.created.connect(self._chart_created)
        self.advisor.advised.connect(self._show_advice)
        self.summary.applyRequested.connect(self.apply_layout)

    # -- reacting to the state -------------------------------------------------------------
    def _render(self, est: Estimate) -> None:
        """Every view of a new estimate (the visible chart only; the others when shown)."""
        start = time.perf_counter()
        if self._said_estimating:  # it came (statusBar() would make a bar that was not there)
            self._said_estimating = False
            if self.statusBar().currentMessage().startswith(ESTIMATING):
                self.statusBar().clearMessage()
        scenario, shown = labelled(est.scenario, est)  # names cut before any text layout
        self.summary.set_estimate(shown)
        self.table.set_estimate(shown)
        self.figures.set_estimate(shown)
        self.tabs.update_from(scenario, shown)
        self.last_render_ms = (time.perf_counter() - start) * 1000
        self.summary.set_advice_pending()
        if not self.tabs.deferred:  # else once the first chart is drawn (_start_charts)
            self.advisor.request(est.scenario)

    def _chart_created(self, _key: str, chart: ChartBase) -> None:
        """A new chart starts with its remembered view; its view edits are remembered, and its
        scenario edits (a Hardware row's layout) applied as one undo step."""
        view, problem = remembered(self.prefs, chart.view)
        self._views[type(view)] = view
        chart.set_view(view)
        if problem:
            self.notify(problem)
        chart.viewChanged.connect(self._view_edited)
        chart.editRequested.connect(self.state.edit_many)

    def _view_edited(self, view: Any) -> None:
        problem = remember(self.prefs, view, self._views.get(type(view)))
        self._views[type(view)] = view
        if problem:
            self.notify(problem)
        if isinstance(view, HardwareView):  # the "GPUs needed" line keeps the tab's margin
            self.advisor.set_margin(view.margin, view.whole_nodes, view.cards_per_box)

    def hardware_view(self) -> HardwareView:
        """The Hardware tab's settings and My prices: as shown, or as remembered."""
        view = self._views.get(HardwareView)
        return view if isinstance(view, HardwareView) else remembered(self.prefs, HardwareView()).view

    def _show_advice(self, scenario: Scenario, option: SizingOption | None) -> None:
        if scenario == self.state.scenario:  # advice for an older scenario is dropped
            self.summary.set_advice(labelled(scenario, self.state.estimate)[1], option)

    def apply_layout(self, option: SizingOption | None) -> None:
        """Put the advised option (its techniques, layout, node shape and, serving, requests
        per replica) into the scenario: one undo step."""
        if option:
            self.state.edit_many(option.edits(gpu=False))

    def _replaced(self, loaded: bool) -> None:
        """Undo and Redo take back what the status bar said about the step."""
        if not loaded:
            self.statusBar().clearMessage()

    def _show_error(self, error: ScenarioError | None) -> None:
        self.summary.set_error(error and banner_words(error, self.state.labels), error)
        self.tabs.set_stale(error is not None)
        if error is not None:
            self.statusBar().showMessage(f"Not applied: {error}", 6000)
            reveal(self.binder, error, self)

    def _update_title(self, *_changed: object) -> None:
        s, path = self.state.scenario, self.files.path
        name = plain_text(elide(s.name or s.model.name)).replace("[*]", "[ * ]")
        self.setWindowTitle(f"{name}{f' ({elide(path.name)})' if path else ''}[*] — GPU Sizer")
        self.setWindowModified(self.files.modified)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.tabs.deferred and not self._charts_queued:
            # Charts load pyqtgraph and numpy (~0.25 s): start them once this first frame is
            # on screen, not before it.
            self._charts_queued = True
            QTimer.singleShot(0, self._start_charts)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._shared and (not self.restore or self.prefs.geometry("splitter_right") is None):
            self._shared = True
            QTimer.singleShot(0, self._share_height)
        if self.tabs.deferred:  # in case no paint comes (minimised, covered)
            QTimer.singleShot(CHART_FALLBACK_MS, self._start_charts)

    def _start_charts(self) -> None:
        """The visible chart, then the advice: asked before, the advisor's search (in its
        worker, after its idle delay) ran beside the first chart's drawing and shared the
        GIL with it; asked now, its idle delay has the chart painted first."""
        if self.tabs.deferred:
            self.tabs.start()
            self.shortcuts.listen()
            if self.state.estimate is not None:
                self.advisor.request(self.state.estimate.scenario)

    # -- drag and drop ---------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = dropped_paths(event)
        if paths:
            event.acceptProposedAction()
            self.files.open_any(paths[0])

    # -- remembering -----------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        restore_geometry(self, self.prefs, self._splitters())

    def save_session(self) -> None:
        """Geometry, units and the scenario, for the next start."""
        save_geometry(self, self.prefs, self._splitters())
        self.prefs.units = self.unit
        # A scenario still being estimated (a heavy one opened or restored) is the one to keep:
        # quitting before its estimate came saved the default over it.
        self.prefs.save_last_scenario(scenario_dict(self.state.latest))
        self.prefs.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.may_discard("quitting"):
            event.ignore()
            return
        self.state.shutdown()  # an estimate still running is abandoned, not waited for
        if self.fit_models is not None:
            self.fit_models.shutdown()
        self.advisor.shutdown()
        self.tabs.shutdown()
        self.files.importer.worker.shutdown()  # a model still being read
        if self.fit_models is not None:
            self.fit_models.worker.shutdown()  # a list still being searched
        if self.restore:
            self.save_session()
        super().closeEvent(event)
