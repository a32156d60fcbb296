"""The main window's body (gui/main_window.py): the panels' column on the left and the answer
on the right (the summary, the chart tabs, the details table and figures), built in the order
the window always built them; widths and heights in pixels."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QScrollArea, QSplitter, QVBoxLayout, QWidget

from .breakdown import BreakdownTable, FiguresView
from .chart_tabs import ChartTabs
from .style import set_role
from .summary import SummaryHeader
from .summary_scroll import SummaryScroll

LEFT_WIDTH = 430
FIGURES_WIDTH = 170  # px the details' figures keep beside the table (wrapped, at 1024 px)
# px the chart tabs keep while the details can give up rows (they scroll): at 1024 x 700 the
# details' five rows left the Hardware tab of gpt-oss-120b P/D 2.5 rows of its GPU table and a
# plot a few px tall, and cut the bottom of the training-vs-inference chart. A share, not a
# minimum: a minimum raised the window's least height from 499 to 645 px.
CHARTS_MIN_PX = 300
DETAILS_MIN_ROWS = 2  # the details table's least rows in view (5 where there is room)


class _LeftScroll(QScrollArea):
    """The panels' scroll area, never narrower than the widest panel shown (plus the vertical
    scroll bar): its horizontal bar is off, so a column wider than the area was cut at the
    right (the Training panel's fused-kernel grid needs 437 px, beyond the 436 px the area
    showed: spin-box arrows and the preset list's counts fell under the scroll bar). The
    main splitter reads this minimum again whenever a panel's rows are shown or hidden."""

    def minimumSizeHint(self) -> QSize:
        inner = self.widget()
        need = inner.minimumSizeHint().width() if inner is not None else 0
        need += self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()
        return QSize(max(LEFT_WIDTH, need), super().minimumSizeHint().height())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()  # the column's minimum may have moved: the splitter re-reads it
        return super().eventFilter(watched, event)


def left_column(boxes: Sequence[QWidget]) -> QScrollArea:
    """The panels' boxes one under the other, in a scroll area that never takes the focus."""
    column = QWidget()
    column.setObjectName("left_column")
    lay = QVBoxLayout(column)
    lay.setContentsMargins(10, 6, 10, 10)
    lay.setSpacing(8)
    for box in boxes:
        lay.addWidget(box)
    lay.addStretch(1)
    left = _LeftScroll()
    left.setObjectName("left_scroll")
    left.setWidgetResizable(True)
    left.setFrameShape(QFrame.Shape.NoFrame)
    left.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    left.setWidget(column)
    # A click on blank space or a caption would give the scroll area the focus, and the next
    # Tab would then start again at the form's first field (scrolling to the top); the field
    # that had the focus keeps it instead. The wheel still scrolls the area.
    left.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    column.installEventFilter(left)
    return left


@dataclass(frozen=True)
class AnswerSide:
    """The right side's widgets: the summary over the charts, the details under them."""

    widget: QWidget
    summary: SummaryHeader
    tabs: ChartTabs
    table: BreakdownTable
    figures: FiguresView
    split: QSplitter  # charts over details (its handle's place is remembered)


def answer_side(defer_charts: bool) -> AnswerSide:
    """The summary, the chart tabs (started later when ``defer_charts``) and the details."""
    right = QWidget()
    lay = QVBoxLayout(right)
    lay.setContentsMargins(6, 8, 10, 8)
    lay.setSpacing(8)
    summary = SummaryHeader()
    lay.addWidget(SummaryScroll(summary, right))  # it scrolls where a short window needs the chart
    tabs = ChartTabs(deferred=defer_charts, background=True)
    table = BreakdownTable()
    figures = FiguresView()
    details = _Details(table, _figures_scroll(figures))
    details.setObjectName("details")
    set_role(details, "card")
    # Two rows at least (it scrolls): in a short window the charts need the height more.
    table.setMinimumHeight(table.verticalHeader().defaultSectionSize() * DETAILS_MIN_ROWS + 4)
    split = _AnswerSplit(table)
    split.setObjectName("splitter_right")
    split.addWidget(tabs)
    split.addWidget(details)
    split.setStretchFactor(0, 1)
    split.setStretchFactor(1, 0)
    split.setCollapsible(0, False)
    lay.addWidget(split, 1)
    return AnswerSide(right, summary, tabs, table, figures, split)


class _AnswerSplit(QSplitter):
    """The charts over the details, their heights shared again (:func:`share_height`) at
    every change of the split's height until the user drags the handle or a remembered place
    is restored: shared once at the first show, the summary's later lines (the advice's "GPUs
    needed") came out of the charts' share alone."""

    def __init__(self, table: BreakdownTable) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self._table = table
        self.placed = False  # by the user (a drag) or by a remembered state
        self.splitterMoved.connect(self._moved)

    def _moved(self, *_args: object) -> None:
        self.placed = True

    def restoreState(self, state: QByteArray | bytes | bytearray | memoryview) -> bool:
        done = super().restoreState(state)
        self.placed = self.placed or done
        return done

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self.placed and event.size().height() != event.oldSize().height():
            share_height(self._table, self)


class _Details(QFrame):
    """The table and the figures side by side, halves of the width, except that the figures
    give up width to the table until it has its columns' (``BreakdownTable.wanted_width``)
    or they are down to :data:`FIGURES_WIDTH`: at 1024 px the figures' text took the width
    and the table's Component column fell to 29 px. A maximum on the figures, not a minimum
    on the table, so the window may still be made narrower than 1024 px."""

    def __init__(self, table: BreakdownTable, figures: QWidget) -> None:
        super().__init__()
        self.table, self.figures = table, figures
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(4, 4, 4, 4)
        self.row.addWidget(table, 1)
        self.row.addWidget(figures, 1)

    def resizeEvent(self, event: QResizeEvent) -> None:
        room = event.size().width() - 8 - self.row.spacing()
        self.figures.setMaximumWidth(max(FIGURES_WIDTH, room - self.table.wanted_width))
        super().resizeEvent(event)


def _figures_scroll(figures: FiguresView) -> QScrollArea:
    """The figures in a frameless vertical scroll area: beside the table at 1024 px their
    values wrap, and the rows that no longer fit the details' height scroll, not vanish."""
    area = QScrollArea()
    area.setObjectName("figures_scroll")
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(figures)
    return area


def share_height(table: BreakdownTable, split: QSplitter) -> None:
    """Nine rows of details where the charts keep 420 px, fewer (five where the charts keep
    CHARTS_MIN_PX, else as many as they leave) on a small screen (1280 x 720): the chart first."""
    row = table.verticalHeader().defaultSectionSize()
    total = sum(split.sizes())
    details = max(row * 5 + 4, min(row * 10 + 8, total - 420))
    details = max(row * DETAILS_MIN_ROWS + 4, min(details, total - CHARTS_MIN_PX))
    split.setSizes([max(total - details, 1), details])
