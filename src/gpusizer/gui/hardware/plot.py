"""Drawing helpers of the Hardware tab's chart (no Qt): log ticks, short GPU names, and
where each Pareto point's name goes so that no two names, or a name and a marker, overlap."""

from __future__ import annotations

import math
from typing import Any

Point = tuple[float, float, dict[str, Any]]  # log10 speed, log10 cost, the option


def log_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """Ticks (at log10 positions) for values from ``lo`` to ``hi``: powers of ten, and 2 and
    5 times them when the range spans less than two decades."""
    steps = (1.0,) if hi / lo >= 100 else (1.0, 2.0, 5.0)
    out = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in steps:
            v = m * 10.0**k
            if lo / 1.5 <= v <= hi * 1.5:
                out.append((math.log10(v), f"{v:,.0f}" if v >= 1 else f"{v:g}"))
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


def place(
    points: list[tuple[float, float]], widths: list[float], height: float, size: tuple[float, float]
) -> list[int | None]:
    """Where each point's label goes (an index of ``SIDES``), or None when every place leaves
    the plot or overlaps a marker or a label already placed. Points, widths and ``size`` (the
    plot's) in pixels, y upward."""
    boxes: list[Box] = [(x - 7, y - 7, x + 7, y + 7) for x, y in points]  # the markers
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


def pixels(front: list[Point], every: list[Point], size: tuple[float, float]) -> list[tuple[float, float]]:
    """The front's points in pixels (y upward) of a view that shows ``every`` point with 5%
    of their span as a margin on each side."""
    xs, ys = [p[0] for p in every], [p[1] for p in every]
    sx, sy = (max(xs) - min(xs)) or 1.0, (max(ys) - min(ys)) or 1.0
    return [
        (
            (p[0] - min(xs) + 0.05 * sx) / (1.1 * sx) * size[0],
            (p[1] - min(ys) + 0.05 * sy) / (1.1 * sy) * size[1],
        )
        for p in front
    ]


def span_per_pixel(every: list[Point], size: tuple[float, float]) -> tuple[float, float]:
    """Data units per pixel, x and y, of that view."""
    xs, ys = [p[0] for p in every], [p[1] for p in every]
    return (1.1 * ((max(xs) - min(xs)) or 1.0) / size[0], 1.1 * ((max(ys) - min(ys)) or 1.0) / size[1])
