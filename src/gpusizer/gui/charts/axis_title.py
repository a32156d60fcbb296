"""A value axis's title as long as the plot's height takes: pyqtgraph draws the rotated title
centred on the axis whatever its length, so on the Training vs inference chart's 130 px plot
at 1024 x 700 "memory of the whole job (GiB)" ran up over the chart's subtitle and down into
the bar names. The first of the titles, longest first, that fits is shown; the axis's tooltip
keeps the whole one (cost_speed.py shortens its cost axis the same way)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtGui import QFontMetricsF

from .palette import LABEL_PX, font


def fitting(titles: Sequence[str], room_px: float) -> str:
    """The first of ``titles`` (longest first) whose text, in the axis title's font, is no
    longer than ``room_px``; the last (the shortest) where none is."""
    metrics = QFontMetricsF(font(LABEL_PX))
    return next((t for t in titles if metrics.horizontalAdvance(t) <= room_px), titles[-1])


def fit_left_title(chart: Any, titles: Sequence[str]) -> None:
    """``chart``'s (a ChartBase) left axis titled with the longest of ``titles`` its plot's
    height takes, the whole title in the axis's tooltip."""
    room = chart.plot.vb.sceneBoundingRect().height()
    chart.set_axis_label("left", fitting(titles, room) if room > 0 else titles[0])
    chart.plot.getAxis("left").setToolTip(titles[0])
