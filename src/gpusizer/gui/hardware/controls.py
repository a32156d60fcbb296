"""The Hardware tab's settings bar: margin, whole servers, cards per box, ranking, cost basis,
electricity price, owning's years, share of hours in use and used prices, the filters (vendor,
class, memory) and "My prices…" (the user's own
prices, gui/hardware/prices_dialog.py). ``changed(HardwareView)`` on every edit,
``pricesRequested()`` when "My prices…" is pressed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QWidget,
)

from ...core.sizing.compare import CATEGORIES
from ...core.sizing.search import catalog_specs
from ...core.views.settings import HardwareView
from ..widgets import combo, float_spin

SORT_LABELS = (
    ("cost per token", "cost"),
    ("speed", "speed"),
    ("fewest GPUs", "gpus"),
    ("cost, slow edge of band", "cost_band"),  # the evidence band's pessimistic edge
    ("speed, slow edge of band", "speed_band"),
    ("cost per hour", "hour"),  # a service's bill for a fixed number of users
)
BAND_VALUE = -1  # the margin spin's "band" (its special value, at its minimum)
BASIS_LABELS = (("renting", "cloud"), ("owning", "owned"), ("marketplace", "marketplace"))
BOX_LABELS = (("fewest", None), ("1", 1), ("2", 2), ("4", 4))
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
    pricesRequested = Signal()

    def __init__(self, settings: HardwareView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("hardware_controls")
        self.settings = settings
        self._make_count_controls()
        self._make_cost_controls()
        self._make_filters()
        self._make_price_widgets()
        self._name_controls()
        self._layout()
        self.set_settings(settings)
        for sig in (
            self.margin.valueChanged,
            self.whole.toggled,
            self.sort.currentIndexChanged,
            self.basis.currentIndexChanged,
            self.power.valueChanged,
            self.years.valueChanged,
            self.utilization.valueChanged,
            self.used.toggled,
            self.vendor.currentIndexChanged,
            self.category.currentIndexChanged,
            self.memory.valueChanged,
            self.box.currentIndexChanged,
        ):
            sig.connect(self._edited)

    def _make_count_controls(self) -> None:
        """The margin, whole servers and the sort order."""
        # below 0 %: "band", room for the evidence band's upper edge (core/sizing/band_margin.py)
        self.margin = float_spin(BAND_VALUE, 90, 0, " %", special="band")
        self.margin.setObjectName("spin_hardware_margin")
        self.whole = QCheckBox("Whole servers")
        self.whole.setObjectName("check_whole_nodes")
        self.whole.setToolTip(
            "Round each count up to whole servers (gpus_per_node: a B200 "
            "comes 8 to an HGX server); spare GPUs become replicas"
        )
        self.sort = combo(SORT_LABELS)

    def _make_cost_controls(self) -> None:
        """The price basis and what owning costs: electricity, years, utilization, used prices."""
        self.basis = combo(BASIS_LABELS)
        self.power = float_spin(0, 10, 3, " $/kWh")
        # owning: the years a purchase is spread over, the share of hours it works, used prices
        self.years = float_spin(0.1, 30, 1, " years")
        self.utilization = float_spin(1, 100, 0, " %")
        self.used = QCheckBox("Used prices")
        self.used.setObjectName("check_used_prices")
        self.used.setToolTip(
            "Owning: count used (resale) purchase prices too. Off: new prices only; a GPU priced "
            "only used is ranked after the priced, saying so"
        )

    def _make_filters(self) -> None:
        """The filters: vendor, category, memory at least, cards per box."""
        vendors = sorted({s.vendor for s in catalog_specs().values()}, key=str.lower)
        self.vendor = combo([("all", ""), *((v, v) for v in vendors)])
        self.category = combo([("all", ""), *((CATEGORY_LABELS.get(c, c), c) for c in CATEGORIES)])
        self.memory = float_spin(0, 10_000, 0, " GB", special="any")
        self.box = combo(BOX_LABELS)

    def _make_price_widgets(self) -> None:
        """My prices and the note on the price basis."""
        self.my_prices = QPushButton("My prices…")
        self.my_prices.setObjectName("button_my_prices")
        self.my_prices.setToolTip(
            "Your own purchase and rental prices of any GPU or system (quotes); they replace the "
            "catalog's, are saved with your settings and marked as yours in the table"
        )
        self.my_prices.clicked.connect(self.pricesRequested)
        self.basis_note = QLabel()
        self.basis_note.setObjectName("label_price_basis")
        self.basis_note.setToolTip(
            "Renting: on-demand list prices of provider-operated clouds (RunPod Secure Cloud where "
            "listed, else the named provider). Marketplace: community or spot. Owning: 2025-26 street "
            "prices of whole systems. Hover a price in the table for its source and date."
        )

    def _name_controls(self) -> None:
        """Each control's object name (tests and screenshots find them by it) and width."""
        for name, w in (
            ("combo_hardware_sort", self.sort),
            ("combo_cost_basis", self.basis),
            ("spin_electricity", self.power),
            ("spin_amortization_years", self.years),
            ("spin_utilization", self.utilization),
            ("combo_vendor", self.vendor),
            ("combo_category", self.category),
            ("spin_min_memory", self.memory),
            ("combo_cards_per_box", self.box),
        ):
            w.setObjectName(name)
            if hasattr(w, "setMinimumContentsLength"):
                w.setMinimumContentsLength(8)

    def _layout(self) -> None:
        grid = QGridLayout(self)
        grid.setContentsMargins(6, 4, 6, 2)
        grid.setHorizontalSpacing(14)
        grid.setVerticalSpacing(4)
        first = [
            _pair(
                "Spare memory",
                self.margin,
                'Share of each GPU\'s usable memory kept free (the "GPUs needed" line uses the same margin); '
                "below 0 %, band: room for the upper edge of the evidence band of runs like this",
            ),
            self.whole,
            _pair("Rank by", self.sort, "Order of the # column (click a header to sort by it)"),
            _pair(
                "Cost when",
                self.basis,
                "Renting: the on-demand list price of provider-operated clouds (RunPod Secure Cloud "
                "where listed, else the named provider), per GPU-hour, dated. Owning: the 2025-26 "
                "street price of the whole system over the years and the share of hours in use set "
                "below, plus electricity at its system power. Marketplace: community or spot rates "
                "(RunPod Community, Vast.ai, Akash)",
            ),
        ]
        second = [
            _pair("Vendor", self.vendor, "Show one vendor's GPUs"),
            _pair("Class", self.category, "Data centre, workstation, consumer or unified-memory machines"),
            _pair("Memory ≥", self.memory, "Memory as sold, at least"),
            _pair("Electricity", self.power, "Price of electricity (energy costs; owning)"),
        ]
        third = [
            _pair(
                "Cards per box",
                self.box,
                "Cards sold alone (consumer, workstation, PCIe) in one box: 1, 2 or 4, "
                "or the fewest boxes that hold them",
            ),
            self.my_prices,
        ]
        fourth = [
            _pair("Owned for", self.years, "Owning: years the purchase is spread over (default 5)"),
            _pair(
                "In use",
                self.utilization,
                "Owning: share of the hours the machine works (100% = round the clock, as a cloud bills)",
            ),
            self.used,
        ]
        for row, items in enumerate((first, second, third, fourth)):
            for col, w in enumerate(items):
                grid.addWidget(w, row, col)
        grid.addWidget(self.basis_note, 2, len(third), 1, len(first) - len(third))
        grid.setColumnStretch(len(first), 1)

    def set_settings(self, s: HardwareView) -> None:
        """Show ``s`` without emitting ``changed``."""
        self.settings = s
        widgets: list[QWidget] = [
            self.margin,
            self.whole,
            self.power,
            self.years,
            self.utilization,
            self.used,
            self.memory,
            self.sort,
            self.basis,
            self.vendor,
            self.category,
            self.box,
        ]
        blocked = [w.blockSignals(True) for w in widgets]
        self.margin.setValue(BAND_VALUE if s.margin == "band" else round(float(s.margin) * 100))
        self.whole.setChecked(s.whole_nodes)
        self.power.setValue(s.electricity_usd_per_kwh)
        self.years.setValue(s.amortization_years)
        self.utilization.setValue(round(s.utilization * 100))
        self.used.setChecked(s.used_prices)
        self.memory.setValue(s.min_memory_gb)
        for box, data in (
            (self.sort, s.sort),
            (self.basis, s.basis),
            (self.vendor, s.vendor),
            (self.category, s.category),
            (self.box, s.cards_per_box),
        ):
            box.setCurrentIndex(max(0, box.findData(data)))
        for w, was in zip(widgets, blocked, strict=True):
            w.blockSignals(was)
        mine = len(s.prices)
        self.basis_note.setText("Prices 2025-26, dated (hover)" + (f" · {mine} of yours" if mine else ""))

    def _edited(self, *_args: Any) -> None:
        self.settings = replace(
            self.settings,
            margin="band" if self.margin.value() <= BAND_VALUE else self.margin.value() / 100,
            whole_nodes=self.whole.isChecked(),
            sort=self.sort.currentData(),
            basis=self.basis.currentData(),
            electricity_usd_per_kwh=self.power.value(),
            amortization_years=self.years.value(),
            utilization=self.utilization.value() / 100,
            used_prices=self.used.isChecked(),
            vendor=self.vendor.currentData(),
            category=self.category.currentData(),
            min_memory_gb=self.memory.value(),
            cards_per_box=self.box.currentData(),
        )
        self.changed.emit(self.settings)
