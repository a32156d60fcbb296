""" "My prices": the purchase and rental price of any GPU or system, the user's own
quotes beside the catalog's (with its basis, source and date in each cell's tooltip). Saved by
the Hardware tab to the user's prices file (io/user_prices.py); a bad value is named under the
table and nothing is saved."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import ScenarioError
from ...core.model.presets import system_presets
from ...core.model.specs import Scenario
from ...core.sizing.prices import META_KEYS, PRICE_KEYS, check_prices
from ...core.sizing.search import catalog_specs
from .. import colors

# (header, key, editable)
COLUMNS = (
    ("Kind", "kind", False),
    ("Name", "name", False),
    ("Catalog purchase $", "catalog:list_price_usd", False),
    ("Catalog $/h", "catalog:price_per_hour", False),
    ("Your purchase $", "list_price_usd", True),
    ("Your $/h", "price_per_hour", True),
    ("Your market $/h", "price_per_hour_marketplace", True),
    ("Date", "date", True),
    ("Source (your quote)", "source", True),
)
ID_ROLE = Qt.ItemDataRole.UserRole
NAME_PX = 280


@dataclass(frozen=True)
class Row:
    """One priced item: a GPU (prices per GPU) or a system (prices per system)."""

    id: str
    kind: str
    name: str
    catalog: dict[str, Any]  # the catalog's prices and their provenance


def _usd(value: float | None) -> str:
    return "" if value is None else (f"{value:,.2f}" if value < 100 else f"{value:,.0f}")


def rows(scenario: Scenario | None) -> list[Row]:
    """Every GPU (catalog, user's, the scenario's inline one) and every catalog system."""
    out = []
    hw = scenario.hardware if scenario is not None else None
    for gid, spec in catalog_specs(hw).items():
        out.append(Row(gid, "GPU", spec.name, spec.model_dump()))
    for sid, sys in system_presets().items():
        out.append(Row(sid, "System", sys.name, sys.model_dump()))
    return out


def _tip(row: Row, key: str) -> str:
    """Basis, provider, source and date of a catalog price, or why there is none."""
    c = row.catalog
    stem = key.replace("_usd", "")
    if c.get(key) is None:
        return str(c.get(f"{stem}_null_reason") or "No catalog price")
    per = "per GPU" if row.kind == "GPU" else "per system"
    parts = [
        f"{c.get(f'{stem}_basis') or ''} ({per})".strip(),
        str(c.get("price_per_hour_provider") or "") if stem == "price_per_hour" else "",
        f"{c.get(f'{stem}_date') or 'undated'}: {c.get(f'{stem}_source') or 'no source'}",
    ]
    return "\n".join(p for p in parts if p)


def parse_cell(key: str, text: str) -> Any:
    """A cell's value: a price in USD ("$1,250", "1250"), or text; None when empty.
    ValueError names what is wrong."""
    text = text.strip()
    if not text:
        return None
    if key in META_KEYS:
        return text
    number = float(text.replace(",", "").lstrip("$"))
    if number < 0 or not math.isfinite(number):
        raise ValueError("must be a number of USD >= 0")
    return number


class PricesDialog(QDialog):
    """Edit the user's prices; ``prices`` holds them once accepted."""

    def __init__(
        self, prices: dict[str, dict[str, Any]], scenario: Scenario | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("dialog_my_prices")
        self.setWindowTitle("My prices")
        self.prices = {g: dict(e) for g, e in prices.items()}
        self.rows = rows(scenario)
        self.filter = QLineEdit()
        self.filter.setObjectName("edit_prices_filter")
        self.filter.setPlaceholderText("Filter by name or id")
        self.filter.textChanged.connect(self._filter)
        self.table = self._table()
        self.error = QLabel("")
        self.error.setObjectName("label_prices_error")
        self.error.setStyleSheet(f"color: {colors.BAD}")
        self.error.setWordWrap(True)
        note = QLabel(
            "Purchase: the 2025-26 street price (per GPU, or per system for a system). Rental: "
            "on-demand, per GPU-hour or system-hour. Leave a cell empty to use the catalog's; "
            "hover over a catalog price for its basis, source and date."
        )
        note.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.Reset
        )
        buttons.button(QDialogButtonBox.StandardButton.Reset).setText("Clear all")
        buttons.button(QDialogButtonBox.StandardButton.Reset).clicked.connect(self._clear)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        for w in (note, self.filter, self.table, self.error, buttons):
            lay.addWidget(w)
        self.resize(1180, 640)

    def _table(self) -> QTableWidget:
        t = QTableWidget(len(self.rows), len(COLUMNS))
        t.setObjectName("table_my_prices")
        t.setHorizontalHeaderLabels([c[0] for c in COLUMNS])
        t.verticalHeader().hide()
        t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        t.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        for r, row in enumerate(self.rows):
            mine = self.prices.get(row.id, {})
            for c, (_header, key, editable) in enumerate(COLUMNS):
                item = QTableWidgetItem(self._text(row, key, mine))
                item.setData(ID_ROLE, row.id)
                if not editable:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                    if key.startswith("catalog:"):
                        item.setToolTip(_tip(row, key.split(":", 1)[1]))
                        item.setForeground(QColor("#57606a"))
                elif key in PRICE_KEYS:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                t.setItem(r, c, item)
        t.setWordWrap(False)
        t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 8)
        t.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        t.resizeColumnsToContents()
        t.setColumnWidth(1, min(t.columnWidth(1), NAME_PX))  # long names elide
        t.horizontalHeader().setStretchLastSection(True)
        return t

    @staticmethod
    def _text(row: Row, key: str, mine: dict[str, Any]) -> str:
        if key == "kind":
            return row.kind
        if key == "name":
            return f"{row.name}  ({row.id})"
        if key.startswith("catalog:"):
            return _usd(row.catalog.get(key.split(":", 1)[1]))
        value = mine.get(key)
        if value is None:
            return ""
        return value if isinstance(value, str) else _usd(value).replace(",", "")

    def _filter(self, text: str) -> None:
        needle = text.strip().lower()
        for r, row in enumerate(self.rows):
            hit = not needle or needle in row.name.lower() or needle in row.id.lower()
            self.table.setRowHidden(r, not hit)

    def _clear(self) -> None:
        for r in range(self.table.rowCount()):
            for c, (_h, _key, editable) in enumerate(COLUMNS):
                item = self.table.item(r, c)
                if editable and item is not None:
                    item.setText("")

    def collect(self) -> dict[str, dict[str, Any]]:
        """The prices in the table, checked; ScenarioError naming the first bad cell."""
        out: dict[str, dict[str, Any]] = {}
        for r, row in enumerate(self.rows):
            entry: dict[str, Any] = {}
            for c, (header, key, editable) in enumerate(COLUMNS):
                if not editable:
                    continue
                item = self.table.item(r, c)
                try:
                    value = parse_cell(key, item.text() if item is not None else "")
                except ValueError:
                    raise ScenarioError(f"{row.name}, {header}", "must be a number of USD >= 0") from None
                if value is not None:
                    entry[key] = value
            if entry:
                out[row.id] = entry
        return check_prices(out)

    def accept(self) -> None:
        try:
            self.prices = self.collect()
        except ScenarioError as exc:
            self.error.setText(str(exc))
            return
        super().accept()
