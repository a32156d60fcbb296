"""Graphics items of every chart: a title that wraps, a legend that lives in a layout cell
and moves under the plot when the chart is too short or too narrow for it at the right."""

from __future__ import annotations

import math
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt


class Legend(pg.LegendItem):
    """A legend that lives in a layout cell: a change of entries also asks the parent layout
    for room (pyqtgraph sizes a floating legend itself and moves it to the scene origin)."""

    host: Any = None  # the QGraphicsGridLayout holding the legend, set by the chart
    texts: list[str]  # the entries' current texts (set by the chart)
    theme: Any = None  # the theme it was last styled with

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
    AXIS_PX = 60.0  # the bottom axis and the margins

    def __init__(self) -> None:
        self.below = False

    @staticmethod
    def _entry(legend: Legend) -> tuple[float, float]:
        """(width, height) of the widest and tallest entry, sample included."""
        labels = [label.boundingRect() for _, label in legend.items] or []
        return (
            max((r.width() for r in labels), default=0.0) + 40,
            max((r.height() for r in labels), default=0.0) + 2,
        )

    def wants_below(self, legend: Legend, width: float, height: float, title: float) -> bool:
        w, h = self._entry(legend)
        n = len(legend.items)
        if not n or width - w >= self.MIN_PLOT_WIDTH:
            return False  # room at the right
        rows = math.ceil(n / self.columns(legend, width))
        return height - title - self.AXIS_PX - rows * h >= self.MIN_PLOT_HEIGHT

    @classmethod
    def columns(cls, legend: Legend, width: float) -> int:
        """As many columns as the width holds (at least 1)."""
        per = cls._entry(legend)[0]
        return max(1, min(len(legend.items), int(width // max(per, 1.0))))
