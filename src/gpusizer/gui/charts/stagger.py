"""Value labels above bars in two rows where a row of them would collide: at 1024 px the
Training vs inference plot is ~280 px wide for seven bars (a 38 px pitch) and "175 GiB / 3 GPUs"
is ~60 px wide, so neighbours met, and the greedy nudging (labels.py) then carried some of them
sideways over other bars, far from their own. Here each label stays straight above its own bar
(a leader line joins them when it is lifted): it rests on its bar, or just above whatever
stands under it (a taller neighbouring bar, a label placed before it), and every second label
of a colliding pair is placed after the others, so it goes up one row. The view is then made
tall enough for the highest one. Computed from the bars' tops and the labels' pixel sizes (a
skyline, as in label placement for bar charts); the texts are not changed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QRectF

from .labels import PAD, move_by, scene_rect, set_top, sync, wrap_to

GAP = PAD + 1.0  # px between rows: more than the PAD that place() keeps around each label
PASSES = 3  # the view grows at most this often (the second pass nearly always settles it)


def _side_by_side(a: QRectF, b: QRectF) -> bool:
    """Whether the two rectangles share some width (with PAD pixels to spare)."""
    return a.left() < b.right() + PAD and b.left() < a.right() + PAD


def upper_row(items: Sequence[pg.TextItem]) -> list[int]:
    """The labels that go up a row: the odd-indexed ones beside a neighbour's label."""
    rects = [scene_rect(x) if x.isVisible() else QRectF() for x in items]
    return [
        i
        for i in range(1, len(items), 2)
        if items[i].isVisible()
        and any(
            0 <= j < len(items) and items[j].isVisible() and _side_by_side(rects[i], rects[j])
            for j in (i - 1, i + 1)
        )
    ]


def _settle(rect: QRectF, bodies: Sequence[QRectF], labels: Sequence[QRectF]) -> float:
    """How far up (pixels, <= 0) ``rect`` must go to rest on the bars and labels under it:
    on a bar's top, GAP above a label's."""
    dy = 0.0
    below = [*((b, 0.0) for b in bodies), *((x, GAP) for x in labels)]
    for _ in range(len(below) + 1):  # each step goes above one more obstacle
        r = rect.translated(0, dy)
        hit = [
            o.top() - gap
            for o, gap in below
            if _side_by_side(r, o) and o.top() - gap < r.bottom() - 0.5 and r.top() < o.bottom()
        ]
        if not hit:
            break
        dy = min(hit) - rect.bottom()
    return dy


def skyline(items: Sequence[pg.TextItem], vb: pg.ViewBox, bodies: Sequence[QRectF]) -> list[int]:
    """Lift each visible label straight up onto what stands under it, the upper row last
    (slid sideways only to stay inside the plot). Returns the upper row."""
    sync(vb)
    upper = upper_row(items)
    order = [i for i in range(len(items)) if i not in upper] + upper
    area = vb.sceneBoundingRect()
    placed: list[QRectF] = []
    for i in order:
        if not items[i].isVisible():
            continue
        wrap_to(items[i], area.width() - 2 * PAD)  # as place() will
        rect = scene_rect(items[i])
        # an outer bar's label slid inside the plot first (its neighbour then stands under it)
        dx = max(area.left() - rect.left(), min(0.0, area.right() - rect.right()))
        rect = rect.translated(dx, 0)
        dy = _settle(rect, bodies, placed)
        move_by(items[i], vb, dx, dy)
        placed.append(rect.translated(0, dy))
    return upper


def stagger(
    vb: pg.ViewBox,
    tops: Sequence[float],
    items: Sequence[pg.TextItem],
    bodies: Callable[[], Sequence[QRectF]],
    reset: Callable[[], None],
) -> list[int]:
    """Labels on their bars (``reset()`` puts them at ``tops``, data units), settled by
    :func:`skyline` on ``bodies()`` (the bars, scene pixels), the view grown until the highest
    fits: a label ``s`` pixels above its bar's top ``v`` needs a view top of v / (1 - s / H)."""
    upper: list[int] = []
    for n in range(PASSES):
        upper = skyline(items, vb, bodies())
        area = vb.sceneBoundingRect()
        height, top = max(area.height(), 1.0), vb.viewRange()[1][1]
        need = top
        for value, item in zip(tops, items, strict=False):
            if item.isVisible():
                s = area.bottom() - scene_rect(item).top() - value / top * height + PAD
                if s < 0.9 * height:  # a label taller than the view is left to the nudging
                    need = max(need, value / (1 - s / height))
        if need <= top * (1 + 1e-6) or n == PASSES - 1:
            break
        set_top(vb, need)
        reset()
    return upper
