"""The Roofline chart's labels: the roofs' figures, the step labels and the operations'
names (clustered where points sit close), each inside the plot, none over another, a marker or
a roof; an operation label moved off its point gets a leader line (labels.py; roofline.py draws
the chart)."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QColor

from .labels import LEADER_PX, Leaders, crosses, outside, overlaps, place, scene_rect
from .op_names import short_name
from .palette import DECODE_COLOR, PREFILL_COLOR
from .roofline_fit import ABOVE_PX, SHORT_LEGEND_BELOW_PX, decade_ticks, ridge_beside_peak, top_for_label

if TYPE_CHECKING:
    from .base import ChartBase as _Base
else:
    _Base = object

PHASES = ("prefill", "decode")
PHASE_COLORS = {"prefill": PREFILL_COLOR, "decode": DECODE_COLOR}
CLUSTER = 0.25  # decades (~30 px here): operations closer than this share one label
# The step labels' forms, tried in turn: (one phase a line, detail: 2 with the operations at
# the star, 1 with the bound, 0 the phase alone; the star's tooltip gives what a label leaves out)
FORMS = ((True, 2), (False, 2), (True, 1), (True, 0))


def log_xy(p: dict[str, Any]) -> tuple[float, float]:
    return math.log10(p["intensity"]), math.log10(p["attainable_flops_per_s"] / 1e12)


def clusters(points: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Operations (of both phases) closer than CLUSTER decades, which share one label."""
    groups: list[list[dict[str, Any]]] = []
    for p in sorted(points, key=lambda p: p["intensity"]):
        x, y = log_xy(p)
        for g in groups:
            gx, gy = log_xy(g[-1])
            if abs(gx - x) < CLUSTER and abs(gy - y) < CLUSTER:
                g.append(p)
                break
        else:
            groups.append([p])
    return groups


def text_color(phase: str, dark: bool) -> str:
    """The phase's colour for text: lighter on a dark background, where the mid-tone marker
    colour is too dim to read as small type."""
    return QColor(PHASE_COLORS[phase]).lighter(140).name() if dark else PHASE_COLORS[phase]


def names_html(group: list[dict[str, Any]], dark: bool = False, sep: str = " · ") -> str:
    """The operation names of a cluster, coloured by phase (and named by phase where a cluster
    holds both: "prefill: LM head · decode: mlp, qkv"; ``sep`` between the phases), in the
    words of gui/charts/op_names.py."""
    by_phase = {ph: [short_name(p["name"]) for p in group if p["phase"] == ph] for ph in PHASES}
    by_phase = {ph: names for ph, names in by_phase.items() if names}
    both = len(by_phase) > 1
    return sep.join(
        f"<span style='color:{text_color(ph, dark)}'>{ph + ': ' if both else ''}{', '.join(names)}</span>"
        for ph, names in by_phase.items()
    )


def clashing(items: list[pg.TextItem]) -> list[tuple[pg.TextItem, pg.TextItem]]:
    """The pairs of visible labels that overlap."""
    shown = [x for x in items if x.isVisible()]
    return [(shown[i], shown[j]) for i, j in overlaps(shown)]


def covers(item: pg.TextItem, markers: list[QRectF], roofs: list[QLineF]) -> bool:
    """Whether a label lies over a marker or across a roof (scene pixels)."""
    r = scene_rect(item)
    return any(r.intersects(m) for m in markers) or any(crosses(seg, r) for seg in roofs)


def leader_crosses(item: pg.TextItem, point: QPointF, others: list[QRectF]) -> bool:
    """Whether the leader line from ``point`` (scene pixels) to the label, drawn when longer
    than LEADER_PX (labels.Leaders), runs through another label (the placer's last resort
    allows it: DeepSeek-V3's "attention" at 1024 x 700 was led through "prefill step")."""
    r = scene_rect(item)
    end = QPointF(min(max(point.x(), r.left()), r.right()), min(max(point.y(), r.top()), r.bottom()))
    if (end - point).manhattanLength() <= LEADER_PX:
        return False
    return any(crosses(QLineF(point, end), o) for o in others)


class RooflineLabels(_Base):
    """Mixin of RooflineChart (a ChartBase): the layout of its labels."""

    data: dict[str, Any] | None
    ridge_label: pg.TextItem
    compute_label: pg.TextItem
    memory_label: pg.TextItem
    op_labels: list[pg.TextItem]
    step_labels: dict[str, pg.TextItem]
    leaders: Leaders
    roof: pg.PlotDataItem
    eff_roof: pg.PlotDataItem
    _groups: list[list[dict[str, Any]]]
    _label_args: tuple[float, float, float, float, float]
    _tall: bool
    _detail: int
    _step_html: dict[str, str]
    _short_legend: bool
    _y_base: tuple[float, float]

    def _legend_words(self) -> None:
        raise NotImplementedError

    def points(self, phase: str, step: bool = False) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _step_label(self, ph: str, groups: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
        raise NotImplementedError

    def _place_labels(self, lo: float, hi: float, ridge: float, peak: float, bw: float) -> None:
        d = self.data
        assert d is not None
        for roof in (self.ridge_label, self.compute_label, self.memory_label):
            roof.setVisible(True)  # a short plot hid it (_place_all): shown again to be placed
        self.ridge_label.setText(f"ridge {ridge:,.0f} FLOP/B")
        self.ridge_label.setPos(math.log10(ridge), math.log10(peak))
        # Up-left of the diamond, in the band above the peak with the compute roof's figure:
        # centred on the peak, the slope crossed it and the placer moved it to the plot's
        # bottom at 1024 x 700, far from the ridge.
        self.ridge_label.setAnchor((1.06, 1 + ABOVE_PX / max(self.ridge_label.boundingRect().height(), 1.0)))
        self.compute_label.setText(f"{d.get('dtype', '').upper()} peak {peak:,.0f} TFLOP/s")
        self.compute_label.setPos(math.log10(hi) - 0.05, math.log10(peak))
        # Its bottom clear of a star on the flat roof (a compute-bound step sits on it), so
        # that the placer need not move it off its roof (roofline_fit.ABOVE_PX).
        self.compute_label.setAnchor((1, 1 + ABOVE_PX / max(self.compute_label.boundingRect().height(), 1.0)))
        mx = math.sqrt(lo * ridge)  # up-left of the slope, half-way from the points to the ridge
        self.memory_label.setText(f"memory roof: {bw:,.2f} TB/s")
        self.memory_label.setPos(math.log10(mx), math.log10(bw * mx))
        groups = clusters([p for ph in PHASES for p in self.points(ph)])
        for ph in PHASES:
            groups = self._step_label(ph, groups)
        self._groups = groups
        for i, item in enumerate(self.op_labels):
            item.setVisible(i < len(groups))
            if i < len(groups):
                # Right of and below the last point: under a roof, where nothing is drawn.
                item.setHtml(f"&nbsp;{names_html(groups[i], self.theme.dark)}")
                item.setPos(*log_xy(groups[i][-1]))

    def _layout_labels(self) -> None:
        """Every label inside the plot, none over another or over a marker; an operation
        label moved off its point gets a leader line (labels.py)."""
        if self.data is None or not hasattr(self, "_label_args"):
            return
        if (self.width() < SHORT_LEGEND_BELOW_PX) != self._short_legend:
            self._legend_words()
        self._room_above()
        # The step labels one phase a line (narrow, tall) or on one line (wide, short), with
        # the names of the operations at their star, then shorter (a 244 x 170 px plot at
        # 1024 x 700: the star's tooltip gives the rest): the first form that leaves no label over
        # another, a marker or a roof, else the one with the fewest clashes.
        tried: list[tuple[int, int]] = []
        for n, form in enumerate(FORMS):
            tried.append((self._place_all(*form), n))
            if tried[-1][0] == 0:
                break
        best = min(tried)
        if best is not tried[-1]:
            self._place_all(*FORMS[best[1]])
        stars = [
            (QPointF(*log_xy(step[0])), self.step_labels[ph])
            for ph in PHASES
            if (step := self.points(ph, step=True))
        ]
        self._align_steps()
        self.leaders.draw(
            [
                *(pair for pair in stars if pair[1].isVisible()),
                *(
                    (QPointF(*log_xy(g[-1])), item)
                    for g, item in zip(self._groups, self.op_labels, strict=False)
                    if item.isVisible()
                ),
            ],
            self.theme.muted,
        )

    def _room_above(self) -> None:
        """The plot's top raised so that the compute roof's figure fits above the flat roof
        (roofline_fit.top_for_label); the drawn range again where it already does."""
        vb, (ylo, yhi) = self.plot.vb, self._y_base
        lo, peak = math.log10(ylo), math.log10(self._label_args[3])
        top = top_for_label(lo, math.log10(yhi), peak, vb.height(), scene_rect(self.compute_label).height())
        if abs(vb.viewRange()[1][1] - top) > 1e-9:
            self.plot.setYRange(lo, top, padding=0)
            self.plot.getAxis("left").setTicks([decade_ticks(ylo, 10**top)])

    def _align_steps(self) -> None:
        """Each placed step label's lines flush toward its star: a label the placer moved off
        (Qwen3-Next's decode step at 1400 x 900, its operations' line 480 px wide) had its
        leader end over the blank beside a short centred title. Left-aligned where the star
        is left of the label's middle third, right-aligned where right of it; the box keeps
        its size and place (the text width is unchanged)."""
        vb = self.plot.vb
        for ph, label in self.step_labels.items():
            step, html = self.points(ph, step=True), self._step_html.get(ph, "")
            if not step or not html or not label.isVisible():
                continue
            r, x = scene_rect(label), vb.mapViewToScene(QPointF(*log_xy(step[0]))).x()
            third = r.width() / 3
            align = "left" if x < r.left() + third else "right" if x > r.right() - third else "center"
            width = label.textItem.textWidth()
            label.setHtml(f"<div style='text-align:{align}'>{html}</div>")
            label.setTextWidth(width)

    def _place_all(self, tall: bool, detail: int = 2) -> int:
        """Place every label (step labels ``tall`` or not, with ``detail``: FORMS); returns
        the clashes left: 10 per pair of overlapping labels or label over a marker, 1 per
        label across a roof."""
        assert self.data is not None
        self._tall, self._detail = tall, detail
        self._place_labels(*self._label_args)
        vb = self.plot.vb
        markers = self._marker_rects()
        # The compute roof's figure first: the room above the flat roof is made for it
        # (_room_above), and a step label placed before it took that room at 1024 x 700.
        order = [
            self.compute_label,
            *self.step_labels.values(),
            self.ridge_label,
            self.memory_label,
            *self.op_labels,
        ]
        # Labels and leader lines keep off the roofs too (a MoE's names once ran across the
        # slope at 1280 x 720), and each operation label's leader off other labels.
        anchors = [None] * (len(order) - len(self.op_labels)) + [
            QPointF(*log_xy(g[-1])) for g in self._groups
        ]
        roofs = self._roof_segments()
        ridge_beside_peak(self.ridge_label, self.compute_label, vb)
        place(order, vb, markers, lines=roofs, anchors=anchors)
        self._drop_crowded(order, markers, roofs)
        shown = [x for x in order if x.isVisible()]
        across = sum(any(crosses(seg, scene_rect(x)) for seg in roofs) for x in shown)
        over = sum(scene_rect(x).intersects(m) for x in shown for m in markers)
        return 10 * (len(overlaps(shown)) + over) + across

    def _marker_rects(self) -> list[QRectF]:
        """The markers as scene-pixel squares (stars 22 px, operations 12 px)."""
        assert self.data is not None
        vb, out = self.plot.vb, []
        for p in self.data["points"]:
            if p["intensity"] > 0 and p["attainable_flops_per_s"] > 0:
                c = vb.mapViewToScene(QPointF(*log_xy(p)))
                r = 11.0 if p["name"] == "step" else 6.0
                out.append(QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r))
        return out

    def _drop_crowded(self, order: list[pg.TextItem], markers: list[QRectF], roofs: list[QLineF]) -> None:
        """No room in a short plot (a 1024 x 700 window under a long summary): the operations'
        names go first (the tooltip names them), then the roofs' figures (the roofs stay
        drawn; their figures come back in a taller plot), where they overlap a label, leave
        the plot, lie over a marker or across a roof, or their leader runs through a label;
        the step labels stay."""
        vb = self.plot.vb
        for item in (*reversed(self.op_labels), self.memory_label, self.ridge_label, self.compute_label):
            if item.isVisible() and (
                any(item in pair for pair in clashing(order))
                or outside([item], vb)
                or covers(item, markers, roofs)
            ):
                item.setVisible(False)
        for item, g in zip(self.op_labels, self._groups, strict=False):
            others = [scene_rect(x) for x in order if x.isVisible() and x is not item]
            point = vb.mapViewToScene(QPointF(*log_xy(g[-1])))
            if item.isVisible() and leader_crosses(item, point, others):
                item.setVisible(False)

    def _roof_segments(self) -> list[QLineF]:
        """The roofs (datasheet and with efficiency) as scene-pixel segments."""
        vb, out = self.plot.vb, []
        for curve in (self.roof, self.eff_roof):
            xs, ys = curve.getData()
            if xs is None or len(xs) < 2:
                continue
            pts = [vb.mapViewToScene(QPointF(float(x), float(y))) for x, y in zip(xs, ys, strict=True)]
            out += [QLineF(a, b) for a, b in itertools.pairwise(pts)]
        return out
