"""View > Models That Fit: the models that run on the scenario's machine (its GPU, layout,
workload, framework and precision; core/sizing/fit_models.py), largest first. Double-click a
row to load that model (one undo step). The list follows the scenario while the window is
open: the search takes 22-54 ms (benchmarks/bench_fit_models.py), but seconds for a heavy
scenario (a serving load of 300,000 requests: 8-35 s, rerun at each edit, froze the window),
so it runs in a background worker (gui/worker.py), once editing pauses; an answer within
:data:`WAIT_S` is shown at once, a slower one when it comes."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from ..core.cancel import CancelToken
from ..core.model.presets import scenario_gpu
from ..core.model.specs import Scenario
from ..core.registry.dtypes import DTYPES
from ..io.units import fmt_bytes
from ..io.wording import duration
from .advisor import scenario_key
from .state import ScenarioState
from .worker import NOT_YET, BackgroundWorker

IDLE_MS = 150
WAIT_S = 0.2  # s the GUI thread waits for the list before it says "searching"
HEAD = ("Model", "Parameters", "Needs per GPU", "Spare per GPU", "Speed", "Longest context", "System RAM")


def _speed(row: dict[str, Any]) -> str:
    if row["tokens_per_second_per_user"] is not None:
        return f"{row['tokens_per_second_per_user']:,.1f} tokens/s per user"
    if row["time_seconds"] is not None:
        return duration(row["time_seconds"])
    return ""


def _search(scenario: Scenario, _token: CancelToken) -> list[dict[str, Any]]:
    """In the worker thread: the models that fit (core/sizing/fit_models.py)."""
    from ..core.sizing.fit_models import models_that_fit

    return models_that_fit(scenario)


def cells(row: dict[str, Any], unit: str) -> list[str]:
    """One model's cells, as the table shows them."""
    host = row["host_memory_bytes"]
    return [
        row["name"] or row["model"],
        f"{row['parameters'] / 1e9:,.1f} B",
        fmt_bytes(row["per_gpu_total"], unit),
        fmt_bytes(row["headroom_bytes"], unit),
        _speed(row),
        f"{row['max_context']:,} tokens",
        fmt_bytes(host, unit) if host else "",
    ]


class FitModelsDialog(QDialog):
    """The list; ``rows`` are the models shown (``models_that_fit``'s dicts)."""

    def __init__(self, state: ScenarioState, parent: QWidget | None = None, unit: str = "GiB") -> None:
        super().__init__(parent)
        self.setObjectName("dialog_fit_models")
        self.setWindowTitle("Models That Fit This Machine")
        self.state, self.unit = state, unit
        self.rows: list[dict[str, Any]] = []
        self._blocks: dict[str, dict[str, Any]] = {}  # model -> the block that loads it
        lay = QVBoxLayout(self)
        self.heading = QLabel()
        self.heading.setObjectName("label_fit_models")
        self.heading.setWordWrap(True)
        self.table = QTableWidget(0, len(HEAD))
        self.table.setObjectName("table_fit_models")
        self.table.setHorizontalHeaderLabels(list(HEAD))
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        self.table.setToolTip("Double-click a model to load it into the scenario")
        self.table.cellDoubleClicked.connect(lambda r, _c: self.load(r))
        lay.addWidget(self.heading)
        lay.addWidget(self.table, 1)
        self.resize(1060, 560)
        self._timer = QTimer(self, singleShot=True, interval=IDLE_MS)
        self._timer.timeout.connect(self.refresh)
        self.worker = BackgroundWorker(
            _search, self, delay_ms=0, cache_size=8, name="gpusizer-fit-models", daemon=True
        )
        self.worker.finished.connect(self._found)
        self.worker.failed.connect(self._found)
        self._asked: tuple[str, Scenario] | None = None
        state.scenarioChanged.connect(self._changed)

    def _changed(self, _scenario: Scenario) -> None:
        if self.isVisible():
            self._timer.start()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        """Search again for the scenario now, in the worker (shown at once when it answers
        within :data:`WAIT_S`, else when it comes)."""
        s = self.state.scenario
        key = scenario_key(s)
        self._asked = (key, s)
        rows = self.worker.run_wait(key, s, WAIT_S)
        if rows is NOT_YET:
            self.heading.setText("Searching the models that fit this machine…")
            return
        self._found(key, rows)

    def _found(self, key: str, rows: Any) -> None:
        if self._asked is None or key != self._asked[0]:
            return  # an older scenario's list
        s, self._asked = self._asked[1], None
        if isinstance(rows, list):
            self.rows = rows
            self.heading.setText(self._heading(s))
        else:  # a ScenarioError (run_wait) or its message (failed)
            self.rows = []
            self.heading.setText(f"No list: {rows}")
        self._blocks = {r["model"]: self._block(r, s) for r in self.rows}
        self._fill()

    def wait(self, timeout: float = 120.0) -> bool:
        """Wait for the list still to come and show it; True when none is left (tests)."""
        if self._asked is not None:
            self.worker.wait(timeout)
        return self._asked is None

    def shutdown(self) -> None:
        """The window closes: a search still running is abandoned, not waited for."""
        self._timer.stop()
        self._asked = None
        self.worker.shutdown(wait=False)

    def _heading(self, s: Scenario) -> str:
        gpu = scenario_gpu(s).name
        weights = DTYPES[s.precision.weights].label
        return (
            f"{len(self.rows)} models fit {s.parallelism.gpus:,} × {gpu} for "
            f"{s.workload.info.label.lower()} with {s.profile.label} and {weights} weights, "
            "10% of memory kept spare. Double-click one to load it."
        )

    @staticmethod
    def _block(row: dict[str, Any], s: Scenario) -> dict[str, Any]:
        if s.model.preset is None and row["model"] == (s.model.name or "imported model"):
            return s.model.model_dump(mode="json")
        return {"preset": row["model"]}

    def _fill(self) -> None:
        self.table.setRowCount(len(self.rows))
        for i, row in enumerate(self.rows):
            for j, text in enumerate(cells(row, self.unit)):
                item = QTableWidgetItem(text)
                if j:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()

    def load(self, index: int) -> None:
        """Put row ``index``'s model into the scenario (one undo step)."""
        if 0 <= index < len(self.rows):
            self.state.edit("model", self._blocks[self.rows[index]["model"]], immediate=True)

    def set_units(self, unit: str) -> None:
        self.unit = unit
        self._fill()
