"""Per-GPU memory: a stacked bar by component against the GPU's capacity.

When the peak is less than the sum of the parts (training: activations are freed before the
optimizer step), two bars stand side by side: "all parts" and "at peak (<phase>)", the second
holding only the components alive at the peak (Memory.alive_at_peak).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF

from ...core.evidence.ranges import estimate_evidence
from ...core.model.result import COMPONENT_LABELS, COMPONENTS, Estimate
from ...core.model.specs import Scenario
from ...io.units import fmt_bytes, to_unit
from ...io.wording import fit_of, room_word
from .base import ChartBase, display_unit
from .labels import PAD, Leaders, place, scene_rect
from .over_line import crossed, lift_over, line_px
from .palette import LABEL_PX, font
from .pool import HALF, PoolView
from .stack import StackedBars, style_line
from .whisker import Whisker


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
        self.subject = f"{scenario.model.name}, {scenario.workload.info.in_sentence}"
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
                {c: f"{COMPONENT_LABELS[c]}  {_fmt(v, self.unit)}" for c, v in parts.items()}
            )
        )
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
            if bar is peak_bar and self.band:  # the whisker's words
                lo, hi = (to_unit(v, self.unit) for v in self.band)
                band = f"runs like this: {lo:,.1f}-{hi:,.1f} {self.unit}"
                html += f"<br><span style='color:{t.muted}'>{band}</span>"
            if self.freed and (bar is not peak_bar or len(self.bars) == 1):
                gone = ", ".join(f"{COMPONENT_LABELS[c]} {_fmt(v, self.unit)}" for c, v in self.freed.items())
                html += f"<br><span style='color:{t.muted}'>freed before the peak:<br>{gone}</span>"
            if bar is peak_bar:
                room = self.fit.headroom
                word, color = room_word(self.fit), t.good if room >= 0 else t.bad
                html += (
                    f"<br><span style='color:{color}'><b>{word} "
                    f"{fmt_bytes(abs(room), self.unit, 1)}</b></span>"
                )
            self.set_centred_html(label, f"<div style='color:{t.foreground}'>{html}</div>")
            top = max(bar.total, value, *(self.band or ()) if bar is peak_bar else ())
            label.setPos(i, top / scale)

    def _layout_labels(self) -> None:
        """Room above the bars for their labels; the capacity label on the line where it
        overlaps no bar label, else in a band above them with a leader line down to the line
        (labels.py: place, then nudge or leader-line)."""
        if not self._fit_labels(band=0.0) or not self._capacity_on_line():
            band = scene_rect(self.cap_label).height() + 2 * PAD
            self._fit_labels(band)
            self._capacity_in_band()
        else:
            self.leaders.draw([], self.theme.foreground)
        self._place_pool()

    def _place_pool(self) -> None:
        """The engine's budget and users' labels, clear of the bar and capacity labels."""
        if not self.pool.reserved:
            return
        vb = self.plot.vb
        self.pool.anchor_labels(vb.viewRange()[0][1])
        top = self.bars[-1].total / self.stack.scale
        bar = vb.mapViewToScene(QRectF(-HALF, 0, 2 * HALF, top)).boundingRect()
        taken = [*self._bar_rects(), scene_rect(self.cap_label), bar]
        place(self.pool.labels(), vb, taken)

    def _fit_labels(self, band: float) -> bool:
        """Set the y range so each bar's label (and a ``band`` of pixels above all of them)
        fits, then place the bar labels, a label that the capacity line would cross lifted
        above it (over_line.py); False when the view is too small for that."""
        scale, vb = self.stack.scale, self.plot.vb
        labels, y = self.bar_labels[: len(self.bars)], self.capacity / scale
        ok = self._set_room(band, ())
        self._update_labels(scale)
        over = crossed(labels, vb, y)
        if over:
            ok = self._set_room(band, over)
            self._update_labels(scale)
            lift_over(labels, vb, y, over)
        area, at = vb.sceneBoundingRect(), line_px(vb, y)
        place(labels, vb, lines=[QLineF(area.left(), at, area.right(), at)])
        return ok

    def _set_room(self, band: float, over: Sequence[int]) -> bool:
        """The y range in which each label fits above its bar (above the capacity line for
        the labels ``over``), with ``band`` pixels more; False when one cannot fit."""
        scale, vb = self.stack.scale, self.plot.vb
        height = max(vb.sceneBoundingRect().height(), 1.0)
        need, ok = self._top * 1.08, True
        for i, label in enumerate(self.bar_labels[: len(self.bars)]):
            h = scene_rect(label).height() + 2 * PAD + band
            if h >= 0.8 * height:
                ok = False
                continue
            last = i == len(self.bars) - 1
            value = max(
                self.bars[i].total,
                self.peak if last else 0,
                self.band[1] if self.band and last else 0,
                self.capacity if i in over else 0,
            )
            need = max(need, value / scale / (1 - h / height))
        if band:
            need = max(need, self.capacity / scale / (1 - band / height))
        if abs(need - vb.viewRange()[1][1]) > 1e-9 * need:
            self.plot.setYRange(0, need, padding=0)
        return ok

    def _bar_rects(self) -> list[QRectF]:
        return [scene_rect(x) for x in self.bar_labels[: len(self.bars)] if x.isVisible()]

    def _bodies(self) -> list[QRectF]:
        """The bars themselves, in scene pixels: the capacity label is never drawn over one."""
        vb, half, scale = self.plot.vb, self.stack.width / 2, self.stack.scale
        return [
            vb.mapViewToScene(QRectF(i - half, 0, 2 * half, bar.total / scale)).boundingRect()
            for i, bar in enumerate(self.bars)
        ]

    def _capacity_on_line(self) -> bool:
        """The capacity label beside the line: right end, left end, above then below."""
        vb, y = self.plot.vb, self.capacity / self.stack.scale
        (x0, x1), _ = vb.viewRange()
        area, taken = vb.sceneBoundingRect(), self._bar_rects() + self._bodies()
        usable = f"{fmt_bytes(self.capacity, self.unit, 1)} usable"
        self.cap_label.setText(f"{self.gpu_name}: {usable}")
        if scene_rect(self.cap_label).width() > 0.6 * area.width():
            self.cap_label.setText(f"{usable} per GPU")  # the title names the GPU
        for x, anchor in ((x1, (1, 1)), (x0, (0, 1)), (x1, (1, 0)), (x0, (0, 0))):
            self.cap_label.setAnchor(anchor)
            self.cap_label.setPos(x, y)
            rect = scene_rect(self.cap_label)
            if area.contains(rect) and not any(
                rect.intersects(r.adjusted(-PAD, -PAD, PAD, PAD)) for r in taken
            ):
                return True
        return False

    def _capacity_in_band(self) -> None:
        """The capacity label at the top right, above the bar labels, with a leader line."""
        vb, y = self.plot.vb, self.capacity / self.stack.scale
        (x0, x1), (_y0, top) = vb.viewRange()
        self.cap_label.setAnchor((1, 0))
        self.cap_label.setPos(x1, top)
        place([self.cap_label], vb, self._bar_rects() + self._bodies())
        rect = scene_rect(self.cap_label)
        foot = vb.mapSceneToView(rect.bottomRight())
        x = max(x0, min(x1, foot.x() - 0.02 * (x1 - x0)))
        self.leaders.draw([(QPointF(x, y), self.cap_label)], self.theme.foreground)

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
