"""The Hardware tab's table: one row per GPU type, the columns of io/compare_columns.COLUMNS,
sortable by any column (numbers by value, blanks last), unit prices editable."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView, QWidget

from ...io.batch_lever_text import need_lever_words
from ...io.compare_table import (
    NOT_OFFERED,
    Column,
    band_tip_lines,
    columns_for,
    not_offered_line,
    rollout_beside,
)
from .. import colors
from .cells import band_cell, band_tip, no_band, price_tip, sort_value, user_cell
from .frozen import FrozenColumns

Index = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole
OPTION_ROLE = Qt.ItemDataRole.UserRole + 1
MUTED, FRONT, BAD = QColor("#8c959f"), QColor("#eaf3ea"), QColor(colors.BAD)
NAME_CAP_PX = 230  # GPU and system names elide past this (the tooltip has the full name)
NAME_KEYS = ("gpu_name", "system_name")
ALWAYS_SHOWN = ("rank", "gpu_name")  # a row must say what it is: the first two columns, frozen
_ENSURE_VISIBLE = QAbstractItemView.ScrollHint.EnsureVisible


class OptionsModel(QAbstractTableModel):
    """Options of core/sizing/compare.py as rows. ``priceEdited(gpu, key, value)`` when the user
    types a unit price (value None: cleared)."""

    priceEdited = Signal(str, str, object)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.options: list[dict[str, Any]] = []
        self.columns: list[Column] = columns_for(False, False)
        self.unit = "GiB"

    def set_options(self, options: list[dict[str, Any]], columns: list[Column]) -> None:
        self.beginResetModel()
        self.options, self.columns = options, columns
        self.endResetModel()

    def set_unit(self, unit: str) -> None:
        """Show memory in ``unit``; the cells refresh only when it changes (set_options
        resets the whole table, which reads the unit anew)."""
        if unit == self.unit:
            return
        self.unit = unit
        if self.options:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.options) - 1, len(self.columns) - 1))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.options)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or section >= len(self.columns):
            return None
        col = self.columns[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return col.header
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{col.tip or col.header}\n(right-click a header to show or hide columns)"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if self.columns[index.column()].editable else base

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        o, col = self.options[index.row()], self.columns[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            if col.key == "layout" and not o["fits"]:  # "fit" is memory's word only
                return NOT_OFFERED.get(o.get("unmet") or "memory", "does not fit")
            return band_cell(o, col, self.unit)
        if role == Qt.ItemDataRole.EditRole:
            value = o.get(col.key)
            return "" if value is None else f"{value:g}"
        if role == SORT_ROLE:
            return sort_value(o.get(col.key))
        if role == OPTION_ROLE:
            return o
        return self._look(o, col, role)

    def _look(self, o: dict[str, Any], col: Column, role: int) -> Any:
        if role == Qt.ItemDataRole.TextAlignmentRole:
            left = col.key in ("gpu_name", "layout", "system_name")
            return int(
                (Qt.AlignmentFlag.AlignLeft if left else Qt.AlignmentFlag.AlignRight)
                | Qt.AlignmentFlag.AlignVCenter
            )
        if role == Qt.ItemDataRole.ForegroundRole:
            if not o["fits"] or (col.key == "targets_met" and o["targets_met"] is False):
                return BAD if col.key == "targets_met" else MUTED
            return MUTED if no_band(o, col.key) else None  # "no band": not a figure
        if role == Qt.ItemDataRole.BackgroundRole:
            return FRONT if o["pareto"] else None
        if role == Qt.ItemDataRole.FontRole and (
            user_cell(o, col.key) or (col.key == "gpu_name" and o["pareto"])
        ):
            font = QFont()
            font.setBold(col.key == "gpu_name")
            font.setItalic(user_cell(o, col.key))
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tip(o, col)
        return None

    def _tip(self, o: dict[str, Any], col: Column) -> str:
        if col.editable:
            return price_tip(o, col.key)
        lines = [
            o["gpu_name"]
            + (" — on the Pareto front (nothing both cheaper and faster)" if o["pareto"] else "")
        ]
        if o.get("system_name"):
            what = "catalog system" if o.get("system") else "the GPU alone: the host is not priced"
            lines.append(f"Bought as: {o['system_name']} ({what})")
        if o.get("user_prices"):
            lines.append("Priced with your own prices (My prices…)")
        if o["fits"]:
            lines.append(f"{o['layout']} · double-click to apply this GPU and layout")
            if o.get("layout_reason"):
                lines.append(f"Why: {o['layout_reason']}")
            need, spare = o.get("needed_gpus"), o.get("spare_gpus")
            if need and spare:
                lines.append(
                    f"Needs {need:,} ({o['needed_layout']}){rollout_beside(o)}; "
                    f"{spare:,} spare GPUs bought run as the layout" + need_lever_words(o)
                )
        if o.get("unmet"):
            lines.append(not_offered_line(o, named=False))
        notes = [n for n in o["notes"] if n != o.get("unmet_reason")]
        return "\n".join(lines + band_tip_lines(o, self.unit) + band_tip(o, col.key) + notes)

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        col = self.columns[index.column()]
        if role != Qt.ItemDataRole.EditRole or not col.editable:
            return False
        text = str(value).strip().replace(",", "").lstrip("$")
        try:
            number = float(text) if text else None
        except ValueError:
            return False
        if number is not None and (number < 0 or not math.isfinite(number)):
            return False
        self.priceEdited.emit(self.options[index.row()]["gpu"], col.key, number)
        return True


class OptionsTable(QTableView):
    """The sortable view (a proxy sorts by each column's value). Right-clicking the header
    lists the columns to show or hide (``hiddenChanged``: the keys now hidden; the tab keeps
    them in its view settings, so they are remembered)."""

    hiddenChanged = Signal(tuple)

    def __init__(self, model: OptionsModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("table_hardware")
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(model)
        self.proxy.setSortRole(SORT_ROLE)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked | QAbstractItemView.EditTrigger.EditKeyPressed
        )
        self.setAlternatingRowColors(False)
        self.setWordWrap(False)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.horizontalHeader().setHighlightSections(False)
        # Every search brings new texts ("3,745 days", "TP 1 x PP 3 x DP 4 (ZeRO 1), EP 4"):
        # widen any column they no longer fit, so no figure is cut.
        model.modelReset.connect(self.fit_columns)
        model.dataChanged.connect(self.fit_columns)
        header = self.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(
            lambda pos: self.column_menu().exec(header.mapToGlobal(pos))
        )
        self.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.frozen = FrozenColumns(self, len(ALWAYS_SHOWN))  # the rank and GPU stay in view
        self.frozen.horizontalHeader().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.frozen.horizontalHeader().customContextMenuRequested.connect(
            lambda pos: self.column_menu().exec(self.frozen.horizontalHeader().mapToGlobal(pos))
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.frozen.place()

    def scrollTo(self, index: Index, hint: QAbstractItemView.ScrollHint = _ENSURE_VISIBLE) -> None:
        super().scrollTo(index, hint)
        if isinstance(index, QModelIndex):
            self.frozen.uncover(index)

    def hidden_keys(self) -> tuple[str, ...]:
        """Keys of the current columns that are hidden."""
        model = self.proxy.sourceModel()
        columns = model.columns if isinstance(model, OptionsModel) else []
        return tuple(c.key for i, c in enumerate(columns) if self.isColumnHidden(i))

    def show_columns(self, hidden: tuple[str, ...]) -> None:
        """Hide the columns whose keys are in ``hidden`` (never the rank and the GPU), show
        the rest."""
        model = self.proxy.sourceModel()
        for i, col in enumerate(model.columns if isinstance(model, OptionsModel) else []):
            self.setColumnHidden(i, col.key in hidden and col.key not in ALWAYS_SHOWN)
        self.frozen.sync()

    def column_menu(self) -> QMenu:
        """One checkable entry per column (checked: shown), and "Show all columns"."""
        menu = QMenu(self)
        menu.setObjectName("menu_table_columns")
        model = self.proxy.sourceModel()
        columns = model.columns if isinstance(model, OptionsModel) else []
        hidden = set(self.hidden_keys())
        for col in columns:
            if col.key in ALWAYS_SHOWN:
                continue
            action = menu.addAction(col.header)
            action.setCheckable(True)
            action.setChecked(col.key not in hidden)
            action.setToolTip(col.tip)
            action.toggled.connect(lambda on, key=col.key: self._toggle(key, on))
        menu.addSeparator()
        menu.addAction("Show all columns", lambda: self.hiddenChanged.emit(()))
        return menu

    def _toggle(self, key: str, shown: bool) -> None:
        hidden = [k for k in self.hidden_keys() if k != key] + ([] if shown else [key])
        self.hiddenChanged.emit(tuple(hidden))

    def fit_columns(self, *_changed: Any) -> None:
        """Widen each column to its header and cells (never narrower: a width the user set
        stays when it is wide enough); the GPU and system names stop at NAME_CAP_PX."""
        model = self.proxy.sourceModel()
        if not isinstance(model, OptionsModel) or not model.options:
            return
        header = self.horizontalHeader()
        for i, col in enumerate(model.columns):
            need = max(self.sizeHintForColumn(i), header.sectionSizeHint(i))
            if col.key in NAME_KEYS:
                need = min(need, NAME_CAP_PX)
            if self.columnWidth(i) < need:
                self.setColumnWidth(i, need)
        self.frozen.sync()

    def option_at(self, index: QModelIndex) -> dict[str, Any] | None:
        value = self.proxy.data(index, OPTION_ROLE) if index.isValid() else None
        return value if isinstance(value, dict) else None

    def is_price(self, index: QModelIndex) -> bool:
        model = self.proxy.sourceModel()
        return isinstance(model, OptionsModel) and model.columns[index.column()].editable
