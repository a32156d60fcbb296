"""The Hardware tab's settings bar: margin, whole servers, ranking, cost basis, electricity
price, and the filters (vendor, class, memory). ``changed(HardwareSettings)`` on every edit."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QWidget,
)

from ...core.sizing.compare import CATEGORIES
from ...core.sizing.search import catalog_specs
from ..widgets import combo, float_spin
from .settings import HardwareSettings

SORT_LABELS = (("cost per token", "cost"), ("speed", "speed"), ("fewest GPUs", "gpus"))
BASIS_LABELS = (("renting", "cloud"), ("owning", "owned"))
CATEGORY_LABELS = {
    "datacenter": "data centre",
    "workstation": "workstation",
    "consumer": "consumer",
    "unified_memory": "unified memory",
}


def _pair(label: str, widget: QWidget, tip: str) -> QWidget:
    """A caption and its field, kept together."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(4)
    caption = QLabel(label)
    caption.setToolTip(tip)
    widget.setToolTip(tip)
    row.addWidget(caption)
    row.addWidget(widget)
    return box


class HardwareControls(QWidget):
    """Two rows of settings above the table (fits a 1280 px window's chart area)."""

    changed = Signal(object)

    def __init__(self, settings: HardwareSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hardware_controls")
        self.settings = settings
        self.margin = float_spin(0, 90, 0, " %")
        self.margin.setObjectName("spin_hardware_margin")
        self.whole = QCheckBox("Whole servers")
        self.whole.setObjectName("check_whole_nodes")
        self.whole.setToolTip(
            "Round each count up to whole servers (gpus_per_node: a B200 "
            "comes 8 to an HGX server); spare GPUs become replicas"
        )
        self.sort = combo(SORT_LABELS)
        self.basis = combo(BASIS_LABELS)
        self.power = float_spin(0, 10, 3, " $/kWh")
        vendors = sorted({s.vendor for s in catalog_specs().values()}, key=str.lower)
        self.vendor = combo([("all", ""), *((v, v) for v in vendors)])
        self.category = combo([("all", ""), *((CATEGORY_LABELS.get(c, c), c) for c in CATEGORIES)])
        self.memory = float_spin(0, 10_000, 0, " GB", special="any")
        for name, w in (
            ("combo_hardware_sort", self.sort),
            ("combo_cost_basis", self.basis),
            ("spin_electricity", self.power),
            ("combo_vendor", self.vendor),
            ("combo_category", self.category),
            ("spin_min_memory", self.memory),
        ):
            w.setObjectName(name)
            if hasattr(w, "setMinimumContentsLength"):
                w.setMinimumContentsLength(8)
        self._layout()
        self.set_settings(settings)
        for sig in (
            self.margin.valueChanged,
            self.whole.toggled,
            self.sort.currentIndexChanged,
            self.basis.currentIndexChanged,
            self.power.valueChanged,
            self.vendor.currentIndexChanged,
            self.category.currentIndexChanged,
            self.memory.valueChanged,
        ):
            sig.connect(self._edited)

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 4, 6, 2)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(4)
        first = [
            _pair(
                "Spare memory",
                self.margin,
                'Share of each GPU\'s usable memory kept free (the "GPUs needed" line uses the same margin)',
            ),
            self.whole,
            _pair("Rank by", self.sort, "Order of the # column (click a header to sort by it)"),
            _pair(
                "Cost when",
                self.basis,
                "Renting: the cloud's on-demand price. Owning: the "
                "list price over 5 years of use, plus electricity",
            ),
        ]
        second = [
            _pair("Vendor", self.vendor, "Show one vendor's GPUs"),
            _pair("Class", self.category, "Data centre, workstation, consumer or unified-memory machines"),
            _pair("Memory ≥", self.memory, "Memory as sold, at least"),
            _pair("Electricity", self.power, "Price of electricity (energy costs; owning)"),
        ]
        for row, items in enumerate((first, second)):
            for col, w in enumerate(items):
                grid.addWidget(w, row, col)
        grid.setColumnStretch(len(second), 1)

    def set_settings(self, s: HardwareSettings) -> None:
        """Show ``s`` without emitting ``changed``."""
        self.settings = s
        widgets: list[QWidget] = [
            self.margin,
            self.whole,
            self.power,
            self.memory,
            self.sort,
            self.basis,
            self.vendor,
            self.category,
        ]
        blocked = [w.blockSignals(True) for w in widgets]
        self.margin.setValue(round(s.margin * 100))
        self.whole.setChecked(s.whole_nodes)
        self.power.setValue(s.electricity_usd_per_kwh)
        self.memory.setValue(s.min_memory_gb)
        for box, data in (
            (self.sort, s.sort),
            (self.basis, s.basis),
            (self.vendor, s.vendor),
            (self.category, s.category),
        ):
            box.setCurrentIndex(max(0, box.findData(data)))
        for w, was in zip(widgets, blocked, strict=True):
            w.blockSignals(was)

    def _edited(self, *_args: Any) -> None:
        self.settings = replace(
            self.settings,
            margin=self.margin.value() / 100,
            whole_nodes=self.whole.isChecked(),
            sort=self.sort.currentData(),
            basis=self.basis.currentData(),
            electricity_usd_per_kwh=self.power.value(),
            vendor=self.vendor.currentData(),
            category=self.category.currentData(),
            min_memory_gb=self.memory.value(),
        )
        self.changed.emit(self.settings)


class ControlsStrip(QScrollArea):
    """The settings bar in a strip that scrolls sideways when the window is narrower than
    the bar (it never widens the window), as tall as the bar plus the scroll bar if shown."""

    def __init__(self, controls: HardwareControls, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("strip_hardware_controls")
        self.setWidget(controls)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._fit()

    def _fit(self) -> None:
        bar = self.horizontalScrollBar().sizeHint().height()
        inner = self.widget()
        narrow = inner is not None and self.viewport().width() < inner.minimumSizeHint().width()
        height = (inner.sizeHint().height() if inner is not None else 0) + (bar if narrow else 0)
        self.setFixedHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()
