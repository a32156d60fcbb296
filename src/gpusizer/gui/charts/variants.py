"""Training vs inference: the same model pre-trained, fine-tuned and served, side by side.

Each bar is the whole job's peak as if it sat on one GPU (core/views/variants.py), stacked by the
components alive at the peak, labelled with how many of the chosen GPUs it needs; dashed lines
mark one GPU and one node of them, their labels where they cover no bar and no bar's label
(else the legend alone names them). A serving engine that reserves its memory draws what each
variant needs (weights, the KV cache at the scenario's load) inside a dashed outline of the
pool it reserves. The subtitle carries the seed articles' arithmetic (model
states at 16 B/param, checkpoint weights at FP16 / FP8 / INT4).

The variants are estimates of other kinds of work than the scenario's: that is this chart's
data, not the Estimate's, so it calls the core (tests/test_views_do_not_compute.py allows it).
"""

from __future__ import annotations

import html
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFontMetricsF

from ...core.model.result import COMPONENT_LABELS, COMPONENTS, Estimate
from ...core.model.specs import Scenario
from ...core.registry.workloads import WORKLOAD_KINDS
from ...core.views.variants import Variants, variants
from ...io.units import to_unit
from ...io.wording import count
from ..elide import labelled
from .axis_title import fit_left_title
from .background import WorkerChart
from .base import ChartBase, display_unit
from .labels import Leaders
from .palette import LABEL_PX, font
from .stack import StackedBars, capacity_line, style_line
from .tick_fit import edge_margin, fitted_ticks, short_names, two_lines
from .variants_labels import VariantLabels, short_bytes

tick_label = two_lines  # the tick text of one bar where the pitch is wide enough


def _numbers(values: list[int], unit: str) -> str:
    """Byte counts in one unit (TB/TiB past 2,000 GB/GiB): "812 / 406 / 203 GB"."""
    big, size = display_unit(unit, max(values))
    digits = 2 if big != unit else 0 if max(values) >= 100 * size else 1
    return " / ".join(f"{v / size:,.{digits}f}" for v in values) + f" {big}"


class VariantsChart(VariantLabels, WorkerChart, ChartBase):
    """Pre-training, full fine-tune, LoRA, QLoRA and inference FP16/FP8/INT4 of one model."""

    title = "Training vs inference"
    grid_x = False

    def _build(self) -> None:
        self.cmp: Variants | None = None
        self.left_titles = ("memory of the whole job",)
        self.stack = StackedBars(self.plot, width=0.62)
        # The pool an engine reserves, outlined around what the variant needs.
        self.pools = pg.BarGraphItem(x=[], height=[], width=0.62, brush=None)
        self.pools.setZValue(5)
        self.plot.addItem(self.pools)
        # Host RAM the job uses beside the GPU (llama.cpp's CPU layers, offloads), hatched
        # above the GPU's part: a 405B on one 24 GB card is mostly here.
        self.host = pg.BarGraphItem(x=[], height=[], y0=[], width=0.62)
        self.host.setZValue(4)
        self.plot.addItem(self.host)
        # Short labels at the left end; the full story is in the legend (the right of the plot
        # is where the small inference bars carry their own labels).
        self.gpu_line = capacity_line(self.plot, position=0.01, anchor=(0, 1))
        self.node_line = capacity_line(self.plot, position=0.01, anchor=(0, 1))
        self.gpu_sample = pg.PlotDataItem()  # legend samples of the two lines
        self.node_sample = pg.PlotDataItem()
        self.plot.getAxis("bottom").setHeight(52)  # two-line tick labels
        self.bar_labels: list[pg.TextItem] = []  # one per bar, made as bars appear
        self.leaders = Leaders(self.plot)
        self._top = 1.0
        self.plot.setMouseEnabled(x=False, y=False)

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        self.cmp = variants(scenario)

    def update_from(self, scenario: Scenario, estimate: Estimate) -> None:
        """In the window the variants are estimated in a worker (charts/background.py)."""
        if not self.background:
            super().update_from(scenario, estimate)
            return
        self._in_worker(variants, labelled(scenario, estimate)[0])

    def _show_data(self, cmp: Variants) -> None:
        self.cmp = cmp

    def _redraw(self) -> None:
        cmp = self.cmp
        assert cmp is not None
        top_bytes = max(max(max(b.total + b.host, b.reserved) for b in cmp.bars), cmp.capacity_bytes)
        unit, scale = display_unit(self.unit, top_bytes)
        self.stack.set_bars([b.at_peak for b in cmp.bars], scale)
        hosted = [(i, b) for i, b in enumerate(cmp.bars) if b.host]
        self.host.setOpts(
            x=[i for i, _b in hosted],
            y0=[b.total / scale for _i, b in hosted],
            height=[b.host / scale for _i, b in hosted],
            width=0.62,
        )
        self.host.setVisible(bool(hosted))
        pooled = [(i, b.reserved / scale) for i, b in enumerate(cmp.bars) if b.reserved]
        self.pools.setOpts(x=[i for i, _h in pooled], height=[h for _i, h in pooled], width=0.62)
        self.pools.setVisible(bool(pooled))
        self.gpu_line.setValue(cmp.capacity_bytes / scale)
        self.gpu_line.label.setFormat("GPU's share" if cmp.unified else "1 GPU")
        node = cmp.node_capacity_bytes
        # The node line only where it tells something: within reach of the tallest bar.
        self.node_line.setVisible(node <= 1.5 * top_bytes and cmp.gpus_per_node > 1)
        self.node_line.setValue(node / scale)
        sold = cmp.gpus_per_node * cmp.memory_as_sold_gb
        self.node_line.label.setFormat(f"1 node ({count(cmp.gpus_per_node, 'GPU')})")
        top = max(top_bytes, node if self.node_line.isVisible() else 0) / scale
        self.plot.setXRange(-0.6, len(cmp.bars) - 0.4, padding=0)
        self._fit_ticks()
        self._top = top * 1.05
        self.plot.setYRange(0, self._top, padding=0)
        self.left_titles = (f"memory of the whole job ({unit})", f"whole job ({unit})", unit)
        fit_left_title(self, self.left_titles)
        self._set_titles()
        entries = self.stack.legend_entries()
        engines = sorted({b.engine for b in cmp.bars if b.reserved})
        if engines:
            reserved = max(b.reserved for b in cmp.bars)
            pool = f"{' / '.join(engines)} reserves {short_bytes(reserved, self.unit)}<br>(its pool)"
            entries.append((self.pools, pool))
        if hosted:
            where = "the CPU's share of unified memory" if cmp.unified else "host RAM (CPU), beside the GPU"
            entries.append((self.host, f"in {where}"))
        # The GPU is named in the title: a long name here would squeeze the plot.
        gpu = "GPU's share of unified memory" if cmp.unified else "1 GPU"
        entries.append((self.gpu_sample, f"{gpu}: {short_bytes(cmp.capacity_bytes, self.unit)}"))
        if self.node_line.isVisible():
            # The cards' names' "80GB" beside GiB usable; in GB the usable 684 GB of an
            # 8 x H100 node read as more than its "640 GB as sold" (the names' GB are binary)
            sold_text = f"<br>({sold:,.0f} GB as sold)" if self.unit == "GiB" else ""
            entries.append(
                (
                    self.node_sample,
                    f"1 node, {count(cmp.gpus_per_node, 'GPU')}: {short_bytes(node, self.unit)}{sold_text}",
                )
            )
        self.set_legend(entries)
        self._update_labels(scale)

    def _fit_ticks(self) -> None:
        """The bars' names under them in the first form that keeps neighbours apart at the
        bars' pitch (tick_fit.py), room at both ends for the outer names, and the axis as tall
        as their lines. The pitch comes from the plot's width, not its current range (the
        range follows the names' room)."""
        assert self.cmp is not None
        bars, axis = self.cmp.bars, self.plot.getAxis("bottom")
        metrics = QFontMetricsF(axis.style.get("tickFont") or axis.font())
        width = metrics.horizontalAdvance
        labels = [b.label for b in bars]
        shorts = short_names(labels, [b.kind for b in bars], [b.weights_dtype.upper() for b in bars])
        texts, lines = [two_lines(x) for x in labels], 2
        span, left, right = self.plot.vb.width(), 0.6, 0.6
        for _ in range(3):  # the pitch and the ends' room settle in a pass or two
            pitch = span / (len(bars) - 1 + left + right)
            texts, lines = fitted_ticks(labels, shorts, pitch, width)
            left, right = edge_margin(texts[0], pitch, width), edge_margin(texts[-1], pitch, width)
        axis.setTicks([list(enumerate(texts))])
        self.plot.setXRange(-left, len(bars) - 1 + right, padding=0)
        height = 52 + int((lines - 2) * metrics.lineSpacing())  # two lines in 52 px
        if axis.height() != height:
            axis.setHeight(height)

    def _set_titles(self) -> None:
        cmp = self.cmp
        assert cmp is not None
        facts = []
        # The seed articles' arithmetic, from the registry's entries: the model states of the
        # first kind that trains every weight, the checkpoint weights of the first kind shown
        # at several weight formats (inference at FP16 / FP8 / INT4).
        kinds = [WORKLOAD_KINDS[b.kind] for b in cmp.bars]
        trains_all = [b for b, k in zip(cmp.bars, kinds, strict=True) if k.trains and not k.is_adapter]
        full = trains_all[0] if trains_all else None
        if full is not None:
            facts.append(
                f"model states at {full.model_states / cmp.parameters:.0f} B/param: "
                f"{self._series([full.model_states])}"
            )
        many = next((k for k in kinds if len(k.variant_weights) > 1), None)
        shown = [b for b in cmp.bars if many is not None and b.kind == many.id]
        if len(shown) > 1:
            names = " / ".join(b.weights_dtype.upper() for b in shown)
            facts.append(f"weights {names}: {self._series([b.nominal_weights for b in shown])}")
        sub = " · ".join(facts)
        self.set_title(
            f"{html.escape(cmp.model_name)} ({cmp.parameters / 1e9:,.1f} B params): "
            f"training vs inference, whole job, on {html.escape(cmp.gpu_name)}<br>"
            f"<span style='font-size:14px;color:{self.theme.muted}'>{sub}</span>",
            # one line where the chart is short: the whole title is then its tooltip
            short=f"{html.escape(cmp.model_name)}: training vs inference on {html.escape(cmp.gpu_name)}",
        )

    def _series(self, values: list[int]) -> str:
        """ "756 / 378 / 189 GiB (812 / 406 / 203 GB)": the published figures are decimal, so
        in GiB mode they are given in GB too, to be recognised."""
        out = _numbers(values, self.unit)
        return f"{out} ({_numbers(values, 'GB')})" if self.unit == "GiB" else out

    def _restyle_items(self) -> None:
        self.stack.restyle(self.theme)
        pen = pg.mkPen(QColor(self.theme.foreground), width=1.5, style=Qt.PenStyle.DashLine)
        self.pools.setOpts(pen=pen, brush=None)
        host_color = QColor(self.theme.muted)
        self.host.setOpts(
            pen=pg.mkPen(host_color, width=1), brush=QBrush(host_color, Qt.BrushStyle.BDiagPattern)
        )
        style_line(self.gpu_line, self.theme, font=font(LABEL_PX))
        style_line(self.node_line, self.theme, color=self.theme.bad, font=font(LABEL_PX))
        self.gpu_sample.setPen(self.gpu_line.pen)
        self.node_sample.setPen(self.node_line.pen)
        if self.has_data:
            self._set_titles()
            self._update_labels(self.stack.scale)
            self.relayout()

    def tooltip_at(self, x: float, y: float) -> str:
        label = self.label_tip(x, y)
        if label:
            return label
        hit = self.stack.segment_at(x, y)
        if hit is None and self.cmp is not None:
            return self._host_tip(x, y)
        if hit is None or self.cmp is None:
            return ""
        b = self.cmp.bars[hit[0]]
        return (
            f"{b.label}: {COMPONENT_LABELS[hit[1]]} {short_bytes(b.at_peak[hit[1]], self.unit)}\n"
            f"peak {short_bytes(b.total, self.unit)} ({b.peak_phase.replace('_', ' ')}), "
            f"{b.gpus_needed} × {self.cmp.gpu_name}"
            + ("" if b.starts else f"; {b.engine or 'the engine'} does not start on one GPU")
        )

    def _host_tip(self, x: float, y: float) -> str:
        """The hatched host-RAM part of a bar under the pointer, or ""."""
        assert self.cmp is not None
        i, scale = round(x), self.stack.scale
        if not 0 <= i < len(self.cmp.bars) or abs(x - i) > self.stack.width / 2:
            return ""
        b = self.cmp.bars[i]
        if not b.host or not b.total / scale <= y <= (b.total + b.host) / scale:
            return ""
        return (
            f"{b.label}: {short_bytes(b.host, self.unit)} in host RAM (CPU) beside "
            f"{short_bytes(b.total, self.unit)} on {b.gpus_needed} × {self.cmp.gpu_name}"
        )

    def data_rows(self) -> list[list[Any]]:
        u = self.unit
        head = [
            "variant",
            "kind",
            "weights_dtype",
            *[f"{c}_bytes" for c in COMPONENTS],
            "peak_bytes",
            f"peak_{u}",
            "model_states_bytes",
            "nominal_weights_bytes",
            "gpus_needed",
            "reserved_bytes",
            "host_bytes",
        ]
        rows: list[list[Any]] = [head]
        for b in self.cmp.bars if self.cmp else ():
            rows.append(
                [
                    b.label,
                    b.kind,
                    b.weights_dtype,
                    *[b.at_peak.get(c, 0) for c in COMPONENTS],
                    b.total,
                    round(to_unit(b.total, u), 2),
                    b.model_states,
                    b.nominal_weights,
                    b.gpus_needed,
                    b.reserved,
                    b.host,
                ]
            )
        return rows
