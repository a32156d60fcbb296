"""Graphics items of every chart: a title that wraps, a legend that lives in a layout cell
and moves under the plot when the chart is too short or too narrow for it at the right."""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt

from .palette import LABEL_PX


class Legend(pg.LegendItem):
    """A legend that lives in a layout cell: a change of entries also asks the parent layout
    for room (pyqtgraph sizes a floating legend itself and moves it to the scene origin)."""

    host: Any = None  # the QGraphicsGridLayout holding the legend, set by the chart
    texts: list[str]  # the entries' current texts (set by the chart)
    theme: Any = None  # the theme it was last styled with
    px: int = LABEL_PX  # its labels' font size now (LegendSlot.arrange)
    # (width, height) of its widest and tallest entry at LABEL_PX, kept while it is shown
    # smaller: text does not scale linearly (11 px text scaled up measured 29 px, not 27),
    # and a legend measured small would flip back and forth between two places.
    full: tuple[float, float] | None = None

    def set_label_px(self, px: int) -> None:
        """Its labels in a font of ``px`` pixels (pyqtgraph's setLabelTextSize only stores it)."""
        if self.px == LABEL_PX:
            self.full = LegendSlot.entry(self)
        self.px = px
        self.opts["labelTextSize"] = f"{px}px"
        for _, label in self.items:
            label.setText(label.text, size=f"{px}px")
        self.updateSize()

    def updateSize(self) -> None:
        super().updateSize()
        self.updateGeometry()
        # Not parentLayoutItem(): in PySide6 6.12 each call that returns None drops a
        # reference to None, and enough of them abort Python ("deallocating None").
        if self.host is not None:
            self.host.activate()  # puts the legend back in its cell now, not on the next event


class Title(pg.LabelItem):
    """A title that wraps to the width the layout gives it instead of widening the chart (a
    long model name used to push the plot and the legend out of the window)."""

    MIN_WIDTH = 120.0

    def __init__(self) -> None:
        super().__init__("", justify="center")
        option = self.item.document().defaultTextOption()
        option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.item.document().setDefaultTextOption(option)

    def resizeEvent(self, ev: Any) -> None:
        width = self.rect().width()
        if width > self.MIN_WIDTH:
            self.item.setTextWidth(-1)
            natural = self.item.boundingRect().width()
            self.item.setTextWidth(width if natural > width else -1)
        super().resizeEvent(ev)

    def updateMin(self) -> None:
        bounds = self.itemRect()
        height = bounds.height()
        self.setMinimumWidth(min(bounds.width(), self.MIN_WIDTH))
        self.setMinimumHeight(height)
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (min(bounds.width(), self.MIN_WIDTH), height),
            Qt.SizeHint.PreferredSize: (bounds.width(), height),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()


class LegendSlot:
    """Where a chart's legend sits: at the right of the plot (it never hides data there), or
    under it in several columns when the chart is too narrow for it at the right but tall
    enough below (a 1280 x 720 window with the details open)."""

    MIN_PLOT_WIDTH = 480.0  # px the plot keeps beside a legend at the right
    MIN_PLOT_HEIGHT = 150.0  # px the plot keeps above a legend under it
    MIN_SHORT_PLOT_HEIGHT = 60.0  # px a plot keeps above a legend that fits nowhere better
    # px under which a plot beside its legend is squeezed enough to move the legend under it
    # (the roofline's 270 px beside its legend keep their place: its labels need the height)
    MIN_BESIDE_WIDTH = 200.0
    AXIS_PX = 60.0  # the bottom (or left) axis and the margins
    SMALL_PX = 11  # the legend's font where its entries are taller than the chart's room
    MARGIN_PX = 40  # the chart's width a legend under the plot does not use (its margins)
    LEGEND_PAD_PX = 16  # the legend's own margins above and below its rows

    def __init__(self) -> None:
        self.below = False

    @staticmethod
    def entry(legend: Legend) -> tuple[float, float]:
        """(width, height) of the widest and tallest entry, sample included, at LABEL_PX (as
        measured before the legend was shown smaller)."""
        if legend.px != LABEL_PX and legend.full is not None:
            return legend.full
        labels = [label.boundingRect() for _, label in legend.items] or []
        return (
            max((r.width() for r in labels), default=0.0) + 40,
            max((r.height() for r in labels), default=0.0) + 2,
        )

    def arrange(self, legend: Legend, width: float, height: float, title: float) -> tuple[bool, int]:
        """(under the plot?, font px) for a chart of ``width`` x ``height`` px whose title is
        ``title`` px tall: at the right where the plot keeps its width, else under the plot
        where it keeps its height; where neither holds, under it in SMALL_PX if the plot
        beside the legend would be squeezed and has more area under it (at 1024 x 700 the
        RL-step chart, 533 x 279 px, kept a 52 px wide plot beside its 370 px legend;
        shorter, the legend's last entry was cut); at the right in SMALL_PX where the plot
        beside it would be squeezed and there is no room under it (a colocated RL step under
        a taller summary: the plot 190 px wide, not 52)."""
        w, h = self.entry(legend)
        n = len(legend.items)
        room = height - title - self.AXIS_PX  # the plot's height with nothing under it
        if not n or width - w >= self.MIN_PLOT_WIDTH:
            return False, self._fitting_px(n * h, height - title)
        # Under the plot the legend lays its columns out in the width less the margins, and
        # adds its own (ChartBase._place_legend): a 554 px chart counted one row of two
        # entries where the legend took two rows, 56 px, and the plot kept 23 px of 70.
        inner = width - self.MARGIN_PX
        if room - self._rows(legend, inner, LABEL_PX) * h - self.LEGEND_PAD_PX >= self.MIN_PLOT_HEIGHT:
            return True, LABEL_PX
        scale = self.SMALL_PX / LABEL_PX
        under = room - self._rows(legend, inner, self.SMALL_PX) * h * scale - self.LEGEND_PAD_PX
        beside = max(0.0, width - w - self.AXIS_PX)  # the plot's width beside the legend
        squeezed = beside < self.MIN_BESIDE_WIDTH and (width - self.AXIS_PX) * under > beside * room
        if squeezed and under >= self.MIN_SHORT_PLOT_HEIGHT:
            return True, self.SMALL_PX
        if beside < self.MIN_BESIDE_WIDTH:  # squeezed, and no room under: a narrower legend
            return False, self.SMALL_PX
        return False, self._fitting_px(n * h, height - title)

    def _fitting_px(self, tall: float, room: float) -> int:
        """LABEL_PX, or SMALL_PX where the legend at the right (``tall`` px of entries at
        LABEL_PX, plus its margins) is taller than the ``room`` px beside the plot."""
        return self.SMALL_PX if tall + 16 > room else LABEL_PX

    def _rows(self, legend: Legend, width: float, px: int) -> int:
        return math.ceil(len(legend.items) / self.columns(legend, width, px))

    @classmethod
    def columns(cls, legend: Legend, width: float, px: int = LABEL_PX) -> int:
        """As many columns as the width holds at a font of ``px`` (at least 1)."""
        per = (cls.entry(legend)[0] - 40) * px / LABEL_PX + 40
        return max(1, min(len(legend.items), int(width // max(per, 1.0))))
