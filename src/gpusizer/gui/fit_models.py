"""View > Models That Fit: the models that run on the scenario's machine (its GPU, layout,
workload, framework and precision; core/sizing/fit_models.py), largest first. Double-click a
row to load that model (one undo step). The list follows the scenario while the window is
open: the search takes about 30 ms (300 ms at most), once editing pauses, in the window's
background worker (gui/worker.py), so that the window never waits on it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from ..core.cancel import CancelToken
from ..core.errors import ScenarioError
from ..core.model.presets import scenario_gpu
from ..core.model.specs import Scenario
from ..core.registry.dtypes import DTYPES
from ..io.units import fmt_bytes
from ..io.wording import duration
from .advisor import scenario_key
from .state import ScenarioState
from .worker import BackgroundWorker

IDLE_MS = 150
MAX_CACHED = 16  # machines remembered (going back to a recent one answers at once)


def _models(scenario: Scenario, _token: CancelToken) -> list[dict[str, Any]]:
    """In the worker thread: the models that fit (core/sizing/fit_models.py)."""
    from ..core.sizing.fit_models import models_that_fit

    return models_that_fit(scenario)


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
        self._asked: Scenario | None = None  # the scenario of the last request
        self.worker = BackgroundWorker(
            _models, self, delay_ms=IDLE_MS, cache_size=MAX_CACHED, name="gpusizer-fit-models"
        )
        self.worker.finished.connect(lambda key, rows: self._show(key, rows, ""))
        self.worker.failed.connect(lambda key, msg: self._show(key, [], msg))
        state.scenarioChanged.connect(self._changed)

    def _changed(self, _scenario: Scenario) -> None:
        if self.isVisible():
            self.request()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self.request()

    def request(self) -> None:
        """Search again for the scenario, in the background once editing pauses (at once
        when it was searched lately)."""
        self._asked = s = self.state.scenario
        self.worker.request(scenario_key(s), s)

    def refresh(self) -> None:
        """Search again for the scenario now, on this thread (scripts and screenshots)."""
        self._asked = s = self.state.scenario
        try:
            rows, error = self.worker.run_now(scenario_key(s), s), ""
        except ScenarioError as exc:
            rows, error = [], str(exc)
        self._show(scenario_key(s), rows, error)

    def _show(self, key: str, rows: list[dict[str, Any]], error: str) -> None:
        s = self._asked
        if s is None or key != scenario_key(s):
            return  # an older scenario's list
        self.rows = rows
        self.heading.setText(f"No list: {error}" if error else self._heading(s))
        self._blocks = {r["model"]: self._block(r, s) for r in self.rows}
        self._fill()

    def wait(self, timeout: float = 30.0) -> bool:
        """Wait for the list of the scenario last asked (tests, screenshots)."""
        return self.worker.wait(timeout)

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
