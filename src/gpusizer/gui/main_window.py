"""The main window: panels on the left, the answer (summary, charts, table) on the right."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent, QShowEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMainWindow,
    QMenu,
    QScrollArea,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import ScenarioError
from ..core.model.result import Estimate
from ..core.model.specs import Scenario
from ..core.pipeline.scenario import scenario_dict
from ..core.sizing.option import SizingOption
from ..core.views.settings import HardwareView
from .advisor import Advisor
from .binding import Binder, plain_text
from .breakdown import BreakdownTable, FiguresView
from .chart_tabs import ChartTabs
from .elide import elide, labelled
from .files import FileController
from .gc_guard import collect_in_gui_thread
from .hardware.settings import load_noted as load_hardware_view
from .hardware.settings import remember, remembered
from .icon import app_icon
from .menus import build_menus
from .model_import import is_model_path
from .my_calibration import load_mine
from .panels import PANELS
from .settings import Prefs
from .shortcuts import WindowShortcuts
from .startup import initial_scenario
from .state import ESTIMATING, ScenarioState
from .style import set_role
from .summary import SummaryHeader
from .widgets import align_captions

if TYPE_CHECKING:  # the charts load pyqtgraph, which the first frame must not wait for
    from .charts.base import ChartBase

log = logging.getLogger(__name__)
LEFT_WIDTH = 430
CHART_FALLBACK_MS = 400


class MainWindow(QMainWindow):
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
        self.prefs = prefs if prefs is not None else Prefs()
        self.restore = restore
        self.unit = self.prefs.units
        self.fit_models: Any = None  # View > Models That Fit, once opened (gui/fit_models.py)
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

    # -- construction ----------------------------------------------------------------------
    def _build(self) -> None:
        self.panels = [cls(self.binder) for cls in PANELS]
        align_captions([f for p in self.panels for f in p.forms])
        column = QWidget()
        column.setObjectName("left_column")
        lay = QVBoxLayout(column)
        lay.setContentsMargins(10, 6, 10, 10)
        lay.setSpacing(8)
        for panel in self.panels:
            lay.addWidget(panel.box)
        lay.addStretch(1)
        self.left = QScrollArea()
        self.left.setObjectName("left_scroll")
        self.left.setWidgetResizable(True)
        self.left.setFrameShape(QFrame.Shape.NoFrame)
        self.left.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.left.setWidget(column)
        # A click on blank space or a caption would give the scroll area the focus, and the next
        # Tab would then start again at the form's first field (scrolling to the top); the field
        # that had the focus keeps it instead. The wheel still scrolls the area.
        self.left.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.left.setMinimumWidth(LEFT_WIDTH)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("splitter_main")
        self.splitter.addWidget(self.left)
        self.splitter.addWidget(self._build_right())
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(0, False)
        self.splitter.setSizes([LEFT_WIDTH + 20, 1000])
        self.setCentralWidget(self.splitter)

    def _build_right(self) -> QWidget:
        right = QWidget()
        lay = QVBoxLayout(right)
        lay.setContentsMargins(6, 8, 10, 8)
        lay.setSpacing(8)
        self.summary = SummaryHeader()
        lay.addWidget(self.summary)
        self.tabs = ChartTabs(deferred=self._defer_charts, background=True)
        self.table = BreakdownTable()
        self.figures = FiguresView()
        details = QFrame()
        details.setObjectName("details")
        set_role(details, "card")
        row = QHBoxLayout(details)
        row.setContentsMargins(4, 4, 4, 4)
        row.addWidget(self.table, 3)
        row.addWidget(self.figures, 2)
        # Five rows at least (it scrolls): at 1280 x 720 the chart needs the height more.
        self.table.setMinimumHeight(self.table.verticalHeader().defaultSectionSize() * 5 + 4)
        self.right_split = QSplitter(Qt.Orientation.Vertical)
        self.right_split.setObjectName("splitter_right")
        self.right_split.addWidget(self.tabs)
        self.right_split.addWidget(details)
        self.right_split.setStretchFactor(0, 1)
        self.right_split.setStretchFactor(1, 0)
        self.right_split.setCollapsible(0, False)
        lay.addWidget(self.right_split, 1)
        return right

    def _share_height(self) -> None:
        """Nine rows of details where the charts keep 420 px, fewer (five at least) on a
        small screen (1280 x 720): the chart first. Once, until the user drags the handle."""
        row = self.table.verticalHeader().defaultSectionSize()
        total = sum(self.right_split.sizes())
        details = max(row * 5 + 4, min(row * 10 + 8, total - 420))
        self.right_split.setSizes([max(total - details, 1), details])

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
        self.summary.set_error(error)
        self.tabs.set_stale(error is not None)
        if error is not None:
            self.statusBar().showMessage(f"Not applied: {error}", 6000)

    def _update_title(self, *_changed: object) -> None:
        s, path = self.state.scenario, self.files.path
        name = plain_text(elide(s.name or s.model.name)).replace("[*]", "[ * ]")
        self.setWindowTitle(f"{name}{f' ({elide(path.name)})' if path else ''}[*] — GPU Sizer")
        self.setWindowModified(self.files.modified)

    # -- commands --------------------------------------------------------------------------
    def reload_calibration(self) -> None:
        """Read My calibration again (gui/my_calibration.py); a malformed file: a message."""
        self._read_calibration()
        if self.state.estimate is not None:
            self.summary.set_estimate(self.state.estimate)

    def _read_calibration(self) -> None:
        self.summary.calibrations, problem = load_mine(self.prefs)
        if problem:
            self.notify(problem)

    def set_units(self, unit: str) -> None:
        """GiB or GB everywhere (summary, table, figures, charts); remembered."""
        self.unit = unit
        for view in (self.summary, self.table, self.figures, self.tabs):
            view.set_units(unit)
        if self.fit_models is not None:
            self.fit_models.set_units(unit)
        for act in self.findChildren(QAction):
            if act.objectName() == f"action_units_{unit.lower()}":
                act.setChecked(True)
        if self.restore:
            self.prefs.units = unit

    def new_scenario(self) -> bool:
        return self.files.new()

    def show_fit_models(self) -> None:
        """View > Models That Fit This Machine (gui/fit_models.py), one window, kept."""
        from .fit_models import FitModelsDialog

        if self.fit_models is None:
            self.fit_models = FitModelsDialog(self.state, self, self.unit)
        self.fit_models.show()
        self.fit_models.raise_()

    def notify(self, message: str) -> None:
        self._said_estimating = message.startswith(ESTIMATING)
        self.statusBar().showMessage(plain_text(elide(message, 600)), 10000)

    def dropped_gpus(self) -> list[str]:
        """Sentences about user GPUs left out of the list (a damaged "my GPUs" file): the
        entries the core skipped when reading it, and any the dropdown could not show."""
        from ..core.model.presets import user_gpu_problems

        names = [n for p in self.panels for n in getattr(p, "skipped", [])]
        return user_gpu_problems() + (
            [f"Left out of the GPU list, unreadable in the user-GPU file: {', '.join(names)}"]
            if names
            else []
        )

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
    @staticmethod
    def _dropped(event: QDragEnterEvent | QDropEvent) -> list[Path]:
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        return [
            Path(u.toLocalFile())
            for u in urls
            if u.isLocalFile()
            and (
                u.toLocalFile().lower().endswith((".json", ".gguf", ".safetensors"))
                or is_model_path(u.toLocalFile())
            )
        ]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = self._dropped(event)
        if paths:
            event.acceptProposedAction()
            self.files.open_any(paths[0])

    # -- remembering -----------------------------------------------------------------------
    def _restore_geometry(self) -> None:
        geometry = self.prefs.geometry("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            screen = self.screen().availableGeometry()  # a first start: fit the screen
            self.resize(min(1440, int(screen.width() * 0.95)), min(900, int(screen.height() * 0.92)))
        for key, splitter in (("splitter_main", self.splitter), ("splitter_right", self.right_split)):
            value = self.prefs.geometry(key)
            if value is not None:
                splitter.restoreState(value)

    def save_session(self) -> None:
        """Geometry, units and the scenario, for the next start."""
        self.prefs.set_geometry("geometry", self.saveGeometry())
        self.prefs.set_geometry("splitter_main", self.splitter.saveState())
        self.prefs.set_geometry("splitter_right", self.right_split.saveState())
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
