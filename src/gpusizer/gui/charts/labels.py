"""Chart labels that never overlap and never leave the plot: each label is placed where its
chart wants it, then nudged (in screen pixels) inside the plot area and away from the labels
placed before it and from fixed obstacles; a label moved far from its point gets a leader line.

Greedy placement in priority order (the first label keeps its place): the usual approach of
plotting libraries' label repellers (e.g. ggrepel, https://ggrepel.slowkow.com/articles/
examples.html), restricted to a few candidate offsets, which is enough for the handful of
labels a chart here holds and costs well under a millisecond.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF

PAD = 3.0  # px between labels
LEADER_PX = 14.0  # a label moved further than this from its point gets a leader line


def sync(vb: pg.ViewBox | None) -> None:
    """Apply a view range set since the last paint (pyqtgraph updates the view's transform
    lazily, at paint time): pixel positions read before that would be stale."""
    if vb is not None:
        vb.updateMatrix()


def scene_rect(item: pg.TextItem) -> QRectF:
    """The label's rectangle in scene pixels, with its transform brought up to date (the view
    range may have changed since it was last painted)."""
    sync(item.getViewBox())
    item.updateTransform(force=True)
    return item.sceneBoundingRect()


def _offsets(step: float, reach: float) -> Iterable[tuple[float, float]]:
    """Candidate moves: none, then up and down by growing steps, then sideways, then
    diagonally (a crowded corner of a chart)."""
    yield 0.0, 0.0
    n = 1
    while n * step <= reach:
        yield 0.0, -n * step
        yield 0.0, n * step
        n += 1
    for dx in (-reach / 2, reach / 2, -reach, reach):
        yield dx, 0.0
    for dx in (-reach / 2, reach / 2, -reach, reach):
        for k in (1, 2, 4):
            yield dx, -k * step
            yield dx, k * step


def crosses(line: QLineF, rect: QRectF) -> bool:
    """Whether a segment meets a rectangle (Liang-Barsky clipping, scene pixels)."""
    x0, y0, dx, dy = line.x1(), line.y1(), line.dx(), line.dy()
    lo, hi = 0.0, 1.0
    for p, q in (
        (-dx, x0 - rect.left()),
        (dx, rect.right() - x0),
        (-dy, y0 - rect.top()),
        (dy, rect.bottom() - y0),
    ):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            lo = max(lo, t)
        else:
            hi = min(hi, t)
        if lo > hi:
            return False
    return True


def _nearest(p: QPointF, r: QRectF) -> QPointF:
    return QPointF(min(max(p.x(), r.left()), r.right()), min(max(p.y(), r.top()), r.bottom()))


def _free(
    trial: QRectF,
    placed: Sequence[QRectF],
    lines: Sequence[QLineF],
    anchor: QPointF | None,
) -> bool:
    """No overlap with a placed rectangle or a line; a leader from ``anchor`` (when the label
    sits away from it) crosses no placed rectangle either."""
    if any(trial.intersects(p) for p in placed) or any(crosses(seg, trial) for seg in lines):
        return False
    if anchor is None:
        return True
    end = _nearest(anchor, trial)
    if (end - anchor).manhattanLength() <= LEADER_PX:
        return True
    leader = QLineF(anchor, end)
    return not any(crosses(leader, p) for p in placed)


def _inside(r: QRectF, area: QRectF) -> QRectF:
    """``r`` moved the least to lie within ``area`` (left/top win when it is bigger)."""
    dx = max(area.left() - r.left(), min(0.0, area.right() - r.right()))
    dy = max(area.top() - r.top(), min(0.0, area.bottom() - r.bottom()))
    if r.width() > area.width():
        dx = area.left() - r.left()
    if r.height() > area.height():
        dy = area.top() - r.top()
    return r.translated(dx, dy)


def move_by(item: pg.TextItem, vb: pg.ViewBox, dx: float, dy: float) -> None:
    """Move a label by (dx, dy) scene pixels (its position is in view coordinates)."""
    if dx == 0 and dy == 0:
        return
    sync(vb)
    here = vb.mapViewToScene(item.pos())
    item.setPos(vb.mapSceneToView(QPointF(here.x() + dx, here.y() + dy)))


def _first_free(
    base: QRectF,
    area: QRectF,
    step: float,
    reach: float,
    placed: Sequence[QRectF],
    lines: Sequence[QLineF],
    anchor: QPointF | None,
) -> QRectF:
    """The first candidate clear of everything; failing that, clear of the labels while
    crossing a line or a leader (a label wider than the room under a roof); else the one that
    covers the least of the labels placed before it."""
    trials = [_inside(base.translated(dx, dy), area) for dx, dy in _offsets(step, reach)]
    for strict_lines, strict_anchor in ((lines, anchor), (lines, None), ((), None)):
        for trial in trials:
            if _free(trial, placed, strict_lines, strict_anchor):
                return trial

    def covered(r: QRectF) -> float:
        return sum((r & p).width() * (r & p).height() for p in placed if r.intersects(p))

    return min(trials, key=covered, default=base)


def wrap_to(item: pg.TextItem, width: float) -> None:
    """Wrap a label wider than the plot to the plot's width (a 250 px plot at 1024 px cut the
    roofline's "decode: norms, mlp, lm_head, qkv, ..." at the right edge); a label wrapped
    here before first gets back the text width it had (-1: natural; a centred label's own)."""
    before = getattr(item, "width_before_wrap", None)
    if before is not None:
        item.setTextWidth(before)
        item.width_before_wrap = None
    if width > 0 and scene_rect(item).width() > width:
        item.width_before_wrap = item.textItem.textWidth()
        item.setTextWidth(width)


def place(
    items: Sequence[pg.TextItem],
    vb: pg.ViewBox,
    obstacles: Sequence[QRectF] = (),
    reach: float = 160.0,
    lines: Sequence[QLineF] = (),
    anchors: Sequence[QPointF | None] = (),
) -> list[tuple[pg.TextItem, float, float]]:
    """Nudge visible ``items`` (in priority order) so that none overlaps another, an
    obstacle or a line segment (``lines``: a roof, in scene pixels) and all stay inside the
    view box; a label with an anchor (its point, view coordinates) moved off it is placed
    where its leader line crosses no label. Returns (item, dx, dy) of each move."""
    sync(vb)
    area = vb.sceneBoundingRect()
    placed = [o.adjusted(-PAD, -PAD, PAD, PAD) for o in obstacles]
    points = [None if a is None else vb.mapViewToScene(a) for a in anchors]
    moves = []
    for n, item in enumerate(items):
        if not item.isVisible():
            continue
        wrap_to(item, area.width() - 2 * PAD)
        start = scene_rect(item)
        if start.isEmpty():
            continue
        base = _inside(start, area)
        step = max(4.0, start.height() / 2)
        anchor = points[n] if n < len(points) else None
        chosen = _first_free(base, area, step, reach, placed, lines, anchor)
        ddx, ddy = chosen.left() - start.left(), chosen.top() - start.top()
        move_by(item, vb, ddx, ddy)
        placed.append(chosen.adjusted(-PAD, -PAD, PAD, PAD))
        moves.append((item, ddx, ddy))
    return moves


def room_above(
    vb: pg.ViewBox,
    tops: Sequence[float],
    items: Sequence[pg.TextItem],
    floor: float,
    extra_px: float = 0.0,
    most: float = 0.6,
) -> float:
    """The view's top (data units, from 0) at which each label fits above its value in
    ``tops`` with ``extra_px`` more pixels: value / (1 - label px / view px). At least
    ``floor``; a label taller than ``most`` of the view is left to the nudging."""
    sync(vb)
    height = max(vb.sceneBoundingRect().height(), 1.0)
    need = floor
    for value, item in zip(tops, items, strict=False):
        h = scene_rect(item).height() + 2 * PAD + extra_px
        if h < most * height:
            need = max(need, value / (1 - h / height))
    return need


def set_top(vb: pg.ViewBox, top: float) -> None:
    """Set the y range to [0, top] unless it is already that."""
    if abs(top - vb.viewRange()[1][1]) > 1e-9 * top:
        vb.setYRange(0, top, padding=0)


def visible_texts(plot: pg.PlotItem) -> list[pg.TextItem]:
    """The visible text items of a plot, lines' labels included (what tests check)."""
    out = [i for i in plot.items if isinstance(i, pg.TextItem) and i.isVisible()]
    for item in plot.items:
        label = getattr(item, "label", None)
        if (
            isinstance(item, pg.InfiniteLine)
            and item.isVisible()
            and isinstance(label, pg.TextItem)
            and label.isVisible()
        ):
            out.append(label)
    return out


def overlaps(items: Iterable[pg.TextItem]) -> list[tuple[int, int]]:
    """Pairs (i, j) of visible labels whose rectangles overlap (tests and a debug check)."""
    rects = [(i, scene_rect(it)) for i, it in enumerate(items) if it.isVisible()]
    return [(i, j) for a, (i, ri) in enumerate(rects) for j, rj in rects[a + 1 :] if ri.intersects(rj)]


def outside(items: Iterable[pg.TextItem], vb: pg.ViewBox) -> list[int]:
    """Indexes of visible labels not wholly inside the view box (1 px tolerance)."""
    area = vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    return [i for i, it in enumerate(items) if it.isVisible() and not area.contains(scene_rect(it))]


class Leaders:
    """Thin lines from points to the labels moved away from them."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.lines: list[pg.PlotCurveItem] = []

    def draw(self, pairs: Sequence[tuple[QPointF, pg.TextItem]], color: str) -> None:
        """One line per (point in view coordinates, label) whose label is further than
        LEADER_PX from the point; the others are hidden."""
        vb = self.plot.vb
        sync(vb)
        used = 0
        for point, item in pairs:
            rect = scene_rect(item)
            p = vb.mapViewToScene(point)
            nearest = _nearest(p, rect)
            if (nearest - p).manhattanLength() <= LEADER_PX:
                continue
            if used == len(self.lines):
                line = pg.PlotCurveItem()
                line.setZValue(15)
                self.plot.addItem(line)
                self.lines.append(line)
            end = vb.mapSceneToView(nearest)
            self.lines[used].setData([point.x(), end.x()], [point.y(), end.y()], pen=pg.mkPen(color, width=1))
            self.lines[used].setVisible(True)
            used += 1
        for line in self.lines[used:]:
            line.setVisible(False)
