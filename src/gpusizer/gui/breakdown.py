"""The memory breakdown as a table (component, size in the chosen unit, share) and the key
figures beside it (parameters, cluster memory, compute)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QIcon, QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from ..core.evidence.bands import Band
from ..core.evidence.ranges import estimate_evidence
from ..core.model.result import COMPONENT_LABELS, COMPONENTS, Estimate
from ..io.band_text import banded_aside
from ..io.evidence_text import TOOK, band_words, banded
from ..io.rl_role_text import component_roles
from ..io.serving_text import gpu_hours
from ..io.units import fmt_bytes, to_unit
from ..io.wording import count, duration
from .colors import component_qcolor
from .figure_bands import cost_text, rate_text
from .glossary import COMPONENT_TIPS

_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
WRAP_BELOW = 280  # px: the figures' names and values side by side from here up
_GREY, _INK = QBrush(QColor("#8a8a8a")), QBrush(QColor("#1f2328"))


def _swatch(component: str) -> QIcon:
    pix = QPixmap(12, 12)
    pix.fill(component_qcolor(component))
    return QIcon(pix)


class BreakdownTable(QTableWidget):
    """One row per component, then the peak; components freed before the peak are greyed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(len(COMPONENTS) + 1, 3, parent)
        self.setObjectName("table_breakdown")
        self.unit = "GiB"
        self._est: Estimate | None = None
        self._shown: dict[tuple[int, int], tuple[str, bool, str]] = {}
        self.setHorizontalHeaderLabels(["Component", "GiB", "Share"])
        self.verticalHeader().hide()
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        header = self.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # Fixed widths: size-to-contents would re-measure every cell on each estimate.
        metrics = self.fontMetrics()
        for col, sample in ((1, "000,000.00"), (2, "1000% of GPU")):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
            header.resizeSection(col, metrics.horizontalAdvance(sample) + 24)
        self.verticalHeader().setDefaultSectionSize(24)
        self._keep_component_column(metrics.horizontalAdvance(sample) + 24)
        for row, c in enumerate(COMPONENTS):
            label = COMPONENT_LABELS[c]
            item = QTableWidgetItem(_swatch(c), label[:1].upper() + label[1:])
            item.setToolTip(COMPONENT_TIPS[c])
            self.setItem(row, 0, item)
        peak = QTableWidgetItem("Peak per GPU")
        font = QFont(peak.font())
        font.setBold(True)
        peak.setFont(font)
        self.setItem(len(COMPONENTS), 0, peak)

    def component_width(self) -> int:
        """Pixels the Component column needs: its header's text, or the longest component name
        beside its colour swatch, whichever is wider."""
        metrics = self.fontMetrics()
        widest = max(metrics.horizontalAdvance(COMPONENT_LABELS[c].capitalize()) for c in COMPONENTS)
        header = self.horizontalHeader().fontMetrics().horizontalAdvance("Component")
        return max(header, widest + self.iconSize().width() + 8) + 16  # cell padding

    def _keep_component_column(self, share_width: int) -> None:
        """The width of the three columns and the scroll bar, which the details row gives the
        table before the figures (gui/window_body.py ``_Details``)."""
        fixed = self.horizontalHeader().sectionSize(1) + share_width
        bar = self.verticalScrollBar().sizeHint().width()
        self.wanted_width = self.component_width() + fixed + bar + 2 * self.frameWidth()

    def set_units(self, unit: str) -> None:
        self.unit = unit
        header = self.horizontalHeaderItem(1)
        if header is not None:
            header.setText(unit)
        if self._est is not None:
            self.set_estimate(self._est)

    def _cell(
        self, row: int, col: int, text: str, grey: bool = False, bold: bool = False, tip: str = ""
    ) -> None:
        """Update a cell in place (new items re-run the header's size-to-contents each)."""
        existing = self.item(row, col)
        item = existing if existing is not None else QTableWidgetItem()
        if existing is None:
            item.setTextAlignment(_RIGHT)
            if bold:
                font = QFont(item.font())
                font.setBold(True)
                item.setFont(font)
            self.setItem(row, col, item)
        if self._shown.get((row, col)) == (text, grey, tip):
            return  # unchanged: each item change costs a header resize pass
        self._shown[(row, col)] = (text, grey, tip)
        item.setText(text)
        item.setForeground(_GREY if grey else _INK)
        item.setToolTip(tip)

    def set_estimate(self, est: Estimate) -> None:
        self._est = est
        mem = est.memory
        parts = mem.sum_of_parts or 1
        for row, c in enumerate(COMPONENTS):
            value = getattr(mem, c)
            freed = c not in mem.alive_at_peak and value > 0
            tip = f"freed before the peak ({mem.peak_phase})" if freed else _part_tip(est, c, self.unit)
            self._cell(row, 1, f"{to_unit(value, self.unit):,.2f}", grey=freed or not value, tip=tip)
            self._cell(row, 2, f"{100 * value / parts:.1f}%", grey=freed or not value, tip=tip)
        last = len(COMPONENTS)
        self._cell(last, 1, f"{to_unit(mem.total, self.unit):,.2f}", bold=True)
        used = 100 * mem.total / max(est.capacity_bytes, 1)
        self._cell(
            last,
            2,
            f"{used:.0f}% of GPU",
            bold=True,
            tip=f"of {fmt_bytes(est.capacity_bytes, self.unit)} usable",
        )


def _part_tip(est: Estimate, component: str, unit: str) -> str:
    """A named part inside a component: DeepEP's buffers in the overhead
    (``serving.moe_a2a_buffer_bytes``, core/serving/a2a_memory.py); RL, the roles that hold the
    component at the peak (``rl.phases[i].memory_by_role``); empty elsewhere."""
    if est.rl is not None:  # RL: which roles hold it at the peak (io/rl_role_text.py)
        roles = component_roles(est.rl, est.memory.peak_phase, component, unit)
        return f"held by {roles} in {est.memory.peak_phase}" if roles else ""
    held = est.serving.moe_a2a_buffer_bytes if est.serving is not None else 0
    if component != "overhead" or not held:
        return ""
    return f"of which DeepEP buffers {fmt_bytes(held, unit)} (serving.moe_a2a_backend)"


def _big(n_bytes: float, unit: str) -> str:
    """GiB/GB, or TiB/TB past 2,000 of them."""
    big = {"GiB": "TiB", "GB": "TB"}[unit]
    return fmt_bytes(n_bytes, big if to_unit(n_bytes, unit) >= 2000 else unit)


def _count(n: float) -> str:
    for div, suffix in ((1e12, " T"), (1e9, " B"), (1e6, " M"), (1e3, " k")):
        if abs(n) >= div:
            return f"{n / div:,.2f}{suffix}"
    return f"{n:,.0f}"


# the figures row's derived figures carry their regime's band as the CLI's lines do
# (core/evidence/derived.py: a cost, GPU-hours or wall time scales with the time)
def _time(b: Band, v: float, fmt: Any = duration) -> str:
    return banded(fmt(v), b.time_range(v) if v else None, fmt, v, TOOK)


def _scaled(rng: tuple[float, float] | None, k: float) -> tuple[float, float] | None:
    return None if rng is None else (rng[0] * k, rng[1] * k)


def _whole(v: float) -> str:
    return f"{v:,.0f}"


def _hours(v: float) -> str:
    return f"{v:,.0f}" if v >= 10 else f"{v:,.2f}"


def _rl_rows(rl: dict[str, Any], band: Band) -> list[tuple[str, str]]:
    """RL post-training's step and run (core/pipeline/rl_report.py), not the training phase's
    time alone, which is one part of the step; each with its regime's band (``speed/rl/...``:
    where published steps like it landed, the report's ``rl.*_range``)."""
    step = rl["time_per_step_seconds"]
    rows = [("Time per step", banded(duration(step), band.time_range(step), duration, step, TOOK))]
    if rl.get("steps") and rl.get("run_seconds"):
        sec = rl["run_seconds"]
        run = banded(duration(sec), band.time_range(sec), duration, sec, TOOK)
        h = rl["gpu_hours"]
        run = f"{run} ({banded_aside(gpu_hours(h), band.time_range(h), _hours, h)})"
        rows.append((f"Run ({count(rl['steps'], 'step')})", run))
    gen = rl["tokens_generated_per_second"]
    rows.append(("Generated", banded(f"{_whole(gen)} tokens/s", band.size_range(gen), _whole, gen)))
    return rows


def _training_time(est: Estimate) -> str:
    """``10.2 h (8.2 h to 11.9 h) at 39% MFU (10 GPU-hours, runs like this 8.2-11.9)``: the time
    with its regime's band, the one the CLI's ``training`` line gives
    (core/evidence/ranges.py ``time_seconds_range``; io/serving_text.py ``training_line``)."""
    c = est.compute
    t = c.time_seconds
    rng = estimate_evidence(est)[1].band.time_range(t)
    band = f" ({band_words(rng, duration, t, TOOK, ' to ')})" if rng else ""
    hours = banded_aside(gpu_hours(c.gpu_hours), _scaled(rng, c.gpu_hours / t), _hours, c.gpu_hours)
    return f"{duration(t)}{band} at {c.mfu:.0%} MFU ({hours})"


class FiguresView(QWidget):
    """Key figures of the estimate as label rows (selectable, so they can be copied)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("figures")
        self.unit = "GiB"
        self._est: Estimate | None = None
        self.form = QFormLayout(self)
        self.form.setContentsMargins(8, 4, 8, 4)
        self.form.setVerticalSpacing(5)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.values: dict[str, QLabel] = {}

    def set_units(self, unit: str) -> None:
        self.unit = unit
        if self._est is not None:
            self.set_estimate(self._est)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Below :data:`WRAP_BELOW` px (beside the table in a 1024 px window) each value goes
        under its name, the whole width its own, rather than three words a line."""
        policy = QFormLayout.RowWrapPolicy
        wanted = policy.WrapAllRows if event.size().width() < WRAP_BELOW else policy.DontWrapRows
        if self.form.rowWrapPolicy() != wanted:
            self.form.setRowWrapPolicy(wanted)
            self.form.setLabelAlignment(
                Qt.AlignmentFlag.AlignLeft if wanted == policy.WrapAllRows else Qt.AlignmentFlag.AlignRight
            )
        super().resizeEvent(event)

    def _rows(self, est: Estimate) -> list[tuple[str, str]]:
        c, s, u = est.compute, est.scenario, self.unit
        rows = [
            # these figures are the file's own layout, not a Hardware row's (a PPO split case read
            # 3.4 min a step here beside the table's 8-GPU H100 row at 32.8 s)
            ("Figures for", f"the file as set: {count(est.gpus, 'GPU')} x {est.gpu.name}"),
            ("Parameters", f"{_count(est.parameters_total)} total, {_count(est.parameters_active)} active"),
            (
                "Cluster memory",
                f"{_big(est.memory.total * est.gpus, u)} on {count(est.gpus, 'GPU')}",
            ),
            ("FLOPs per token", _count(c.flops_per_token)),
        ]
        if s.workload.trains:
            rows.insert(2, ("Trainable", _count(est.parameters_trainable)))
            if est.rl is not None:  # a step of phases: the policy's training is one of them
                rows += _rl_rows(est.rl, estimate_evidence(est)[1].band)
            elif c.time_seconds:
                rows.append(("Training time", _training_time(est)))
                share = c.effective_time_share or 1.0  # restarts and lost work
                wall = _time(estimate_evidence(est)[1].band, c.time_seconds / share)
                rows.append(("Wall time", f"{wall} at {share:.2%} effective"))
        elif est.serving is not None:  # as the engine runs it (the step costs included)
            sv = est.serving
            if not sv.starts:
                return [*rows, ("Serving", "the engine does not start")]
            b = estimate_evidence(est)[1].band
            rows += [("First token", _time(b, sv.ttft_seconds)), ("Per token", _time(b, sv.tpot_seconds))]
            rows.append(("Throughput", rate_text(b, sv.tokens_per_second, sv.tokens_per_second_per_user)))
            if sv.host_memory_bytes:
                rows.append(("System RAM", _big(sv.host_memory_bytes, u)))
            if sv.cost_per_million_tokens is not None:
                rows.append(("Cost", cost_text(b, sv.cost_per_million_tokens)))
        else:
            rows += [
                ("Prefill", duration(c.prefill_seconds)),
                ("Per token", duration(c.decode_seconds_per_token)),
                ("Throughput", f"{c.tokens_per_second:,.0f} tokens/s"),
            ]
        return rows

    def set_estimate(self, est: Estimate) -> None:
        self._est = est
        rows = self._rows(est)
        if [r[0] for r in rows] != list(self.values):
            while self.form.rowCount():
                self.form.removeRow(0)
            self.values = {}
            for name, _v in rows:
                label = QLabel()
                label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                label.setWordWrap(True)  # narrow windows: the breakdown table keeps its width
                self.form.addRow(QLabel(name), label)
                self.values[name] = label
        for name, value in rows:
            self.values[name].setText(value)
