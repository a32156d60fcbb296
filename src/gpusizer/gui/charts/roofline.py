"""Roofline: attainable FLOP/s against arithmetic intensity, log-log, for the chosen GPU.

The memory roof (bandwidth x intensity) meets the compute roof (peak of the matmul data type)
at the ridge point; dashed roofs apply the scenario's efficiency factors, which is where the
operations' points sit (core/speed/roofline.py: Williams, Waterman & Patterson 2009). Prefill and
decode points are shown per operation and for the whole step; a larger batch moves the
decode step right, toward the ridge.

This chart computes its data (``roofline_points``: each operation's FLOPs and bytes) rather
than reading the Estimate: the points are its data, which the Estimate does not keep
(tests/test_views_do_not_compute.py allows it).
"""

from __future__ import annotations

import html
import math
from typing import Any

import numpy as np
import pyqtgraph as pg

from ...core.evidence.confidence import speed_evidence
from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.pipeline.report import roofline_points
from ...io.evidence_text import TOOK, banded
from .base import ChartBase
from .labels import Leaders
from .op_names import long_name, short_name
from .palette import LINE_PEN_WIDTH, TOTAL_PEN_WIDTH
from .roofline_fit import SHORT_LEGEND_BELOW_PX, decade_ticks, legend_text
from .roofline_labels import CLUSTER, PHASE_COLORS, PHASES, RooflineLabels, log_xy, names_html, text_color

SYMBOLS = {"prefill": "o", "decode": "t"}
STAR_CLEAR = 15.0  # px: the star's half size (11) and the placer's gap (labels.PAD)


class RooflineChart(RooflineLabels, ChartBase):
    """Roofs, ridge, and prefill/decode points per operation and per step."""

    title = "Roofline"

    def _build(self) -> None:
        self.data: dict[str, Any] | None = None
        self.training = False
        self.plot.setLogMode(x=True, y=True)
        self.roof = self.plot.plot([], [])
        self.eff_roof = self.plot.plot([], [])
        self.ridge = self.plot.plot([], [], pen=None, symbol="d", symbolSize=12)
        self.ops = {ph: self.plot.plot([], [], pen=None, symbol=SYMBOLS[ph], symbolSize=10) for ph in PHASES}
        self.steps = {ph: self.plot.plot([], [], pen=None, symbol="star", symbolSize=22) for ph in PHASES}
        # Labels sit beside their markers (operations: right; steps: below), roof labels
        # above the roofs; none is boxed, so none hides a marker.
        self.op_labels = [self.text_item((0, -0.2), pixels=12, boxed=False) for _ in range(16)]
        self.step_labels = {ph: self.text_item((0.5, -0.25), bold=True, boxed=False) for ph in PHASES}
        self.ridge_label = self.text_item((1.06, 0.5), pixels=13, boxed=False)
        self.leaders = Leaders(self.plot)
        self._groups: list[list[dict[str, Any]]] = []
        self._tall = True  # step labels: one phase a line
        self._detail = 2  # step labels: with the operations at their star (FORMS)
        self._step_names: dict[str, str] = {}  # phase: those operations, for the star's tooltip
        self._step_html: dict[str, str] = {}  # phase: its label's text (aligned once placed)
        self._short_legend = False
        self.compute_label = self.text_item((1, 1.1), pixels=13, boxed=False)
        self.memory_label = self.text_item((1, 1.0), pixels=13, boxed=False)
        self.set_axis_label("bottom", "arithmetic intensity (FLOP per byte moved)")
        self.set_axis_label("left", "attainable TFLOP/s")

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        w = scenario.workload
        self.training = w.trains
        if w.trains:
            # The serving fields are hidden (and stale) in training: the forward pass of one
            # micro-batch is the prefill of micro-batch x sequence-length tokens.
            w = w.model_copy(update={"batch_size": w.micro_batch_size, "prompt_tokens": w.sequence_length})
            scenario = scenario.model_copy(update={"workload": w})
        self.data = roofline_points(scenario)
        if w.trains and self.data:
            # Training runs no decode: its points (from the hidden serving fields) read
            # "decode step (memory-bound)" under a pre-training title.
            self.data = {**self.data, "points": [p for p in self.data["points"] if p["phase"] == "prefill"]}
        # step times with the speed band (core/evidence): runs like this took time x [p10, p90]
        self.speed_band = speed_evidence(estimate.scenario, estimate.gpu).band
        self.model_name = scenario.model.name
        self.gpu_name = estimate.gpu.name
        self.batch, self.prompt = w.batch_size, w.prompt_tokens

    def points(self, phase: str, step: bool = False) -> list[dict[str, Any]]:
        """The roofline points of one phase: its operations, or its whole step."""
        pts = self.data["points"] if self.data else []
        return [p for p in pts if p["phase"] == phase and (p["name"] == "step") == step]

    def _redraw(self) -> None:
        if self.data is None:
            self.set_title("Roofline: the roofline model is not available in this build")
            return
        d = self.data
        peak, bw = d["peak_flops_per_s"] / 1e12, d["bandwidth_bytes_per_s"] / 1e12
        eff_peak, eff_bw = peak * d.get("flops_efficiency", 1.0), bw * d.get("bandwidth_efficiency", 1.0)
        ridge = d["ridge_intensity"]
        xs = [p["intensity"] for p in d["points"] if p["intensity"] > 0] + [ridge]
        # Room right of the ridge for the compute-roof label, left of the points for the memory
        # roof's.
        lo, hi = min(xs) / 30, max(max(xs) * 15, ridge * 60)
        x = np.array([lo, ridge, hi])
        self.roof.setData(x, np.minimum(bw * x, peak))
        ex = np.array([lo, eff_peak / eff_bw, hi])
        self.eff_roof.setData(ex, np.minimum(eff_bw * ex, eff_peak))
        self.ridge.setData([ridge], [peak])
        for ph in PHASES:
            ops, step = self.points(ph), self.points(ph, step=True)
            self.ops[ph].setData(
                [p["intensity"] for p in ops], [p["attainable_flops_per_s"] / 1e12 for p in ops]
            )
            self.steps[ph].setData(
                [p["intensity"] for p in step], [p["attainable_flops_per_s"] / 1e12 for p in step]
            )
        ys = [p["attainable_flops_per_s"] / 1e12 for p in d["points"]] + [bw * lo]
        ylo, yhi = max(min(ys) / 3, 1e-3), peak * 4
        self.plot.setXRange(math.log10(lo), math.log10(hi), padding=0)
        self.plot.setYRange(math.log10(ylo), math.log10(yhi), padding=0)
        self._y_base = (ylo, yhi)  # the layout may raise the top for the compute roof's figure
        self.plot.getAxis("bottom").setTicks([decade_ticks(lo, hi)])
        self.plot.getAxis("left").setTicks([decade_ticks(ylo, yhi)])
        self._label_args = (min(xs), hi, ridge, peak, bw)
        self._place_labels(*self._label_args)
        self._titles_and_legend()

    def _step_label(self, ph: str, groups: list[list[dict[str, Any]]]) -> list[list[dict[str, Any]]]:
        """Label the step's star, with the names of the operations drawn at the same place
        (which would print over it); returns the groups still to label."""
        step = self.points(ph, step=True)
        label, dark = self.step_labels[ph], self.theme.dark
        label.setVisible(bool(step))
        if not step:
            return groups
        p = step[0]
        sx, sy = log_xy(p)
        # Operations within half a decade would collide with the step's label: it names them.
        here = [
            g
            for g in groups
            if any(abs(log_xy(q)[0] - sx) < 2 * CLUSTER and abs(log_xy(q)[1] - sy) < 2 * CLUSTER for q in g)
        ]
        # The step label names its own phase's operations only: "decode step" over "prefill:
        # LM head, norms" read as a decode step made of prefill work (a prefill's LM head runs
        # on its last tokens alone, so it sits at decode's intensity); the other phase's
        # operations there keep a label of their own, in their colour.
        mine = [m for g in here if (m := [q for q in g if q["phase"] == ph])]
        sep = "<br>" if self._tall else " · "
        names = "".join(
            f"<br><span style='font-weight:normal'>{names_html(g, dark, sep)}</span>" for g in mine
        )
        self._step_names[ph] = "; ".join(", ".join(short_name(q["name"]) for q in g) for g in mine)
        if self._detail < 2:
            names = ""  # no room: the star's tooltip names them (tooltip_at)
        bound = f" ({p['bound']}-bound)" if self._detail else ""
        # Below the roofs, where nothing else is drawn: memory-bound to the right of the star
        # (under the slope), compute-bound centred under it (under the flat roof).
        colour = text_color(ph, dark)
        self._step_html[ph] = f"<div style='color:{colour}'><b>{ph} step{bound}</b>{names}</div>"
        self.set_centred_html(label, self._step_html[ph])
        # Its natural width is new: a wrap of the longer text before is not to be restored
        # (labels.wrap_to gave a 238 px box to "decode step", across the slope).
        label.width_before_wrap = None
        # Clear of the star (STAR_CLEAR px from its centre), so that the placer need not move
        # the label up across the roof to get off it.
        size = label.boundingRect()
        fx, fy = STAR_CLEAR / max(size.width(), 1.0), STAR_CLEAR / max(size.height(), 1.0)
        label.setAnchor((-fx, -fy) if p["bound"] == "memory" else (0.5, -fy))
        label.setPos(sx, sy)
        return [
            rest
            for g in groups
            if (rest := [q for q in g if q["phase"] != ph] if any(g is h for h in here) else g)
        ]

    def _step_time(self, p: dict[str, Any]) -> str:
        """`` · 5.7 ms (5.5-7.2)``: the step's time with the band of its speed regime, in the
        star's tooltip (in its label or the legend, the wider text pushed the labels across the
        roofs at 1280x720)."""
        sec = p.get("seconds")
        if not sec:
            return ""
        band = getattr(self, "speed_band", None)
        rng = band.time_range(sec) if band is not None else None
        return " · " + banded(f"{sec * 1e3:,.1f} ms", rng, lambda v: f"{v * 1e3:,.1f}", sec, TOOK)

    def _titles_and_legend(self) -> None:
        what = (
            f"training: the forward pass of micro-batch {self.batch} x {self.prompt:,} "
            "tokens, drawn as a prefill"
            if self.training
            else f"inference, batch {self.batch} x {self.prompt:,}-token prompts"
        )
        self.set_title(
            f"Roofline: {html.escape(self.model_name)} on "
            f"{html.escape(self.gpu_name)}<br><span style='font-size:14px'>{what}; "
            "dashed: with the efficiency factors</span>"
        )
        self._legend_words()

    def _legend_words(self) -> None:
        """The legend, in short words where the chart is narrow (roofline_fit.py)."""
        short = self._short_legend = self.width() < SHORT_LEGEND_BELOW_PX
        entries = [(self.roof, legend_text("roof", short)), (self.eff_roof, legend_text("eff_roof", short))]
        for ph in (ph for ph in PHASES if self.points(ph, step=True)):
            entries += [
                (self.ops[ph], legend_text("ops", short, ph)),
                (self.steps[ph], legend_text("step", short, ph)),
            ]
        self.set_legend(entries)

    def _restyle_items(self) -> None:
        t = self.theme
        self.roof.setPen(pg.mkPen(t.foreground, width=TOTAL_PEN_WIDTH))
        self.eff_roof.setPen(pg.mkPen(t.muted, width=LINE_PEN_WIDTH, style=pg.QtCore.Qt.PenStyle.DashLine))
        self.ridge.setSymbolBrush(pg.mkBrush(t.foreground))
        self.ridge.setSymbolPen(pg.mkPen(t.background))
        for ph in PHASES:
            color = PHASE_COLORS[ph]
            self.ops[ph].setSymbolBrush(pg.mkBrush(color))
            self.ops[ph].setSymbolPen(pg.mkPen(t.background, width=1))
            self.steps[ph].setSymbolBrush(pg.mkBrush(color))
            self.steps[ph].setSymbolPen(pg.mkPen(t.foreground, width=1.5))
        for item in (self.compute_label, self.memory_label, self.ridge_label):
            item.setColor(t.foreground)
        if self.has_data:
            self._redraw()

    def tooltip_at(self, x: float, y: float) -> str:
        """The nearest point within 0.15 decades of the cursor."""
        best, dist = None, 0.15
        for p in self.data["points"] if self.data else []:
            px, py = math.log10(p["intensity"]), math.log10(p["attainable_flops_per_s"] / 1e12)
            dd = math.hypot(px - x, py - y)
            if dd < dist:
                best, dist = p, dd
        if best is None:
            return ""
        return (
            f"{best['phase']} · {long_name(best['name'])}: {best['intensity']:,.2f} FLOP/B, "
            f"{best['attainable_flops_per_s'] / 1e12:,.1f} TFLOP/s, {best['bound']}-bound"
            + (f", {best['seconds'] * 1e3:,.3f} ms" if "seconds" in best else "")
            + (self._step_time(best) + self._at_step(best["phase"]) if best["name"] == "step" else "")
        )

    def _at_step(self, phase: str) -> str:
        """The operations drawn at the step's star (named by its label when there is room)."""
        names = self._step_names.get(phase, "")
        return f" · at this point: {names}" if names else ""

    def data_rows(self) -> list[list[Any]]:
        keys = ["phase", "name", "flops", "bytes", "intensity", "attainable_flops_per_s", "bound", "seconds"]
        rows: list[list[Any]] = [keys]
        if self.data:
            rows += [[p.get(k, "") for k in keys] for p in self.data["points"]]
            rows.append(["gpu", "peak_flops_per_s", self.data["peak_flops_per_s"], "", "", "", "", ""])
            rows.append(
                ["gpu", "bandwidth_bytes_per_s", "", self.data["bandwidth_bytes_per_s"], "", "", "", ""]
            )
            rows.append(["gpu", "ridge_intensity", "", "", self.data["ridge_intensity"], "", "", ""])
        return rows
