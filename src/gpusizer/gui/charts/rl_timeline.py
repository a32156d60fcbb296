"""One RL step on a time line (core/views/rl_timeline.py): generation, log-prob scoring,
training, the weight sync and, colocated, the engine's sleep and wake and the training states'
trips to and from host memory, each a bar from its start to its end on its pool's lane.

The time line is the chart's own data (a view of the estimate's ``rl`` block, computed by
``rl_timeline``); in the window it is computed in the chart's worker (charts/background.py).
"""

from __future__ import annotations

import html
from typing import Any

import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF

from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.views.rl_timeline import GROUP_LABELS, GROUPS, Timeline, rl_timeline
from ...io.wording import duration
from ..elide import labelled
from .background import WorkerChart
from .base import ChartBase
from .palette import DECODE_COLOR, FONT_PX, PREFILL_COLOR, font
from .time_axis import time_ticks, time_unit

# One colour per group (generation, scoring, training, weights, moves)
GROUP_COLORS = {
    "generation": PREFILL_COLOR,
    "scoring": "#f28e2b",
    "training": "#59a14f",
    "weights": DECODE_COLOR,
    "moves": "#b07aa1",
}
LANE_LABELS = {"shared": "shared GPUs", "rollout": "rollout pool", "training": "training pool"}
HEIGHT = 0.6  # of a lane
MIN_LABEL_SHARE = 0.07  # a segment this share of the step or longer carries its name
ON_BAR = "#ffffff"  # names on the saturated bar colours, in either theme
# px the time line keeps beside its legend, else the legend goes under it (items.LegendSlot):
# at 1366 x 768 the 870 px chart kept a 390 px plot beside its 370 px legend, the segments'
# names cut, with room under the plot for the legend's two rows (docs/evidence/surfaces.md)
MIN_PLOT_BESIDE_LEGEND_PX = 600.0
# px a segment is drawn at least: at 1024 x 768 a PPO step's 0.6 s weight sync (of 235 s) was
# under a pixel, hidden by its bar's 1 px outline, while the legend still named it
MIN_BAR_PX = 3.0


class RLTimelineChart(WorkerChart, ChartBase):
    """Horizontal bars, one lane per pool; one bar item per group (its legend entry)."""

    title = "RL step"
    grid_x = True

    def _build(self) -> None:
        self.data: Timeline | None = None
        self.model_name = ""
        self.bars: dict[str, pg.BarGraphItem] = {}
        for group in GROUP_LABELS:
            item = pg.BarGraphItem(x0=[], y=[], height=HEIGHT, width=[])
            self.plot.addItem(item)
            self.bars[group] = item
        self.labels: list[pg.TextItem] = []  # made as segments need them, reused after
        self._named: list[tuple[pg.TextItem, float]] = []  # (label, its segment's seconds)
        self._spans: dict[str, list[tuple[float, float]]] = {}  # each group's (start, seconds)
        self._drawn: dict[str, list[float]] = {}  # widths as drawn, thin ones widened (_widen_thin)
        self._end = 1.0  # seconds: the time axis's span
        self.plot.setMouseEnabled(x=False, y=False)
        self.slot.MIN_PLOT_WIDTH = MIN_PLOT_BESIDE_LEGEND_PX

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        self.data = rl_timeline(scenario)
        self.model_name = scenario.model.name

    def update_from(self, scenario: Scenario, estimate: Estimate) -> None:
        """In the window the time line is computed in a worker (charts/background.py)."""
        if not self.background:
            super().update_from(scenario, estimate)
            return
        self.model_name = labelled(scenario, estimate)[0].model.name
        self._in_worker(rl_timeline, scenario)

    def _show_data(self, data: Timeline) -> None:
        self.data = data

    def _lane(self, lane: str) -> int:
        """Lanes from the top: the first lane has the largest y."""
        assert self.data is not None
        return len(self.data.lanes) - 1 - self.data.lanes.index(lane)

    def _label(self, i: int) -> pg.TextItem:
        while len(self.labels) <= i:
            label = self.text_item(anchor=(0.5, 0.5), boxed=False)
            label.setColor(ON_BAR)
            self.labels.append(label)
        return self.labels[i]

    def _redraw(self) -> None:
        d = self.data
        assert d is not None
        for group, item in self.bars.items():
            segs = [s for s in d.segments if s.group == group and s.seconds > 0]
            item.setOpts(
                x0=[s.start for s in segs],
                y=[self._lane(s.lane) for s in segs],
                width=[s.seconds for s in segs],
                height=HEIGHT,
            )
            item.setVisible(bool(segs))
            self._spans[group] = [(s.start, s.seconds) for s in segs]
        self._drawn = {}
        wide = [s for s in d.segments if d.step_seconds and s.seconds >= MIN_LABEL_SHARE * d.step_seconds]
        self._named = []
        for i, s in enumerate(wide):
            label = self._label(i)
            label.setText(s.name.replace("_", " "))
            label.setPos(s.start + s.seconds / 2, self._lane(s.lane))
            self._named.append((label, s.seconds))
        for label in self.labels[len(wide) :]:
            label.setVisible(False)
        end = max((s.end for s in d.segments), default=1.0) or 1.0
        self.plot.setXRange(0, end, padding=0.02)
        self.plot.setYRange(-0.6, len(d.lanes) - 0.4, padding=0)
        ticks = [(self._lane(lane), LANE_LABELS.get(lane, lane)) for lane in d.lanes]
        self.plot.getAxis("left").setTicks([ticks])
        self._end = end
        self.set_axis_label("bottom", f"{time_unit(end)[1]} from the step's start")
        self.set_axis_label("left", "")
        moves = sum(s.seconds for s in d.segments if s.group == "moves")
        extra = f" ({duration(moves)} of sleep, wake and state moves)" if moves else ""
        self.set_title(
            f"{html.escape(self.model_name)}: one RL step ({d.placement}), {duration(d.step_seconds)}{extra}"
        )
        shown = {s.group for s in d.segments if s.seconds > 0}
        self.set_legend([(self.bars[g], GROUP_LABELS[g]) for g in GROUP_LABELS if g in shown])

    def _layout_labels(self) -> None:
        """The time axis's ticks for the plot's width (time_axis.py), set only on a change:
        setTicks repaints the axis."""
        axis = self.plot.getAxis("bottom")
        ticks = time_ticks(self.plot, self._end, QFontMetricsF(axis.style["tickFont"] or font(FONT_PX)))
        if axis._tickLevels != [ticks]:
            axis.setTicks([ticks])
        self._fit_names()

    def _fit_names(self) -> None:
        """A segment's name only where it fits inside its bar at this width: at 1,400 px a 14 %
        "log probs" segment was narrower than its words, which ran over both neighbours (the
        legend and the tooltip still name it)."""
        px = self.plot.vb.viewPixelSize()[0]  # seconds per pixel
        self._widen_thin(px)
        for label, seconds in self._named:
            wide = label.textItem.boundingRect().width() + 4 <= seconds / px if px > 0 else False
            label.setVisible(wide)

    def _widen_thin(self, px: float) -> None:
        """Each segment drawn at least :data:`MIN_BAR_PX` wide at this width (``px``: seconds
        per pixel; none before the chart is shown), so every group the legend names shows; a
        widened one ends no later than the step, and the tooltip and the data keep its own
        seconds. Set only on a change: setOpts repaints the bars."""
        floor = MIN_BAR_PX * px if px > 0 and self.isVisible() else 0.0
        for group, spans in self._spans.items():
            widths = [max(sec, floor) for _start, sec in spans]
            if widths != self._drawn.get(group):
                self._drawn[group] = widths
                x0 = [
                    min(start, self._end - w) if w > sec else start
                    for (start, sec), w in zip(spans, widths, strict=True)
                ]
                self.bars[group].setOpts(x0=x0, width=widths)

    def _restyle_items(self) -> None:
        for group, item in self.bars.items():
            item.setOpts(brush=pg.mkBrush(GROUP_COLORS[group]), pen=pg.mkPen(self.theme.background, width=1))
        if self.has_data:
            self._redraw()

    def tooltip_at(self, x: float, y: float) -> str:
        d = self.data
        if d is None:
            return ""
        for s in d.segments:
            if s.start <= x <= s.end and abs(self._lane(s.lane) - y) <= HEIGHT / 2:
                share = s.seconds / d.step_seconds if d.step_seconds else 0.0
                name = s.name.replace("_", " ")
                return f"{name}: {s.seconds:,.2f} s ({share:.0%} of the step), from {s.start:,.2f} s"
        return ""

    def data_rows(self) -> list[list[Any]]:
        rows: list[list[Any]] = [["name", "group", "lane", "start_seconds", "seconds"]]
        if self.data is not None:
            rows += [[s.name, s.group, s.lane, s.start, s.seconds] for s in self.data.segments]
        return rows


assert set(GROUP_COLORS) == set(GROUP_LABELS) == set(GROUPS.values())  # a new group needs a colour
