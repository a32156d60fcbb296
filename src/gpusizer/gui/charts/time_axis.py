"""A time axis in the unit of its span (s, min, h or days: the largest the span holds two of,
so a 90 s step reads 0-80 s, not 0-1.5 min) with at least two tick texts drawn wherever the
axis has room for them.

At 1024 x 700 the RL step chart of a colocated Qwen3-30B-A3B run (3.0 h) is a 115 px wide
plot beside its legend, and pyqtgraph's own ticks in seconds (0, 5000, 10000) kept "5000"
alone: it drops a text that overflows the axis's ends, and 0 and 10000 sat at them. The
ticks here are the cost-speed chart's way (charts/cost_speed.py): sets coarse to fine
(hardware/plot.py ``finer_ticks``, then a step finer), of which the first whose texts lie
inside the axis and clear of each other (tick_thin.py ``thinned``) keeps two.
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6.QtCore import QPointF
from PySide6.QtGui import QFontMetricsF

from ..hardware.plot import finer_ticks
from .tick_thin import Tick, readable

# (seconds per unit, the unit in an axis title), largest first
UNITS = ((86400.0, "days"), (3600.0, "hours"), (60.0, "minutes"), (1.0, "seconds"))


def time_unit(span_s: float) -> tuple[float, str]:
    """(seconds per unit, its word) for an axis from 0 to ``span_s`` seconds: the first unit
    the span holds two of (whole ticks at 1, 2 or 5 of it), seconds below 2 s."""
    return next(((size, word) for size, word in UNITS if span_s >= 2 * size), UNITS[-1])


def finer_step(ticks: list[Tick], hi: float) -> list[Tick]:
    """Ticks from 0 to ``hi`` at the next finer 1-2-5 step than ``ticks``' (5 -> 2, 2 -> 1,
    1 -> 0.5): where 0, 5 and 10 h leave one text inside a 59 px axis, 2, 6 or 4, 8 are two."""
    if len(ticks) < 2:
        return ticks
    step = ticks[1][0] - ticks[0][0]
    mag = 10.0 ** math.floor(math.log10(step) + 1e-9)
    finer = {1: 0.5, 2: 1.0, 5: 2.0}.get(round(step / mag), 0.5) * mag
    return [(k * finer, f"{k * finer:,.10g}") for k in range(int(hi / finer + 1e-9) + 1)]


def time_ticks(plot: pg.PlotItem, span_s: float, metrics: QFontMetricsF) -> list[Tick]:
    """Ticks (at seconds) of the plot's bottom axis, texts in the unit of ``span_s``; the first
    set as it is where the plot is not laid out yet (no pixels to measure)."""
    if not 0 < span_s < math.inf:  # nothing to mark (a step that never ends draws no bars)
        return []
    unit, _word = time_unit(span_s)
    sets = [*finer_ticks(0.0, span_s / unit, "linear")]
    sets.append(finer_step(sets[0], span_s / unit))
    sets = [[(v * unit, text) for v, text in ticks] for ticks in sets]
    vb = plot.vb
    if vb.width() <= 0:
        return sets[0]
    (x0, x1), _y = vb.viewRange()

    def pos(v: float) -> float:
        return float(vb.mapViewToScene(QPointF(v, 0)).x())

    return readable(sets, pos, metrics.horizontalAdvance, (pos(x0), pos(x1)))
