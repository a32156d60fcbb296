"""View > Models That Fit: the models that run on the scenario's machine (its GPU, layout,
workload, framework and precision; core/sizing/fit_models.py), largest first. Double-click a
row to load that model (one undo step). The list follows the scenario while the window is
open: the search takes about 30 ms (300 ms at most), once editing pauses."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from ..core.errors import ScenarioError
from ..core.model.presets import scenario_gpu
from ..core.model.specs import Scenario
from ..core.registry.dtypes import DTYPES
from ..io.units import fmt_bytes
from ..io.wording import duration
from .state import ScenarioState

IDLE_MS = 150
HEAD = ("Model", "Parameters", "Needs per GPU", "Spare per GPU", "Speed", "Longest context", "System RAM")


def _speed(row: dict[str, Any]) -> str:
    if row["tokens_per_second_per_user"] is not None:
        return f"{row['tokens_per_second_per_user']:,.1f} tokens/s per user"
    if row["time_seconds"] is not None:
        return duration(row["time_seconds"])
    return ""


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
        state.scenarioChanged.connect(self._changed)

    def _changed(self, _scenario: Scenario) -> None:
        if self.isVisible():
            self._timer.start()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.refresh()

    def refresh(self) -> None:
        """Search again for the scenario now (about 30 ms: on this thread)."""
        from ..core.sizing.fit_models import models_that_fit

        s = self.state.scenario
        try:
            self.rows = models_that_fit(s)
        except ScenarioError as exc:
            self.rows = []
            self.heading.setText(f"No list: {exc}")
        else:
            self.heading.setText(self._heading(s))
        self._blocks = {r["model"]: self._block(r, s) for r in self.rows}
        self._fill()

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
