"""Per-GPU memory: a stacked bar by component against the GPU's capacity.

When the peak is less than the sum of the parts (training: activations are freed before the
optimizer step), two bars stand side by side: "all parts" and "at peak (<phase>)", the second
holding only the components alive at the peak (Memory.alive_at_peak).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from ...core.result import COMPONENTS, Estimate
from ...core.specs import Scenario
from ...io.units import fmt_bytes, to_unit
from ..colors import COMPONENT_LABELS
from .base import ChartBase, display_unit
from .palette import LABEL_PX, font
from .stack import StackedBars, capacity_line, style_line

KIND_LABELS = {"pretraining": "pre-training", "full_finetune": "full fine-tune", "lora": "LoRA",
               "qlora": "QLoRA", "inference": "inference"}


def _fmt(n_bytes: float, unit: str) -> str:
    """One decimal, two below 1 unit: 0.02 GiB of logits is not "0.0 GiB"."""
    return fmt_bytes(n_bytes, unit, 1 if to_unit(n_bytes, unit) >= 1 else 2)


@dataclass(frozen=True)
class Bar:
    """One stacked bar: its label and bytes per component."""

    label: str
    parts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.parts.values())


class MemoryChart(ChartBase):
    """Stacked bar(s) of the per-GPU peak by component, with the capacity line."""

    title = "Memory per GPU"
    grid_x = False

    def _build(self) -> None:
        self.bars: list[Bar] = []
        self.stack = StackedBars(self.plot, width=0.55)
        self.capacity_line = capacity_line(self.plot)
        self.bar_labels = [self.text_item((0.5, 1)) for _ in range(2)]
        self.plot.setMouseEnabled(x=False, y=False)

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
        self.capacity = int(estimate.capacity_bytes)
        self.gpu_name = estimate.gpu.name
        self.subject = f"{scenario.model.name}, {KIND_LABELS[scenario.workload.kind]}"

    def bar_labels_text(self) -> list[str]:
        """The x labels of the bars, left to right."""
        return [b.label for b in self.bars]

    def _redraw(self) -> None:
        unit, scale = display_unit(self.unit, max(self.capacity, self.peak))
        n = len(self.bars)
        self.stack.set_bars([b.parts for b in self.bars], scale)
        self.capacity_line.setValue(self.capacity / scale)
        self.capacity_line.label.setFormat(
            f"{self.gpu_name}: {fmt_bytes(self.capacity, self.unit, 1)} usable")
        self.plot.getAxis("bottom").setTicks([[(i, b.label) for i, b in enumerate(self.bars)]])
        top = max(self.capacity, *(b.total for b in self.bars)) / scale
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        self.plot.setYRange(0, top * 1.22, padding=0)
        self.set_axis_label("left", f"memory per GPU ({unit})")
        self.set_title(f"{html.escape(self.subject)}: peak {fmt_bytes(self.peak, self.unit, 1)}"
                       f" per GPU on {html.escape(self.gpu_name)}")
        parts = {**self.bars[0].parts, **self.freed}
        self.set_legend(self.stack.legend_entries(
            {c: f"{COMPONENT_LABELS[c]}  {_fmt(v, self.unit)}" for c, v in parts.items()}))
        self._update_labels(scale)

    def _update_labels(self, scale: float) -> None:
        """Totals above the bars; headroom (or shortfall) of the peak bar against capacity."""
        t = self.theme
        peak_bar = self.bars[-1]
        for i, label in enumerate(self.bar_labels):
            label.setVisible(i < len(self.bars))
            if i >= len(self.bars):
                continue
            bar = self.bars[i]
            value = self.peak if bar is peak_bar else bar.total
            html = f"<b>{fmt_bytes(value, self.unit, 1)}</b>"
            if self.freed and (bar is not peak_bar or len(self.bars) == 1):
                gone = ", ".join(f"{COMPONENT_LABELS[c]} {_fmt(v, self.unit)}"
                                 for c, v in self.freed.items())
                html += f"<br><span style='color:{t.muted}'>freed before the peak: {gone}</span>"
            if bar is peak_bar:
                room = self.capacity - self.peak
                word, color = ("headroom", t.good) if room >= 0 else ("short by", t.bad)
                html += (f"<br><span style='color:{color}'><b>{word} "
                         f"{fmt_bytes(abs(room), self.unit, 1)}</b></span>")
            self.set_centred_html(label, f"<div style='color:{t.foreground}'>{html}</div>")
            label.setPos(i, max(bar.total, value) / scale)

    # --- style --------------------------------------------------------------------------------
    def _restyle_items(self) -> None:
        self.stack.restyle(self.theme)
        style_line(self.capacity_line, self.theme, font=font(LABEL_PX))
        if self.has_data:
            self._update_labels(self.stack.scale)  # the labels' colours are in their HTML

    # --- hover and data -----------------------------------------------------------------------
    def tooltip_at(self, x: float, y: float) -> str:
        hit = self.stack.segment_at(x, y)
        if hit is None:
            return ""
        bar = self.bars[hit[0]]
        return (f"{bar.label}\n{COMPONENT_LABELS[hit[1]]}: "
                f"{fmt_bytes(bar.parts[hit[1]], self.unit, 2)}")

    def data_rows(self) -> list[list[Any]]:
        u = self.unit
        rows: list[list[Any]] = [["bar", "component", "bytes", u]]
        for bar in self.bars:
            rows += [[bar.label, c, bar.parts.get(c, 0), round(to_unit(bar.parts.get(c, 0), u), 3)]
                     for c in COMPONENTS]
            rows.append([bar.label, "sum", bar.total, round(to_unit(bar.total, u), 3)])
        rows.append(["peak", "total", self.peak, round(to_unit(self.peak, u), 3)])
        rows.append(["capacity", "usable", self.capacity, round(to_unit(self.capacity, u), 3)])
        return rows
