"""The Hardware table's first columns (the rank and the GPU) held in place while the others
scroll sideways, so a row still says what it is at 1280 px: a second view over the same model
and selection, laid over the table's left edge, showing only those columns (Qt's "Frozen Column
Example", qtbase examples/widgets/itemviews/frozencolumn)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView


class FrozenColumns(QTableView):
    """Shows columns ``0 .. count-1`` of ``table`` on top of it; scrolls vertically with it and
    shares its model, selection, sorting and column widths."""

    def __init__(self, table: QTableView, count: int) -> None:
        super().__init__(table)
        self.table, self.count = table, count
        self.setObjectName("table_hardware_frozen")
        self.setModel(table.model())
        self.setSelectionModel(table.selectionModel())
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.verticalHeader().hide()
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(table.verticalScrollMode())
        self.setSelectionBehavior(table.selectionBehavior())
        self.setSelectionMode(table.selectionMode())
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setWordWrap(False)
        # the header's own indicator starts descending, and enabling sorting sorts by it
        section, order = (
            table.horizontalHeader().sortIndicatorSection(),
            table.horizontalHeader().sortIndicatorOrder(),
        )
        self.horizontalHeader().setSortIndicator(section, order)
        self.setSortingEnabled(True)
        self.setStyleSheet(
            "QTableView#table_hardware_frozen { border: none; border-right: 1px solid #c8ccd0; }"
        )
        self._connect()
        self.sync()
        self.viewport().stackUnder(table.verticalScrollBar())  # the table's scroll bar stays usable
        self.show()

    def _connect(self) -> None:
        table, header = self.table, self.table.horizontalHeader()
        table.verticalScrollBar().valueChanged.connect(self.verticalScrollBar().setValue)
        self.verticalScrollBar().valueChanged.connect(table.verticalScrollBar().setValue)
        header.sectionResized.connect(self._resized)
        header.sortIndicatorChanged.connect(self._sorted_by_table)
        self.horizontalHeader().sortIndicatorChanged.connect(self._sorted_here)
        self.doubleClicked.connect(table.doubleClicked)
        model = table.model()
        for signal in (model.modelReset, model.layoutChanged, model.rowsInserted, model.columnsInserted):
            signal.connect(self.sync)

    def sync(self, *_args: Any) -> None:
        """Show only the frozen columns, at the table's widths, and cover them exactly."""
        columns = self.model().columnCount(QModelIndex()) if self.model() is not None else 0
        for col in range(columns):
            frozen = col < self.count
            self.setColumnHidden(col, not frozen or self.table.isColumnHidden(col))
            if frozen:
                self.setColumnWidth(col, self.table.columnWidth(col))
        self.verticalHeader().setDefaultSectionSize(self.table.verticalHeader().defaultSectionSize())
        self.place()

    def _resized(self, col: int, _old: int, new: int) -> None:
        if col < self.count:
            self.setColumnWidth(col, new)
            self.place()

    def _sorted_by_table(self, col: int, order: Qt.SortOrder) -> None:
        header = self.horizontalHeader()
        if (header.sortIndicatorSection(), header.sortIndicatorOrder()) != (col, order):
            header.blockSignals(True)
            header.setSortIndicator(col, order)
            header.blockSignals(False)

    def _sorted_here(self, col: int, order: Qt.SortOrder) -> None:
        table_header = self.table.horizontalHeader()
        if (table_header.sortIndicatorSection(), table_header.sortIndicatorOrder()) != (col, order):
            self.table.sortByColumn(col, order)

    def width_frozen(self) -> int:
        """Pixels the frozen columns take."""
        return sum(self.table.columnWidth(c) for c in range(self.count) if not self.table.isColumnHidden(c))

    def place(self) -> None:
        """Lay the view over the table's frozen columns (called on every resize)."""
        t = self.table
        self.setGeometry(
            t.verticalHeader().width() + t.frameWidth(),
            t.frameWidth(),
            self.width_frozen(),
            t.viewport().height() + t.horizontalHeader().height(),
        )

    def uncover(self, index: QModelIndex) -> None:
        """Scroll the table sideways so a cell the cursor reached is not under the frozen view."""
        if index.isValid() and index.column() >= self.count:
            left = self.table.visualRect(index).left()
            if left < self.width_frozen():
                bar = self.table.horizontalScrollBar()
                bar.setValue(bar.value() + left - self.width_frozen())
