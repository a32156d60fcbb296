"""What the menus and the status bar ask of the main window (gui/main_window.py, gui/menus.py
``MenuHost``): units, My calibration, a new scenario, Models That Fit, and the status bar's
messages. A mixin of the window: its state, prefs and views are the window's own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QAction

from .binding import plain_text
from .elide import elide
from .my_calibration import load_mine
from .state import ESTIMATING
from .window_session import left_out_gpus

if TYPE_CHECKING:  # the window's base and the widgets it builds (gui/window_body.py)
    from PySide6.QtWidgets import QMainWindow

    from .breakdown import BreakdownTable, FiguresView
    from .chart_tabs import ChartTabs
    from .files import FileController
    from .panels.base import Panel
    from .settings import Prefs
    from .state import ScenarioState
    from .summary import SummaryHeader

    _Window = QMainWindow
else:
    _Window = object

# How long the status bar shows a notice (ms) and how long a notice may be (characters).
NOTICE_MS = 10000
NOTICE_CHARS = 600


class WindowCommands(_Window):
    """The window's commands; the attributes are set by MainWindow.__init__."""

    prefs: Prefs
    restore: bool
    unit: str
    state: ScenarioState
    files: FileController
    panels: list[Panel]
    summary: SummaryHeader
    table: BreakdownTable
    figures: FiguresView
    tabs: ChartTabs
    fit_models: Any
    _said_estimating: bool

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
        """GiB or GB everywhere (summary, table, figures, charts, panels); remembered."""
        self.unit = unit
        for view in (self.summary, self.table, self.figures, self.tabs):
            view.set_units(unit)
        for panel in self.panels:  # the sizes they write themselves (host RAM, usable memory)
            panel.set_units(unit)
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
        self.statusBar().showMessage(plain_text(elide(message, NOTICE_CHARS)), NOTICE_MS)

    def dropped_gpus(self) -> list[str]:
        """Sentences about user GPUs left out of the list (a damaged "my GPUs" file): the
        entries the core skipped when reading it, and any the dropdown could not show."""
        return left_out_gpus([n for p in self.panels for n in getattr(p, "skipped", [])])
