"""Per-GPU memory: a stacked bar by component against the GPU's capacity.

When the peak is less than the sum of the parts (training: activations are freed before the
optimizer step), two bars stand side by side: "all parts" and "at peak (<phase>)", the second
holding only the components alive at the peak (Memory.alive_at_peak).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg

from ...core.evidence.ranges import estimate_evidence
from ...core.model.result import COMPONENT_LABELS, COMPONENTS, Estimate
from ...core.model.specs import Scenario
from ...io.units import fmt_bytes, to_unit
from ...io.wording import fit_of
from .base import ChartBase, display_unit
from .labels import Leaders
from .memory_labels import MemoryLabels, fmt_part
from .palette import LABEL_PX, font
from .pool import PoolView
from .stack import StackedBars, style_line
from .whisker import Whisker


@dataclass(frozen=True)
class Bar:
    """One stacked bar: its label and bytes per component."""

    label: str
    parts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.parts.values())


class MemoryChart(MemoryLabels, ChartBase):
    """Stacked bar(s) of the per-GPU peak by component, with the capacity line."""

    title = "Memory per GPU"
    grid_x = False

    def _build(self) -> None:
        self.bars: list[Bar] = []
        self.stack = StackedBars(self.plot, width=0.55)
        # The capacity line's label is placed here, with the bars' labels (labels.py).
        self.capacity_line = pg.InfiniteLine(angle=0, movable=False)
        self.capacity_line.setZValue(10)  # above the bars
        self.plot.addItem(self.capacity_line)
        self.cap_label = self.text_item((1, 1))
        self.leaders = Leaders(self.plot)
        self.whisker = Whisker(self.plot)  # the evidence band of the peak
        self.band: tuple[float, float] | None = None
        self.bar_labels = [self.text_item((0.5, 1)) for _ in range(2)]
        self._top = 1.0
        self.plot.setMouseEnabled(x=False, y=False)
        self.pool = PoolView(
            self.plot, self.text_item((0, 0.5), boxed=True), self.text_item((1, 0), boxed=True)
        )

    # --- data ---------------------------------------------------------------------------------
    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        mem = estimate.memory
        parts = {c: int(getattr(mem, c)) for c in COMPONENTS}
        alive = {c: v for c, v in parts.items() if c in mem.alive_at_peak}
        phase = mem.peak_phase.replace("_", " ")
        self.freed = {c: v for c, v in parts.items() if v and c not in alive}
        # Two bars only where the difference shows (>= 1 % of the peak); a sliver of freed
        # gradients is named in the label instead.
        if sum(self.freed.values()) >= 0.01 * max(mem.total, 1):
            self.bars = [Bar("all parts", parts), Bar(f"at peak ({phase})", alive)]
        else:
            self.bars = [Bar(f"peak ({phase})", alive)]
        self.peak = int(mem.total)
        self.band = estimate_evidence(estimate)[0].band.size_range(mem.total)
        self.capacity = int(estimate.capacity_bytes)
        self.fit = fit_of(estimate)  # the stated headroom: the verdict's (io/wording.py)
        self.gpu_name = estimate.gpu.name
        self.subject = f"{scenario.model.name}, {scenario.workload.in_sentence}"
        self.pool.set_estimate(estimate)
        if self.pool.reserved or self.pool.offload:  # the engine's own view of the GPU
            self.bars = [Bar(self.pool.bar_label, alive)]

    def _redraw(self) -> None:
        unit, scale = display_unit(self.unit, max(self.capacity, self.peak))
        n = len(self.bars)
        self.stack.set_bars([b.parts for b in self.bars], scale)
        self.capacity_line.setValue(self.capacity / scale)
        self.cap_label.setText(f"{self.gpu_name}: {fmt_bytes(self.capacity, self.unit, 1)} usable")
        self.plot.getAxis("bottom").setTicks([[(i, b.label) for i, b in enumerate(self.bars)]])
        self._top = max(self.capacity, *(b.total for b in self.bars), *(self.band or ())) / scale
        lo, hi = (v / scale for v in self.band) if self.band else (None, None)
        self.whisker.set(n - 1, lo, hi, 0.06)
        # An engine's pool labels its bar on the right (users' mark): room for them there.
        right = n - 0.4 + (0.9 if self.pool.reserved else 0.0)
        self._right = right  # memory_labels may widen it for the capacity label
        self.plot.setXRange(-0.6, right, padding=0)
        self.plot.setYRange(0, self._top * 1.08, padding=0)
        self.set_axis_label("left", f"memory per GPU ({unit})")
        subject, gpu = html.escape(self.subject), html.escape(self.gpu_name)
        self.set_title(
            self.pool.title(subject, self.peak, gpu, self.unit)
            or f"{subject}: peak {fmt_bytes(self.peak, self.unit, 1)} per GPU on {gpu}"
        )
        self.pool.redraw(self.bars[-1].parts, scale, self.unit)
        parts = {**self.bars[0].parts, **self.freed}
        self.set_legend(
            self.stack.legend_entries(
                {c: f"{COMPONENT_LABELS[c]}  {fmt_part(v, self.unit)}" for c, v in parts.items()}
            )
        )
        self._update_labels(scale)

    # --- style --------------------------------------------------------------------------------
    def _restyle_items(self) -> None:
        self.stack.restyle(self.theme)
        self.whisker.restyle(self.theme)
        style_line(self.capacity_line, self.theme, font=font(LABEL_PX))
        self.pool.restyle(self.theme)
        self.cap_label.setColor(self.theme.foreground)
        if self.has_data:
            self._update_labels(self.stack.scale)  # the labels' colours are in their HTML
            self.relayout()

    # --- hover and data -----------------------------------------------------------------------
    def tooltip_at(self, x: float, y: float) -> str:
        hit = self.stack.segment_at(x, y)
        if hit is None:
            return ""
        bar = self.bars[hit[0]]
        extra = self.pool.tip(hit[1], self.unit)
        return f"{bar.label}\n{COMPONENT_LABELS[hit[1]]}: {fmt_bytes(bar.parts[hit[1]], self.unit, 2)}" + (
            f"\n{extra}" if extra else ""
        )

    def data_rows(self) -> list[list[Any]]:
        u = self.unit
        rows: list[list[Any]] = [["bar", "component", "bytes", u]]
        for bar in self.bars:
            rows += [
                [bar.label, c, bar.parts.get(c, 0), round(to_unit(bar.parts.get(c, 0), u), 3)]
                for c in COMPONENTS
            ]
            rows.append([bar.label, "sum", bar.total, round(to_unit(bar.total, u), 3)])
        rows.append(["peak", "total", self.peak, round(to_unit(self.peak, u), 3)])
        rows.append(["capacity", "usable", self.capacity, round(to_unit(self.capacity, u), 3)])
        for edge, v in zip(("lower", "upper"), self.band or (), strict=False):  # the evidence band
            rows.append(["peak band", edge, round(v), round(to_unit(v, u), 3)])
        return rows
