"""The Hardware tab's chart: cost per million tokens against speed, on log axes, with the
Pareto front (the options that no other beats on both: the good buys) joined and named, each
front option's evidence band along cost x speed = constant, the selected option ringed, and
a tooltip in words. The tab (charts/hardware.py) adds the table, the controls and the search.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFontMetricsF

from ...core.model.specs import Scenario
from ...core.sizing.compare_rank import speed_of
from ...core.views.settings import HardwareView
from ...io.compare_table import chart_points, is_rl
from ...io.wording import count
from ..hardware.plot import GAP, SIDES, Point, axis_scale, axis_ticks, finer_ticks, place, short_name, to_axis
from .base import ChartBase
from .labels import sync
from .palette import DECODE_COLOR, FONT_PX, LABEL_PX, PREFILL_COLOR, font
from .tick_thin import readable

MAX_LABELS = 8  # front points named on the chart (the table names them all)
# Dots (symbolSize px across, plus their 1 px outline), as labels must keep clear of them.
FRONT_PX, OTHER_PX = 12, 8
# the table's "RL tok/s" column, trained tokens/s over the whole step (the axis is narrow at
# 1280 px: the header's words; the tooltip says which step)
RL_SPEED = "RL tok/s"


def speed_axis(options: list[dict[str, Any]], training: bool) -> str:
    """The speed the chart's x axis shows, the one the table ranks by (compare_rank.speed_of):
    RL options by the whole step's trained tokens per second (the table's "RL tok/s"), not
    the training phase's."""
    if is_rl(options):
        return RL_SPEED
    return "trained tokens/s" if training else "tokens/s per user"


def band_segments(points: list[Point]) -> tuple[list[float], list[float]]:
    """(x, y) pairs in log10 of each option's speed band (core/sizing/option_band.py): the
    option at the slow and the fast edge, its cost per token scaled by 1 / speed."""
    xs: list[float] = []
    ys: list[float] = []
    for x, y, o in points:
        # RL: the dot is the whole step's rate, and the band is of whole published steps
        # (core/sizing/option_band.py), never the training phase's
        key = "tokens_per_second_per_user" if o.get("tokens_per_second_per_user") else "tokens_per_second"
        if o.get("rl_run_seconds") is not None:
            key = "rl_tokens_trained_per_second"
        rng = o.get(f"{key}_range")
        if not rng or rng[0] <= 0:
            continue
        for edge in rng:  # log cost + log speed is constant along the band
            xs.append(math.log10(edge))
            ys.append(y + x - math.log10(edge))
    return xs, ys


def _axis_measures(
    vb: pg.ViewBox, side: str, metrics: QFontMetricsF
) -> tuple[Callable[[float], float], Callable[[str], float]]:
    """A tick value's position along the ``side`` axis and a tick text's extent along it, in
    scene pixels (tick_thin.py): its width on the bottom axis, its height on the left one."""
    if side == "bottom":
        return (lambda v: vb.mapViewToScene(QPointF(v, 0)).x()), metrics.horizontalAdvance
    return (lambda v: -vb.mapViewToScene(QPointF(0, v)).y()), (lambda _t: metrics.height())


NO_PRICE = 'No price on\nthis basis:\nenter prices in\nthe table or\nswitch "Cost\nwhen".'


class CostSpeedChart(ChartBase):
    """The cost-speed plot of :attr:`options` (shown: filtered, priced, ranked)."""

    title = "Cost against speed"
    has_legend = False  # two series: the title says which
    view: HardwareView = HardwareView()
    # set by the tab (charts/hardware.py): its scenario and the options shown
    scenario: Scenario | None
    options: list[dict[str, Any]]

    def _build_plot(self) -> None:
        """The plot's items (call from ``_build``)."""
        # log10 values on linear axes with our own ticks (pyqtgraph's log mode labels minor
        # ticks that overlap in a narrow chart); an axis with a 0 (a price of 0) is linear
        self.others = self.plot.plot([], [], pen=None, symbol="o", symbolSize=OTHER_PX)
        self.front_line = self.plot.plot([], [])
        self.front = self.plot.plot([], [], pen=None, symbol="o", symbolSize=FRONT_PX)
        # each front option's evidence band: where runs like it landed, along cost x speed = const
        self.bands = self.plot.plot([], [], connect="pairs")
        self.mark = self.plot.plot([], [], pen=None, symbol="o", symbolSize=22)
        self.note = self.text_item(anchor=(0.5, 0.5))
        self.labels: list[pg.TextItem] = []
        self._pts: list[Point] = []
        self._front: list[Point] = []
        self._scales = ("log", "log")  # speed, cost axes (gui/hardware/plot.py axis_scale)
        self._ticks: dict[str, list[tuple[float, str]]] = {}  # each axis's, before thinning
        self._spans: dict[str, tuple[float, float, str]] = {}  # each axis's values: lo, hi, scale
        self._cost_titles: tuple[str, ...] = ("",)
        for side in ("left", "bottom"):  # log10 values: no "(x0.001)" on the axis title
            self.plot.getAxis(side).enableAutoSIPrefix(False)
            # No figures yet (the first comparison runs for seconds): "-1.0 ... 1.0" under
            # "Comparing…" read as a scale; the figures' ticks come with them.
            self.plot.getAxis(side).setTicks([[]])

    def _redraw(self) -> None:
        raw = chart_points(self.options)
        self._scales = sx, sy = axis_scale([p[0] for p in raw]), axis_scale([p[1] for p in raw])
        pts = [(to_axis(x, sx), to_axis(y, sy), o) for x, y, o in raw]
        front = sorted((p for p in pts if p[2]["pareto"]), key=lambda p: p[0])
        rest = [p for p in pts if not p[2]["pareto"]]
        for item, group in ((self.others, rest), (self.front, front), (self.front_line, front)):
            item.setData([p[0] for p in group], [p[1] for p in group])
        self._pts, self._front = pts, front
        self.bands.setData(*band_segments(front))
        training = self.scenario is not None and self.scenario.workload.trains
        basis = "renting" if self.view.basis == "cloud" else "owning"
        self.set_axis_label("bottom", speed_axis(self.options, bool(training)))
        # the cost axis's title, long to short: the first that fits the plot's height is shown
        self._cost_titles = (f"$ per M tokens, {basis}", f"$/M tok, {basis}", "$/M tok")
        self.set_axis_label("left", self._cost_titles[0])
        self.note.setVisible(not pts)
        if pts:
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            for axis, values, scale in (("bottom", raw, sx), ("left", raw, sy)):
                at = [v[0] if axis == "bottom" else v[1] for v in values]
                self._ticks[axis] = axis_ticks(min(at), max(at), scale)
                self._spans[axis] = (min(at), max(at), scale)
                self.plot.getAxis(axis).setTicks([self._ticks[axis]])
            # An explicit range (5% of the span each side), so labels are placed against the
            # range drawn, measured in pixels by the view box.
            self.plot.setRange(xRange=(min(xs), max(xs)), yRange=(min(ys), max(ys)), padding=0.05)
        else:
            # short lines: the chart beside the table is narrow at 1280 px. No option at all
            # (the comparison still runs, or nothing passes the filters) is not a missing
            # price: the title says which; "No price on this basis" under "Comparing…" misled.
            self.note.setText(NO_PRICE if self.options else "")
            self.note.setPos(0, 0)
            self.plot.setRange(xRange=(-1, 1), yRange=(-1, 1))
            for axis in ("bottom", "left"):  # no figures: no scale (as before the first)
                self._ticks[axis] = []
                self.plot.getAxis(axis).setTicks([[]])
        self._mark()

    def _layout_labels(self) -> None:
        """Name the front's points where the names fit without overlapping a dot or another
        name: positions in pixels from ``ViewBox.mapViewToScene`` (the range as drawn)."""
        front, vb = self._front[:MAX_LABELS], self.plot.vb
        while len(self.labels) < len(front):
            self.labels.append(self.text_item(pixels=LABEL_PX - 2, boxed=False))
        for item in self.labels[len(front) :]:
            item.hide()
        self._thin_ticks()
        if not front:
            return
        sync(vb)
        area = vb.sceneBoundingRect()

        def pixel(p: Point) -> tuple[float, float]:  # from the plot's bottom-left, y up
            s = vb.mapViewToScene(QPointF(p[0], p[1]))
            return s.x() - area.left(), area.bottom() - s.y()

        markers = [(*pixel(p), (FRONT_PX if p[2]["pareto"] else OTHER_PX) / 2 + 1.5) for p in self._pts]
        widths = []
        for item, (_x, _y, o) in zip(self.labels, front, strict=False):
            item.setText(short_name(o))
            widths.append(item.textItem.boundingRect().width())
        height = self.labels[0].textItem.boundingRect().height()
        sides = place([pixel(p) for p in front], widths, height, (area.width(), area.height()), markers)
        for item, p, side in zip(self.labels, front, sides, strict=False):
            item.setVisible(side is not None)
            if side is not None:
                _, (gx, gy), anchor = SIDES[side]
                at = vb.mapViewToScene(QPointF(p[0], p[1]))
                item.setAnchor(anchor)
                item.setColor(self.theme.foreground)
                item.setPos(vb.mapSceneToView(QPointF(at.x() + gx * GAP, at.y() - gy * GAP)))

    def _thin_ticks(self) -> None:
        """Each axis's ticks in view, those that run into a neighbour left out (tick_thin.py);
        the cost axis's title as long as the plot's height takes (a 48 px plot at 1024 x 700
        cut "$ per M tokens, renting" at both ends; "$/M tok" is the table's header)."""
        if not self._pts:
            return
        vb = self.plot.vb
        sync(vb)
        room = vb.sceneBoundingRect().height()
        title_font = QFontMetricsF(font(LABEL_PX))
        fits = [t for t in self._cost_titles if title_font.horizontalAdvance(t) <= room]
        self.set_axis_label("left", (fits or self._cost_titles[-1:])[0])
        self.plot.getAxis("left").setToolTip(self._cost_titles[0])  # a shortened title's whole
        for side in self._ticks:
            axis = self.plot.getAxis(side)
            kept = self._readable_ticks(side, QFontMetricsF(axis.style["tickFont"] or font(FONT_PX)))
            if axis._tickLevels != [kept]:  # set only on a change: setTicks repaints the axis
                axis.setTicks([kept])

    def _readable_ticks(self, side: str, metrics: QFontMetricsF) -> list[tuple[float, str]]:
        """The axis's ticks whose texts lie inside the axis (pyqtgraph drops a text that
        overflows it) and clear of each other, from the first set, coarse to fine
        (hardware/plot.py finer_ticks), of which two are kept: any range is read."""
        vb = self.plot.vb
        pos, size = _axis_measures(vb, side, metrics)
        (x0, x1), (y0, y1) = vb.viewRange()
        lo, hi = (x0, x1) if side == "bottom" else (y0, y1)
        # pyqtgraph lets the left axis's texts pass its ends by 15 px (AxisItem.boundingRect
        # of an axis with hideOverlappingLabels off), the bottom axis's by none
        slack = 0 if side == "bottom" else 15
        ends = sorted((pos(lo), pos(hi)))
        ends = [ends[0] - slack, ends[1] + slack]
        # every other one is tried too (tick_thin.readable): thinning keeps 100 first, and 80
        # and 120 then fall beside it on a 95 px axis (a llama.cpp case's 71-149 tok/s showed
        # "100" alone)
        return readable(finer_ticks(*self._spans[side]), pos, size, (ends[0], ends[1]))

    def selected_option(self) -> dict[str, Any] | None:
        """The option the user selected (the tab's table row), ringed on the chart."""
        return None

    def _mark(self) -> None:
        o = self.selected_option() if self.has_data else None
        x = speed_of(o) if o is not None and o["fits"] else None
        y = o["cost_per_million_tokens"] if o is not None and x else None
        sx, sy = self._scales
        if x is not None and y is not None and x > 0:
            self.mark.setData([to_axis(x, sx)], [to_axis(y, sy)])
        else:
            self.mark.setData([], [])

    def _restyle_items(self) -> None:
        t = self.theme
        self.others.setSymbolBrush(pg.mkBrush(t.qcolor("muted", 200)))
        self.others.setSymbolPen(pg.mkPen(t.muted))
        self.front.setSymbolBrush(pg.mkBrush(PREFILL_COLOR))
        self.front.setSymbolPen(pg.mkPen(t.foreground, width=1))
        self.front_line.setPen(pg.mkPen(PREFILL_COLOR, width=2, style=Qt.PenStyle.DashLine))
        self.bands.setPen(pg.mkPen(t.qcolor("muted", 220), width=3))
        self.mark.setSymbolBrush(None)
        self.mark.setSymbolPen(pg.mkPen(DECODE_COLOR, width=2.5))
        for item in self.labels:
            item.setColor(t.foreground)

    def tooltip_at(self, x: float, y: float) -> str:
        """The option under the pointer (within ~10 px), on the front or not, in words."""
        px, py = self.plot.vb.viewPixelSize()
        best, where = None, 10.0
        for sx, sy, o in self._pts:
            d = math.hypot((sx - x) / (px or 1), (sy - y) / (py or 1))
            if d < where:
                best, where = o, d
        if best is None:
            return ""
        unit = f"{RL_SPEED} (whole step)" if best.get("rl_run_seconds") is not None else "tokens/s"
        return (
            f"<b>{best['gpu_name']}</b>{' — Pareto front' if best['pareto'] else ''}<br>"
            f"{count(best['gpus'], 'GPU')}, {best['layout']}<br>"
            f"{speed_of(best):,.1f} {unit} · "
            f"${best['cost_per_million_tokens']:,.2f} "
            f"per million tokens"
        )
