"""Labels kept off a horizontal line (a GPU's capacity): a label that the line would cross is
lifted to sit just above it, and the view is told how tall it must be for that.

The line is drawn under the labels' boxes, so a crossed label still reads, but the dashed line
running through "short to start by 1.8 GiB" (a 70B with its EAGLE-3 draft on one H100: the bar
ends 6 GiB below the line, its three-line label does not) reads as part of the text. Placement is
computed from the data and the labels' pixel sizes (pyqtgraph TextItem anchors, labels.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QPointF

from .labels import PAD, move_by, scene_rect, sync


def line_px(vb: pg.ViewBox, y: float) -> float:
    """The scene y (pixels) of the view's height ``y`` (data units)."""
    sync(vb)
    return vb.mapViewToScene(QPointF(0.0, y)).y()


def crossed(items: Sequence[pg.TextItem], vb: pg.ViewBox, y: float) -> list[int]:
    """Indexes of the visible labels that the line at view height ``y`` meets, with PAD pixels
    either side (a label resting on the line touches it)."""
    at = line_px(vb, y)
    out = []
    for i, item in enumerate(items):
        if not item.isVisible():
            continue
        r = scene_rect(item)
        if r.top() - PAD + 0.5 < at < r.bottom() + PAD - 0.5:  # 0.5 px spare for rounding
            out.append(i)
    return out


def lift_over(items: Sequence[pg.TextItem], vb: pg.ViewBox, y: float, which: Sequence[int]) -> None:
    """Move the labels ``which`` up so that their bottoms sit PAD pixels above the line at
    view height ``y`` (a label already above it stays)."""
    at = line_px(vb, y)
    for i in which:
        r = scene_rect(items[i])
        dy = (at - PAD) - r.bottom()
        if dy < 0:
            move_by(items[i], vb, 0.0, dy)


def room_right(px: float, width: float, bars: int, bar_width: float, left: float = -0.6) -> float:
    """The view's right edge (data units) that leaves ``px`` pixels between the last of
    ``bars`` bars (centred on 0, 1, ...; ``bar_width`` units wide) and the plot's right side,
    the left edge at ``left``, in a plot ``width`` pixels wide: the gap g = r - edge must be
    px / width of the range r - left, so r = (edge * width - left * px) / (width - px)."""
    edge = bars - 1 + bar_width / 2
    if px <= 0 or px >= width:
        return edge
    return (edge * width - left * px) / (width - px)
