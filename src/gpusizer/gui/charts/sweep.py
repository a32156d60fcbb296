"""Sweeps: per-GPU memory against sequence length, batch size or GPU count.

The axis is the chart's view setting (``core.views.SweepView``); the selector above the plot
edits it, as ``gpusizer-cli chart --kind sweep --axis`` does.

The peak is the thick curve, components thin curves in their palette colours; the capacity is a
dashed line, the area where the peak exceeds it is shaded, and the boundary is marked with the
largest value that fits (the fewest GPUs that fit, on the GPU axis). The y axis stops at three
times the capacity, where the peak crosses it, so the boundary stays legible; a peak that runs
above says where and how high, and one that never comes near the capacity is drawn
whole. The sweep itself is core/views/sweep.py; this module only chooses the axis values and draws
(the ticks, markers and labels: sweep_labels.py).
A sweep is one estimate per axis value: that is this chart's data, not the Estimate's, so it
calls the core (tests/test_views_do_not_compute.py allows it).
"""

from __future__ import annotations

import html
import math
from dataclasses import replace
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QComboBox, QWidget

from ...core.evidence.confidence import memory_evidence
from ...core.model.result import COMPONENT_LABELS, COMPONENTS, Estimate
from ...core.model.specs import Scenario
from ...core.views.settings import SWEEP_AXES, SweepView
from ...core.views.sweep import SweepResult, sweep
from ...io.units import fmt_bytes, to_unit
from ..colors import component_qcolor
from .axis_title import fit_left_title
from .base import ChartBase, display_unit
from .palette import LABEL_PX, LINE_PEN_WIDTH, TOTAL_PEN_WIDTH, font
from .stack import capacity_line, style_line
from .sweep_axis import AXIS_NAMES, MAX_POINTS, axis_values, log2_ticks
from .sweep_labels import SweepLabels

__all__ = ["AXIS_NAMES", "MAX_POINTS", "SweepChart", "axis_values", "log2_ticks"]


class SweepChart(SweepLabels, ChartBase):
    """Memory per GPU against one knob, with the capacity and the out-of-memory boundary."""

    title = "Sweeps"

    def __init__(self, parent: QWidget | None = None, *, background: bool = False) -> None:
        self.view = SweepView()
        self.result: SweepResult | None = None
        self.scenario: Scenario | None = None
        self.max_context: int | None = None  # serving: the engine's context (its longest request)
        self.left_titles: tuple[str, ...] = ("memory per GPU",)
        super().__init__(parent, background=background)
        self.selector = QComboBox(self)
        self.selector.setObjectName("combo_sweep_axis")
        self.selector.setToolTip(
            "The setting swept: memory per GPU at each of its values, the rest of the scenario "
            "as set; the dashed line marks this scenario's value"
        )
        for key in SWEEP_AXES:
            self.selector.addItem(f"memory vs {AXIS_NAMES[key]}", key)
        self.selector.currentIndexChanged.connect(lambda i: self.set_axis(self.selector.itemData(i)))
        self._layout.insertWidget(0, self.selector)

    @property
    def axis(self) -> str:
        return str(self.view.axis)

    def _build(self) -> None:
        self.curves = {c: self.plot.plot([], [], connect="finite") for c in COMPONENTS}
        self.total_curve = self.plot.plot([], [], connect="finite")
        # The out-of-memory area: max(peak, capacity) filled down to the capacity (one curve;
        # a FillBetweenItem recomputes its path once per bounding curve, twice per redraw).
        # Transparent pen, not None: pen=None drops the path the fill needs.
        self.over_curve = self.plot.plot([], [], pen=pg.mkPen((0, 0, 0, 0)))
        self._shown: set[str] = set()
        self._log_x: bool | None = None
        self._ticks: list[list[tuple[float, str]]] | None = None
        self._all_ticks: list[tuple[float, str]] | None = None
        self.capacity_line = capacity_line(self.plot, position=0.02, anchor=(0, 1))
        self.boundary = pg.InfiniteLine(
            angle=90, movable=False, label="", labelOpts={"position": 0.93, "anchors": [(0, 0.5), (0, 0.5)]}
        )
        self.current = pg.InfiniteLine(angle=90, movable=False)
        self.off_label = self.text_item((0, 0))  # where the peak leaves the top of the chart
        self._scale = 1.0  # bytes per unit of the y axis
        self.current_sample = pg.PlotDataItem()  # legend sample of the "this scenario" line
        for item in (self.boundary, self.current):
            item.setZValue(10)
            self.plot.addItem(item)

    # --- data ---------------------------------------------------------------------------------
    def set_axis(self, axis: str) -> None:
        """Sweep ``sequence_length``, ``batch_size`` or ``gpus`` (recomputes the sweep)."""
        if axis in SWEEP_AXES and axis != self.axis:
            self.set_view(replace(self.view, axis=axis))
            self.viewChanged.emit(self.view)

    def _view_changed(self) -> None:
        idx = self.selector.findData(self.axis)
        if idx != self.selector.currentIndex():
            blocked = self.selector.blockSignals(True)
            self.selector.setCurrentIndex(idx)
            self.selector.blockSignals(blocked)
        if self.scenario is not None:
            self._compute()
            self._redraw()

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        self.scenario = scenario
        self.gpu_name = estimate.gpu.name
        # the memory band's p10: a published peak of runs like this reached total / p10
        self.p10 = memory_evidence(scenario, estimate.gpu).band.p10
        sv = estimate.serving
        self.max_context = sv.max_context if sv is not None and not scenario.workload.trains else None
        self._compute()

    def _compute(self) -> None:
        assert self.scenario is not None
        self.result = sweep(self.scenario, self.axis, axis_values(self.scenario, self.axis))

    # --- drawing ------------------------------------------------------------------------------
    def _redraw(self) -> None:
        r = self.result
        assert r is not None and self.scenario is not None
        log_x = self.axis != "gpus"
        if log_x != self._log_x:  # a change of log mode re-maps every item: only when needed
            self.plot.setLogMode(x=log_x, y=False)
            self._log_x = log_x
        unit, scale = display_unit(self.unit, r.capacity_bytes * 2)
        self._scale = scale
        x = np.asarray(r.values, dtype=float)
        valid = np.asarray(r.valid, dtype=bool)
        totals = np.where(valid, np.asarray(r.totals, dtype=float) / scale, np.nan)
        self._shown = set()
        for c, curve in self.curves.items():
            y = np.where(valid, np.asarray(r.components[c], dtype=float) / scale, np.nan)
            if np.nanmax(y, initial=0.0) > 0:
                curve.setData(x, y, connect="finite")
                self._shown.add(c)
            else:  # a component that is zero everywhere is left out (and out of the legend)
                curve.setData([], [])
        self.total_curve.setData(x, totals, connect="finite")
        cap = r.capacity_bytes / scale
        self.over_curve.setData(x, np.fmax(np.nan_to_num(totals, nan=cap), cap), fillLevel=cap)
        self.capacity_line.setValue(cap)
        usable = f"{fmt_bytes(r.capacity_bytes, self.unit, 1)} usable"  # alone where the name is cut
        self._cap_words = (f"{self.gpu_name}: {usable}", usable)
        self.capacity_line.label.setFormat(self._cap_words[0])
        self._place_markers(log_x)
        lo, hi = (math.log10(x[0]), math.log10(x[-1])) if log_x else (x[0], x[-1])
        self._y_range(x, totals, cap, log_x, lo, hi)
        self.plot.setXRange(lo, hi, padding=0.01)
        self._all_ticks = log2_ticks(x[0], x[-1]) if log_x else None
        self._thin_ticks()
        self._texts_and_legend(unit)

    def _texts_and_legend(self, unit: str) -> None:
        assert self.scenario is not None
        name = self.knob_name()
        unit_of_x = {"sequence_length": " (tokens)", "batch_size": " (sequences)"}
        self.set_axis_label("bottom", name + unit_of_x.get(self.axis, ""))
        self.left_titles = (f"memory per GPU ({unit})", f"per GPU ({unit})", unit)
        fit_left_title(self, self.left_titles)
        self.set_title(
            f"{html.escape(self.scenario.model.name)}: memory per GPU vs {name}<br><span style="
            f"'font-size:{LABEL_PX + 1}px'>{self.fit_text()}</span>"
        )
        entries = [(self.total_curve, "peak")]
        entries += [(self.curves[c], COMPONENT_LABELS[c]) for c in reversed(COMPONENTS) if c in self._shown]
        entries.append((self.current_sample, "this scenario"))
        self.set_legend(entries)

    # --- style --------------------------------------------------------------------------------
    def _restyle_items(self) -> None:
        t = self.theme
        for c, curve in self.curves.items():
            curve.setPen(pg.mkPen(component_qcolor(c), width=LINE_PEN_WIDTH))
        self.total_curve.setPen(pg.mkPen(t.foreground, width=TOTAL_PEN_WIDTH))
        self.over_curve.setFillBrush(pg.mkBrush(t.qcolor("bad", 60)))
        style_line(self.capacity_line, t, font=font(LABEL_PX))
        self.boundary.setPen(pg.mkPen(t.bad, width=LINE_PEN_WIDTH))
        self.boundary.label.setColor(t.bad)
        self.boundary.label.setFont(font(LABEL_PX, bold=True))
        self.boundary.label.fill = pg.mkBrush(t.qcolor("background", 215))
        self.current.setPen(pg.mkPen(t.muted, width=LINE_PEN_WIDTH, style=pg.QtCore.Qt.PenStyle.DotLine))
        self.current_sample.setPen(self.current.pen)

    # --- hover and data -----------------------------------------------------------------------
    def tooltip_at(self, x: float, y: float) -> str:
        r = self.result
        if r is None:
            return ""
        v = 10**x if self.axis != "gpus" else x
        i = int(np.argmin(np.abs(np.asarray(r.values, dtype=float) - v)))
        if not r.valid[i]:
            return f"{AXIS_NAMES[self.axis]} {r.values[i]:,}: invalid layout"
        lines = [f"{AXIS_NAMES[self.axis]} {r.values[i]:,}: peak {fmt_bytes(r.totals[i], self.unit, 2)}"]
        lines += [
            f"  {COMPONENT_LABELS[c]}: {fmt_bytes(r.components[c][i], self.unit, 2)}"
            for c in COMPONENTS
            if r.components[c][i]
        ]
        return "\n".join(lines)

    def data_rows(self) -> list[list[Any]]:
        r = self.result
        rows: list[list[Any]] = [
            [
                self.axis,
                "valid",
                *[f"{c}_bytes" for c in COMPONENTS],
                "peak_bytes",
                f"peak_{self.unit}",
                "fits",
            ]
        ]
        if r is None:
            return rows
        fits = r.fits_under()
        for i, v in enumerate(r.values):
            rows.append(
                [
                    v,
                    r.valid[i],
                    *[r.components[c][i] for c in COMPONENTS],
                    r.totals[i],
                    round(to_unit(r.totals[i], self.unit), 3),
                    fits[i],
                ]
            )
        return rows
