"""Fixed ticks thinned to the axis' width: a log axis labelled at every power of two
("1 2 4 ... 256") ran its labels together where the plot is narrow (the Serving-features
chart at 1024 x 700, about 150 px wide)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF

from .palette import FONT_PX, font

GAP_PX = 8.0  # px kept between two neighbouring labels


def thinned(ticks: list[tuple[float, str]], px_per_unit: float) -> list[tuple[float, str]]:
    """Every k-th of evenly spaced ``ticks`` ((position, label), in axis units), the smallest
    k whose labels, in the axis font (FONT_PX), do not touch at ``px_per_unit`` screen px per
    axis unit; the last tick (the largest count) is always kept."""
    if len(ticks) < 2 or px_per_unit <= 0:
        return ticks
    metrics = QFontMetricsF(font(FONT_PX))
    widest = max(metrics.horizontalAdvance(label) for _, label in ticks) + GAP_PX
    spacing = abs(ticks[1][0] - ticks[0][0]) * px_per_unit
    step = max(1, math.ceil(widest / max(spacing, 1e-9)))
    last = len(ticks) - 1
    return [t for i, t in enumerate(ticks) if (last - i) % step == 0]


def _grouped(text: str) -> str:
    try:
        value = float(text)
    except ValueError:
        return text
    return f"{value:,.0f}" if abs(value) >= 1000 and value.is_integer() else text


def group_thousands(axis: pg.AxisItem) -> None:
    """The axis's own tick texts with thousands grouped, as every other number in the window
    ("2,000", not pyqtgraph's "2000": the Serving-features chart's tokens/s beside the
    Users-vs-context chart's "2,000")."""
    plain = axis.tickStrings

    def strings(values: Sequence[float], scale: float, spacing: float) -> list[str]:
        return [_grouped(t) for t in plain(values, scale, spacing)]

    axis.tickStrings = strings
