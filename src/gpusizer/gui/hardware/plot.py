"""Drawing helpers of the Hardware tab's chart (no Qt): log ticks (linear where a value is 0),
short GPU names, and where each Pareto point's name goes so that no two names, or a name and
a dot, overlap (in pixels the chart measures with pyqtgraph's ``ViewBox.mapViewToScene``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Point = tuple[float, float, dict[str, Any]]  # speed, cost on their axes (log10 or linear), the option


def log_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """Ticks (at log10 positions) for values from ``lo`` to ``hi``: powers of ten, and 2 and
    5 times them when the range spans less than two decades."""
    steps = (1.0,) if hi / lo >= 100 else (1.0, 2.0, 5.0)
    out = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in steps:
            v = m * 10.0**k
            if lo / 1.5 <= v <= hi * 1.5:
                out.append((math.log10(v), tick_label(v)))
    return out


_SUFFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def tick_label(value: float) -> str:
    """A tick's short label: ``10k``, ``2.5M``, ``0.05``. Full digits ("100,000") run into
    their neighbours on a narrow log axis, so thousands and above take an SI suffix."""
    for size, suffix in _SUFFIXES:
        if abs(value) >= size:
            return f"{value / size:g}{suffix}"
    return f"{value:,.0f}" if abs(value) >= 1 or value == 0 else f"{value:g}"


def axis_scale(values: Sequence[float]) -> str:
    """ "log" for values all above 0, else "linear": a price of 0 ("already owned") makes a
    cost of 0 per token, which has no logarithm."""
    return "log" if values and min(values) > 0 else "linear"


def to_axis(value: float, scale: str) -> float:
    """A value's position on an axis of this scale (log10 on a log axis)."""
    return math.log10(value) if scale == "log" else value


def linear_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """About five ticks at 1, 2 or 5 times a power of ten from ``lo`` to ``hi``."""
    span = hi - lo if hi > lo else abs(hi) or 1.0
    raw = span / 5
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1.0, 2.0, 5.0, 10.0) if m * mag >= raw)
    first = math.floor(lo / step)
    return [
        (k * step, tick_label(k * step) if step >= 1 else f"{k * step:g}")
        for k in range(first, first + 8)
        if k * step <= hi + step / 2
    ]


def axis_ticks(lo: float, hi: float, scale: str) -> list[tuple[float, str]]:
    """Ticks (at axis positions) for values from ``lo`` to ``hi`` on an axis of this scale."""
    return log_ticks(lo, hi) if scale == "log" else linear_ticks(lo, hi)


def finer_ticks(lo: float, hi: float, scale: str) -> list[list[tuple[float, str]]]:
    """Ticks for values from ``lo`` to ``hi``, coarse to fine, for a chart that keeps the first
    set of which two texts fit its axis: :func:`axis_ticks`, then on a log axis every 1-9
    times a power of ten, then about five linear steps at their log10 positions (a 20-50
    tok/s range put its only ticks, 20 and 50, at the plot's edges, where pyqtgraph drops a
    text that overflows the axis: the speed axis had none)."""
    out = [axis_ticks(lo, hi, scale)]
    if scale != "log" or lo <= 0:
        return out
    nines = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        nines += [(math.log10(m * 10.0**k), tick_label(m * 10.0**k)) for m in range(1, 10)]
    out.append([t for t in nines if lo / 1.5 <= 10 ** t[0] <= hi * 1.5])
    out.append([(math.log10(v), text) for v, text in linear_ticks(lo, hi) if v > 0])
    return out


_BRANDS = ("GeForce ", "Instinct ", "Radeon ")


def short_name(option: dict[str, Any]) -> str:
    """``B200 192GB`` for ``B200 192GB (HGX/DGX: 180 GB enabled)``, ``RTX 5090 32GB`` for
    ``GeForce RTX 5090 32GB``."""
    name = str(option["gpu_name"]).split(" (")[0]
    for brand in _BRANDS:
        name = name.removeprefix(brand)
    return name


Box = tuple[float, float, float, float]  # left, bottom, right, top in pixels
GAP = 8  # px between a marker's centre and its label
# Where a label may go, in order (left, right, above, below of its point, then above and
# below ending or starting at it): the box's offset from the point in units of its (width,
# height), the gap's direction, the text anchor.
SIDES = (
    ((-1.0, -0.5), (-1, 0), (1.0, 0.5)),
    ((0.0, -0.5), (1, 0), (0.0, 0.5)),
    ((-0.5, 0.0), (0, 1), (0.5, 1.0)),
    ((-0.5, -1.0), (0, -1), (0.5, 0.0)),
    ((-1.0, 0.0), (0, 1), (1.0, 1.0)),
    ((0.0, 0.0), (0, 1), (0.0, 1.0)),
    ((-1.0, -1.0), (0, -1), (1.0, 0.0)),
    ((0.0, -1.0), (0, -1), (0.0, 0.0)),
)


def _box(x: float, y: float, w: float, h: float, side: int) -> Box:
    (fx, fy), (gx, gy), _ = SIDES[side]
    left, bottom = x + fx * w + gx * GAP, y + fy * h + gy * GAP
    return left, bottom, left + w, bottom + h


Marker = tuple[float, float, float]  # centre x, y and radius of a dot, in pixels


def place(
    points: list[tuple[float, float]],
    widths: list[float],
    height: float,
    size: tuple[float, float],
    markers: Sequence[Marker] = (),
) -> list[int | None]:
    """Where each point's label goes (an index of ``SIDES``), or None when every place leaves
    the plot or overlaps a dot (``markers``: every dot drawn, the labelled ones included) or a
    label already placed. Points, widths, markers and ``size`` (the plot's) in pixels, y
    upward, from the plot's bottom-left corner."""
    boxes: list[Box] = [(x - r, y - r, x + r, y + r) for x, y, r in markers]
    out: list[int | None] = []
    for (x, y), w in zip(points, widths, strict=True):
        side = None
        for s in range(len(SIDES)):
            box = _box(x, y, w, height, s)
            inside = box[0] >= 0 and box[2] <= size[0] and box[1] >= 0 and box[3] <= size[1]
            if inside and not any(
                box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in boxes
            ):
                side = s
                boxes.append(box)
                break
        out.append(side)
    return out
