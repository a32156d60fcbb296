"""Users against context: how many requests of C tokens the serving engine holds at once.

The curve is the engine's own (core/views/capacity.py: each context runs the engine's memory rule,
so vLLM's refusal beyond the longest context its pool holds, the V0 profile pass growing with
max_model_len and llama.cpp's offload all show); the area under it fits. The scenario is a
point: its users at its prompt + output tokens, green under the curve, red above it. Where the
engine starts at no context at all, the chart says so and why (the engine's own reason), rather
than drawing an empty plot with one dot.

This chart computes its data (``capacity_curve``: the engine's rule at each context) rather
than reading the Estimate: the curve is its data, and the Estimate holds one point of it
(tests/test_views_do_not_compute.py allows it).
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import pyqtgraph as pg

from ...core.evidence.confidence import memory_evidence
from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.views.capacity import CapacityCurve, capacity_curve
from ...io.wording import count
from .base import ChartBase
from .labels import PAD, place, scene_rect
from .line_label import fit_line_label
from .palette import LABEL_PX, font
from .sweep import log2_ticks
from .ticks import thinned


def _log(v: float) -> float:
    return math.log10(max(v, 1.0))


def count_ticks(top: float) -> list[tuple[float, str]]:
    """1, 2, 5, 10, 20, 50... up to ``top`` (log10 positions): pyqtgraph's own log ticks
    print 3·10² and crowd the minor steps."""
    out, k = [], 0
    while 10**k <= top * 1.01:
        out += [(math.log10(m * 10**k), f"{m * 10**k:,}") for m in (1, 2, 5) if m * 10**k <= top * 1.01]
        k += 1
    return out


class CapacityChart(ChartBase):
    """The capacity curve (log-log), the fitting area, the scenario's point."""

    title = "Users vs context"

    def _build(self) -> None:
        self.curve_data: CapacityCurve | None = None
        self.plot.setLogMode(x=True, y=True)
        self.curve = self.plot.plot([], [], connect="finite")
        self.fill = self.plot.plot([], [], pen=pg.mkPen((0, 0, 0, 0)))
        self.point = pg.ScatterPlotItem(size=12)
        self.point.setZValue(15)
        self.plot.addItem(self.point)
        self.point_label = self.text_item((0, 1))
        self.limit = pg.InfiniteLine(
            angle=90, movable=False, label="", labelOpts={"position": 0.9, "anchors": [(1, 0.5), (1, 0.5)]}
        )
        self.limit.setZValue(10)
        self.plot.addItem(self.limit)
        self.note = self.text_item((0.5, 0.5), pixels=LABEL_PX + 1)
        self.x_ticks: list[tuple[float, str]] = []  # every power of two, before thinning
        self.reason = ""
        self.plot.setMouseEnabled(x=False, y=False)

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        self.curve_data = capacity_curve(scenario)
        self.gpu_name = estimate.gpu.name
        self.model_name = scenario.model.name
        # the memory band of the engine's regime: a pool of K tokens held K / p90 to K / p10 in
        # published runs like this one (core/evidence), and the users it holds scale with it
        self.band = memory_evidence(scenario, estimate.gpu).band
        sv = estimate.serving
        self.reason = (sv.reason or "") if sv is not None and not sv.starts else ""

    def longest(self) -> int | None:
        """The longest context at which the engine still starts (None: every one)."""
        c = self.curve_data
        assert c is not None
        ok = [x for x, u in zip(c.contexts, c.users, strict=True) if u > 0]
        return max(ok) if ok and ok[-1] != c.contexts[-1] else None

    def headline(self) -> str:
        c = self.curve_data
        assert c is not None
        fit = c.users_at(c.context)
        verdict = "fits" if c.concurrency <= fit else "does not fit"
        # The title is rich text: names from a shared file are escaped
        return (
            f"{html.escape(self.model_name)}: {html.escape(c.engine)} on "
            f"{html.escape(self.gpu_name)}, max context set to each request: {fit:,} "
            f"users{self._band_users(fit)} at {c.context:,} tokens each; your {c.concurrency:,} {verdict}"
        )

    def _band_users(self, fit: int) -> str:
        """`` (412-470 in runs like this)``: the users at the memory band's edges."""
        rng = self.band.size_range(fit) if fit and getattr(self, "band", None) else None
        return f" ({math.floor(rng[0]):,}-{math.floor(rng[1]):,} in runs like this)" if rng else ""

    def never_starts(self) -> bool:
        """Whether the engine starts at no context of the curve."""
        return self.curve_data is not None and not any(self.curve_data.users)

    def _show_never(self) -> None:
        """No curve to draw: the engine's reason in the plot, in place of one lonely dot."""
        c = self.curve_data
        assert c is not None
        for item in (self.curve, self.fill, self.point, self.point_label, self.limit):
            item.setVisible(False)
        reason = self.reason or "its weights and buffers leave no memory for the KV cache"
        self.note.setTextWidth(-1)
        self.note.setHtml(
            f"<div style='color:{self.theme.bad}'><b>{html.escape(c.engine)} does not start on "
            f"{html.escape(self.gpu_name)} at any context</b></div>"
            f"<div style='color:{self.theme.foreground}'>{html.escape(reason)}</div>"
        )
        width = max(self.plot.vb.sceneBoundingRect().width() * 0.85, 200.0)
        self.note.setTextWidth(min(width, self.note.textItem.document().idealWidth()))
        self.note.setVisible(True)
        self.plot.setXRange(0, 1, padding=0)
        self.plot.setYRange(0, 1, padding=0)
        self.note.setPos(0.5, 0.5)
        self.plot.getAxis("bottom").setTicks([[]])
        self.plot.getAxis("left").setTicks([[]])
        self.set_title(
            f"{html.escape(self.model_name)}: {html.escape(c.engine)} on {html.escape(self.gpu_name)} "
            "holds no requests (see GPUs needed above)"
        )
        self.set_legend([])
        self.legend.setVisible(False)  # nothing drawn: no empty legend frame

    def _redraw(self) -> None:
        c = self.curve_data
        assert c is not None
        if self.never_starts():
            self._show_never()
            return
        self.note.setVisible(False)
        self.legend.setVisible(True)
        for item in (self.curve, self.fill, self.point, self.point_label):
            item.setVisible(True)
        x = np.asarray(c.contexts, dtype=float)
        y = np.asarray(c.users, dtype=float)
        y_plot = np.where(y > 0, y, np.nan)
        self.curve.setData(x, y_plot, connect="finite")
        self.fill.setData(x, np.where(y > 0, y, 1.0), fillLevel=0.0)
        fit = c.users_at(c.context)
        good = c.concurrency <= fit
        t = self.theme
        self.point.setData(
            [_log(c.context)],
            [_log(c.concurrency)],
            brush=pg.mkBrush(t.good if good else t.bad),
            pen=pg.mkPen(t.foreground),
        )
        self.point_label.setText(f" your {count(c.concurrency, 'user')} × {c.context:,} tokens")
        self.point_label.setPos(_log(c.context), _log(c.concurrency))
        longest = self.longest()
        self.limit.setVisible(longest is not None)
        if longest is not None:
            self.limit.setValue(_log(longest))
        top = max(float(np.nanmax(y_plot, initial=1.0)), c.concurrency, 2.0)
        self.plot.setXRange(_log(x[0]), _log(x[-1]), padding=0.02)
        self.plot.setYRange(-0.08, _log(top) * 1.15 + 0.1, padding=0)
        self.x_ticks = log2_ticks(x[0], x[-1])
        self._thin_ticks()
        self.plot.getAxis("left").setTicks([count_ticks(top * 1.3)])
        self.set_axis_label("bottom", "tokens per request (prompt + output)")
        self.set_axis_label("left", "requests held at once")
        self.set_title(self.headline())
        self.set_legend([(self.curve, f"{c.engine}: users that fit")])
        self._layout_labels()

    def _layout_labels(self) -> None:
        """The limit's label whole inside the plot (charts/line_label.py), then the point's
        label beside its point, never over the limit's."""
        c = self.curve_data
        if c is not None and self.never_starts():
            self._fit_note()
        if c is None or self.never_starts():
            return
        self._thin_ticks()  # the plot's width may have changed
        self.point_label.setPos(_log(c.context), _log(c.concurrency))  # place() moves it from there
        longest = self.longest()
        fixed = []
        if longest is not None and self.limit.isVisible():
            fit_line_label(self.limit, f"does not start above {longest:,} tokens")
            fixed = [scene_rect(self.limit.label)]
        place([self.point_label], self.plot.vb, fixed)

    def _thin_ticks(self) -> None:
        """The powers of two that fit the plot's width (charts/ticks.py): at 1024 x 700 beside
        its legend the 210 px axis read "16k32k64k"."""
        (lo, hi), width = self.plot.vb.viewRange()[0], self.plot.vb.width()
        per_unit = width / (hi - lo) if hi > lo else 0.0
        self.plot.getAxis("bottom").setTicks([thinned(self.x_ticks, per_unit)])

    def _fit_note(self) -> None:
        """The engine's reason as wide as the plot lets it be (its width was set before the
        plot had its size: 200 px in a 510 px plot at 1024 x 700, where the text then ran
        past the plot's top and bottom); still taller than the plot, it starts at the top,
        so the headline stays in sight."""
        area = self.plot.vb.sceneBoundingRect()
        self.note.setTextWidth(-1)
        ideal = self.note.textItem.document().idealWidth()
        self.note.setTextWidth(min(max(area.width() - 2 * PAD, 100.0), ideal))
        tall = scene_rect(self.note).height() > area.height() - 2 * PAD
        self.note.setAnchor((0.5, 0.0) if tall else (0.5, 0.5))
        self.note.setPos(0.5, 1.0 if tall else 0.5)

    def _restyle_items(self) -> None:
        t = self.theme
        self.curve.setPen(pg.mkPen(t.foreground, width=2.5))
        self.fill.setBrush(pg.mkBrush(t.qcolor("good", 60)))
        self.limit.setPen(pg.mkPen(t.bad, width=1.5))
        self.limit.label.setColor(t.bad)
        self.limit.label.setFont(font(LABEL_PX))
        if self.has_data:
            self._redraw()

    def tooltip_at(self, x: float, y: float) -> str:
        c = self.curve_data
        if c is None:
            return ""
        tokens = 10**x
        i = int(np.argmin([abs(math.log10(v) - x) for v in c.contexts]))
        users = c.users[i]
        return (
            f"{c.contexts[i]:,} tokens per request: "
            + (f"{users:,} requests at once" if users else "the engine does not start")
            if tokens > 0
            else ""
        )

    def data_rows(self) -> list[list[Any]]:
        c = self.curve_data
        rows: list[list[Any]] = [["tokens_per_request", "requests_at_once"]]
        if c is not None:
            rows += [[x, u] for x, u in zip(c.contexts, c.users, strict=True)]
        return rows
