"""The memory chart's serving view: an engine's pool as it reserves it.

For an engine that reserves memory up front (vLLM, SGLang, TensorRT-LLM) the bar is what it
takes (weights, profile peak, non-torch memory and graphs, the KV pool); a dashed line marks
its budget (vLLM: memory fraction x device total; SGLang: weights + pool), and a mark inside
the KV pool shows how much of it the scenario's users fill. For llama.cpp the bar is the GPU's
share and the title says how much stays in system RAM. What to draw is the engine's memory
rule's answer (core/serving/rules ``pool_line``), not worked out here.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt

from ...core.model.result import Estimate, PoolLine
from ...io.units import fmt_bytes
from ...io.wording import count
from ..glossary import engine_name
from .palette import LABEL_PX, Theme, font
from .stack import style_line

_BELOW_KV = ("weights", "gradients", "optimizer", "activations")
HALF = 0.55 / 2  # half the bar's width


class PoolView:
    """The budget line, the users' mark in the KV pool and the words that go with them."""

    def __init__(self, plot: pg.PlotItem, label: pg.TextItem, budget_label: pg.TextItem) -> None:
        # The budget line's words are a free label, placed with the chart's others
        # (memory.py: labels.place) so that they never hide behind a bar's total.
        self.budget_line = pg.InfiniteLine(angle=0, movable=False)
        self.budget_line.setZValue(10)  # above the bars
        plot.addItem(self.budget_line)
        self.budget_label = budget_label
        self.mark = pg.PlotDataItem([], [])
        self.mark.setZValue(12)
        plot.addItem(self.mark)
        self.label = label
        self.reserved = False
        self.offload = False
        self.budget = 0
        self.share = ""
        self.used_kv = 0.0
        self.sv: Any = None
        self.mark_y = 0.0
        self.engine = ""
        self.budget_texts = ("", "")  # the budget's words, in full and short

    def set_estimate(self, est: Estimate) -> None:
        """Draw what the engine's memory rule said, kept on the estimate (``Estimate.pool``,
        core/serving/rules ``pool_line``: the budget and the users' KV, block-rounded with
        windows and state as the rule counts); the core is not asked again."""
        self.sv = est.serving
        self.engine = engine_name(est.scenario.profile)
        line = est.pool or PoolLine()
        self.reserved = line.reserved
        self.offload = line.host_split
        self.budget = line.budget_bytes
        self.share = line.budget_share
        self.used_kv = line.used_kv_bytes

    @property
    def bar_label(self) -> str:
        return "on the GPU" if self.offload else f"reserved by {self.engine}"

    def title(self, subject: str, peak: int, gpu: str, unit: str) -> str | None:
        sv = self.sv
        if sv is None or not (self.reserved or self.offload):
            return None
        if not sv.starts:
            return f"{subject}: {self.engine} does not start on {gpu}"
        if self.offload:
            return (
                f"{subject}: {fmt_bytes(peak, unit, 1)} on {gpu}, "
                f"{fmt_bytes(sv.host_memory_bytes, unit, 1)} in system RAM"
            )
        return (
            f"{subject}: {self.engine} reserves {fmt_bytes(peak, unit, 1)} per {gpu}, "
            f"KV pool {sv.kv_capacity_tokens:,} tokens"
        )

    def wanted(self) -> list[pg.TextItem]:
        """The labels this pool shows, room permitting (memory_labels.py hides one that finds
        none and shows it again when the chart grows)."""
        show = self.reserved and self.sv is not None and self.sv.starts
        return [x for x, on in ((self.label, show), (self.budget_label, show and self.budget > 0)) if on]

    def redraw(self, parts: dict[str, int], scale: float, unit: str) -> None:
        show = self.reserved and self.sv is not None and self.sv.starts
        self.budget_line.setVisible(show and self.budget > 0)
        wanted = self.wanted()
        for label in self.labels():
            label.setVisible(label in wanted)
        if not show:
            self.mark.setData([], [])
            return
        sv = self.sv
        if self.budget:
            self.budget_line.setValue(self.budget / scale)
            amount = fmt_bytes(self.budget, unit, 1)
            # the short form, two narrow lines, where the full one finds no room (memory_labels.py)
            self.budget_texts = (
                f"{self.engine} budget ({self.share}): {amount}",
                f"{self.engine} budget\n{amount}",
            )
            self.budget_label.setText(self.budget_texts[0])
        base = sum(parts.get(c, 0) for c in _BELOW_KV)
        y = (base + self.used_kv) / scale
        self.mark.setData([-HALF, HALF], [y, y])
        pct = 100 * self.used_kv / sv.kv_pool_bytes if sv.kv_pool_bytes else 0.0
        self.label.setText(f"your {count(sv.concurrency, 'user')}: {pct:.0f}% of the KV pool")
        self.mark_y = y

    def labels(self) -> list[pg.TextItem]:
        """The pool's free labels, in the order they are placed (labels.place)."""
        return [self.label, self.budget_label]

    def anchor_labels(self, x1: float) -> None:
        """Where the labels want to be (before nudging): the users' words right of their mark,
        the budget's at the plot's right edge under its line (clear of the bar)."""
        self.label.setPos(HALF + 0.03, self.mark_y)
        self.budget_label.setPos(x1, self.budget_line.value())

    def shorten_budget(self, x1: float) -> bool:
        """Put the budget's short words at its anchor (``x1``: the plot's right edge); False
        where they are already short (nothing left to try)."""
        short = self.budget_texts[1]
        if not short or self.budget_label.toPlainText() == short:
            return False
        self.budget_label.setText(short)
        self.budget_label.setPos(x1, self.budget_line.value())
        return True

    def tip(self, component: str, unit: str) -> str:
        sv = self.sv
        if sv is None or component != "kv_cache" or not (self.reserved or self.offload):
            return ""
        return (
            f"{sv.kv_capacity_tokens:,} tokens; {sv.max_concurrency:,.1f} requests of "
            f"{sv.max_context:,} tokens; your users fill "
            f"{fmt_bytes(self.used_kv, unit, 2)}"
        )

    def restyle(self, theme: Theme) -> None:
        style_line(self.budget_line, theme, color=theme.muted, font=font(LABEL_PX), width=1.5)
        self.mark.setPen(pg.mkPen(theme.foreground, width=3, style=Qt.PenStyle.SolidLine))
        self.label.setColor(theme.foreground)
        self.budget_label.setColor(theme.muted)
