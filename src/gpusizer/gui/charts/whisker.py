"""A whisker: a vertical segment with caps, the evidence band of a bar's peak (the range the
published runs of its regime put it in, core/evidence)."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from .palette import Theme


class Whisker:
    """One whisker on a plot; hidden until :meth:`set` gives it a range."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.item = pg.PlotDataItem(connect="pairs")
        self.item.setZValue(12)  # above the bars and the capacity line
        plot.addItem(self.item)
        self.item.hide()

    def set(self, x: float, lo: float | None, hi: float | None, half: float) -> None:
        """Draw from ``lo`` to ``hi`` (view units) at ``x``, caps ``half`` wide each side;
        None hides it."""
        if lo is None or hi is None:
            self.item.hide()
            return
        xs = [x, x, x - half, x + half, x - half, x + half]
        ys = [lo, hi, lo, lo, hi, hi]
        self.item.setData(np.array(xs, float), np.array(ys, float))
        self.item.show()

    def restyle(self, theme: Theme) -> None:
        self.item.setPen(pg.mkPen(theme.foreground, width=2))
