"""Stacked bars by memory component: one BarGraphItem per component, updated with setOpts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from ...core.model.result import COMPONENT_LABELS, COMPONENTS
from ..colors import component_qcolor
from .palette import Theme


class StackedBars:
    """Bars at x = 0, 1, 2...; each a stack of components in COMPONENTS order (bytes)."""

    def __init__(self, plot: pg.PlotItem, width: float = 0.6) -> None:
        self.width = width
        self.parts: list[dict[str, int]] = []
        self.scale = 1.0  # bytes per plotted unit
        self.items: dict[str, pg.BarGraphItem] = {}
        for c in COMPONENTS:
            item = pg.BarGraphItem(x=[], height=[], y0=[], width=width)
            plot.addItem(item)
            self.items[c] = item

    def set_bars(self, parts: Sequence[dict[str, int]], scale: float) -> None:
        """Show one stack per entry of ``parts``, divided by ``scale`` (bytes per unit)."""
        self.parts, self.scale = list(parts), scale
        n = len(self.parts)
        x = np.arange(n, dtype=float)
        bottom = np.zeros(n)
        for c in COMPONENTS:
            h = np.array([p.get(c, 0) for p in self.parts], dtype=float) / scale
            self.items[c].setOpts(x=x, height=h, y0=bottom.copy(), width=self.width)
            bottom += h

    def restyle(self, theme: Theme) -> None:
        for c, item in self.items.items():
            # A background-coloured outline separates the segments of a stack.
            item.setOpts(brush=pg.mkBrush(component_qcolor(c)), pen=pg.mkPen(theme.background, width=1))

    def used_components(self) -> list[str]:
        """Components non-zero in at least one bar, in stacking order."""
        return [c for c in COMPONENTS if any(p.get(c, 0) for p in self.parts)]

    def legend_entries(self, names: dict[str, str] | None = None) -> list[tuple[pg.BarGraphItem, str]]:
        """(item, text) per used component, top of the stack first (as the eye reads it)."""
        return [(self.items[c], (names or COMPONENT_LABELS)[c]) for c in reversed(self.used_components())]

    def segment_at(self, x: float, y: float) -> tuple[int, str] | None:
        """(bar index, component) under view point (x, y), or None."""
        i = round(x)
        if not 0 <= i < len(self.parts) or abs(x - i) > self.width / 2:
            return None
        bottom = 0.0
        for c in COMPONENTS:
            h = self.parts[i].get(c, 0) / self.scale
            if h and bottom <= y <= bottom + h:
                return i, c
            bottom += h
        return None


def capacity_line(
    plot: pg.PlotItem, position: float = 0.99, anchor: tuple[float, float] = (1, 1)
) -> pg.InfiniteLine:
    """A horizontal line labelled above it, at ``position`` along the view (0 left, 1 right)."""
    line = pg.InfiniteLine(
        angle=0, movable=False, label="", labelOpts={"position": position, "anchors": [anchor, anchor]}
    )
    line.setZValue(10)  # above the bars
    plot.addItem(line)
    return line


def style_line(
    line: pg.InfiniteLine,
    theme: Theme,
    color: str | None = None,
    font: QFont | None = None,
    width: float = 2.0,
) -> None:
    """Dashed line in ``color`` (default: foreground); its label on a filled box, so that it
    stays readable where it crosses a bar."""
    c = color or theme.foreground
    line.setPen(pg.mkPen(c, width=width, style=Qt.PenStyle.DashLine))
    label = getattr(line, "label", None)
    if label is None:  # a chart that places the line's label itself
        return
    label.setColor(c)
    label.fill = pg.mkBrush(theme.qcolor("background", 225))
    if font is not None:
        label.setFont(font)
