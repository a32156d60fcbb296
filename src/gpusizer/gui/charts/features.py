"""Output tokens/s against users with the scenario's serving features and without them
(core/views/features.py): the gap is what prefix caching, speculative decoding, LoRA slots or
KV offload change, and where it closes (speculative decoding as the batch grows). A split
prefill / decode deployment draws its own curve beside the aggregated one, its pools named."""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFontMetricsF

from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.views.features import FeatureCurve, feature_curve
from ...io.wording import count
from ..elide import labelled
from .background import WorkerChart
from .base import ChartBase
from .palette import LABEL_PX
from .sweep import log2_ticks
from .ticks import group_thousands, thinned

# The Serving panel's names of the blocks (its rows' captions), not the field ids: the legend
# read "with lora" and "with kv_offload" beside the panel's "LoRA adapters" and "KV offload"
FEATURE_NAMES = {
    "prefix": "shared prefix",
    "speculative": "speculative decoding",
    "lora": "LoRA adapters",
    "kv_offload": "KV offload",
}


def feature_names(active: tuple[str, ...]) -> str:
    """The features in the panel's words, in the chart's order (an unknown id as it is)."""
    return ", ".join(FEATURE_NAMES.get(f, f) for f in active)


# Tableau 10's orange (the categorical palette of gui/colors.py): apart from "with" (the theme's
# green) and "without" (its grey) in light and dark mode
SPLIT_COLOR = "#f28e2b"


class FeaturesChart(WorkerChart, ChartBase):
    """Curves of total output tokens/s (log users): with the features, without them, and the
    split P/D deployment where one is set."""

    title = "Serving features"

    def _build(self) -> None:
        self.data: FeatureCurve | None = None
        self.plot.setLogMode(x=True, y=False)
        self.with_curve = self.plot.plot([], [], symbol="o", symbolSize=6)
        self.without_curve = self.plot.plot([], [], symbol="o", symbolSize=5)
        self.split_curve = self.plot.plot([], [], symbol="s", symbolSize=6)
        self.note = self.text_item((0.5, 0.5), pixels=LABEL_PX + 1)  # why no curve rises
        self.note.setVisible(False)
        self.plot.setMouseEnabled(x=False, y=False)
        group_thousands(self.plot.getAxis("left"))
        self.engine = ""
        self.model_name = ""
        self.gpus = 1
        self.x_ticks: list[tuple[float, str]] = []  # every power of two, before thinning

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        self.data = feature_curve(scenario)
        self._names(scenario, estimate)

    def _names(self, scenario: Scenario, estimate: Estimate) -> None:
        shown, _ = labelled(scenario, estimate)  # long names elided before any text layout
        self.engine = scenario.profile.label
        self.gpu_name = estimate.gpu.name
        self.model_name = shown.model.name
        self.gpus = estimate.gpus  # a replica's, the aggregated curve's

    def update_from(self, scenario: Scenario, estimate: Estimate) -> None:
        """In the window the curve's estimates (one per user count, each a load simulation)
        run in a worker (charts/background.py), as the Training vs inference chart's do."""
        if not self.background:
            super().update_from(scenario, estimate)
            return
        self._names(scenario, estimate)
        self._in_worker(feature_curve, scenario)

    def _show_data(self, curve: FeatureCurve) -> None:
        self.data = curve

    def headline(self) -> str:
        c = self.data
        assert c is not None
        head = (
            f"{html.escape(self.model_name)} under {html.escape(self.engine)} on "
            f"{html.escape(self.gpu_name)}: output tokens/s against users"
        )
        i, users = c.users.index(c.concurrency), count(c.concurrency, "user")
        if (c.split or c.active) and not c.with_features[i]:  # no tokens/s to compare
            return f"{head}; at your {users} the engine does not start as set (see the verdict)"
        if c.split:
            return f"{head}; at your {users} {self._pools()}: {c.split[i]:,.0f} tokens/s"
        if not c.active:
            return head + " (no serving feature set: the Serving panel's prefix, speculative, LoRA, offload)"
        base, got = c.without[i], c.with_features[i]
        gain = f"{got / base:.2f}x" if base else "n/a"
        return f"{head}; at your {users} {gain} with {feature_names(c.active)}"

    def _pools(self) -> str:
        c = self.data
        assert c is not None
        return f"split P/D on {c.split_gpus[0]:,} prefill + {count(c.split_gpus[1], 'decode GPU')}"

    def _redraw(self) -> None:
        c = self.data
        assert c is not None
        x = np.asarray(c.users, dtype=float)
        self.without_curve.setData(x, np.asarray(c.without, dtype=float))
        self.with_curve.setData(x, np.asarray(c.with_features, dtype=float))
        self.split_curve.setData(x, np.asarray(c.split or [0.0] * len(x), dtype=float))
        # At least 1 token/s: where the engine starts at no user count every curve is 0 and a
        # (0, 0) range read as -400 to 400 "x0.001" tokens/s around a flat line.
        top = max(*c.with_features, *c.without, *c.split, 1.0)
        self._x_range()
        self.plot.setYRange(0, top * 1.1, padding=0)
        self.x_ticks = log2_ticks(x[0], x[-1])
        self._thin_ticks()
        self.set_axis_label("bottom", "users (steady, per replica)")
        self.set_title(self.headline())
        plain = "without the features" if c.active else f"aggregated on {count(self.gpus, 'GPU')}"
        entries = [(self.without_curve, plain)]
        if c.active:
            entries.insert(0, (self.with_curve, "with " + feature_names(c.active)))
        if c.split:
            entries.append((self.split_curve, self._pools()))
        self.set_legend(entries)
        none_start = top == 1.0 and not any((*c.with_features, *c.without, *c.split))
        self._empty_state(none_start)
        self._show_note(none_start)

    def _empty_state(self, none_start: bool) -> None:
        """Where the engine starts at no user count there are no tokens/s: the note says so and
        the tokens/s axis, its 0-1 range a scale of nothing, the flat curves on 0 and their
        legend are hidden (as the Users vs context chart's no-start state, charts/capacity.py)."""
        c = self.data
        assert c is not None
        self.plot.getAxis("left").setTicks([[]] if none_start else None)
        self.set_axis_label("left", "" if none_start else "output tokens/s")
        self.without_curve.setVisible(not none_start)
        self.with_curve.setVisible(bool(c.active) and not none_start)
        self.split_curve.setVisible(bool(c.split) and not none_start)
        self.legend.setVisible(not none_start)

    def _show_note(self, none_start: bool) -> None:
        """Where the engine starts at no user count every curve lies flat on 0 and the chart
        read as empty (seen at 1366 x 768): the plot says so, and where to read why."""
        self.note.setVisible(none_start)
        c = self.data
        if not none_start or c is None:
            return
        self.note.setTextWidth(-1)
        self.note.setHtml(
            f"<div style='color:{self.theme.bad}'><b>{html.escape(self.engine)} starts at none of "
            f"these user counts: no tokens/s to draw</b></div><div style='color:"
            f"{self.theme.foreground}'>the verdict above says why; GPUs needed, how many it takes</div>"
        )
        width = max(self.plot.vb.sceneBoundingRect().width() * 0.85, 200.0)
        self.note.setTextWidth(min(width, self.note.textItem.document().idealWidth()))
        mid = (math.log10(c.users[0]) + math.log10(c.users[-1])) / 2  # the x axis is log10
        self.note.setPos(mid, 0.55)

    def _thin_ticks(self) -> None:
        """The users' ticks that fit the plot's width (charts/ticks.py)."""
        (lo, hi), width = self.plot.vb.viewRange()[0], self.plot.vb.width()
        per_unit = width / (hi - lo) if hi > lo else 0.0
        self.plot.getAxis("bottom").setTicks([thinned(self.x_ticks, per_unit)])

    def _x_range(self) -> None:
        """The users' log range, 3 % padded, and on the right at least half the last count's
        text: pyqtgraph drops a tick text that runs past the axis's end (AxisItem
        generateDrawSpecs, the axis with its grid bounded by the view), and at 1024 x 700 the
        last count ("64"), centred 3 % inside a 260 px axis, went missing."""
        c = self.data
        if c is None or not c.users:
            return
        lo, hi = math.log10(c.users[0]), math.log10(c.users[-1])
        pad = 0.03 * max(hi - lo, 1e-9)
        axis = self.plot.getAxis("bottom")
        half = QFontMetricsF(axis.style.get("tickFont") or axis.font()).horizontalAdvance(f"{c.users[-1]:,}")
        half, width = half / 2 + 2, self.plot.vb.width()
        right = max(pad, half * (hi - lo + pad) / (width - half)) if width > 2 * half else pad
        if self.plot.vb.viewRange()[0] != [lo - pad, hi + right]:
            self.plot.setXRange(lo - pad, hi + right, padding=0)

    def _layout_labels(self) -> None:
        if self.x_ticks:
            self._x_range()  # the right margin follows the plot's width
            self._thin_ticks()
        if self.note.isVisible():  # its wrapping width follows the plot's
            self._show_note(True)

    def _restyle_items(self) -> None:
        t = self.theme
        self.with_curve.setPen(pg.mkPen(t.good, width=2.5))
        self.with_curve.setSymbolBrush(pg.mkBrush(t.good))
        self.without_curve.setPen(pg.mkPen(t.muted, width=2))
        self.without_curve.setSymbolBrush(pg.mkBrush(t.muted))
        self.split_curve.setPen(pg.mkPen(SPLIT_COLOR, width=2.5))
        self.split_curve.setSymbolBrush(pg.mkBrush(SPLIT_COLOR))
        if self.has_data:
            self._redraw()

    def tooltip_at(self, x: float, y: float) -> str:
        c = self.data
        if c is None:
            return ""
        i = int(np.argmin([abs(math.log10(u) - x) for u in c.users]))
        out = f"{c.users[i]:,} users: {c.without[i]:,.0f} tokens/s without"
        out += f", {c.with_features[i]:,.0f} with" if c.active else ""
        return out + (f", {c.split[i]:,.0f} split P/D" if c.split else "")

    def data_rows(self) -> list[list[Any]]:
        c = self.data
        rows: list[list[Any]] = [["users", "tokens_per_second_with", "tokens_per_second_without"]]
        if c is None:
            return rows
        rows += [[u, a, b] for u, a, b in zip(c.users, c.with_features, c.without, strict=True)]
        if c.split:  # a column of its own, so files without a split read as before
            rows[0].append("tokens_per_second_split")
            for row, v in zip(rows[1:], c.split, strict=True):
                row.append(v)
        return rows
