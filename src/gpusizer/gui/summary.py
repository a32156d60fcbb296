"""The answer at a glance: peak per GPU against capacity, fits or not, what dominates, and the
assumptions it rests on. Marked stale (with the reason) while the input is invalid."""

from __future__ import annotations

import html
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..core.evidence.derived import add_serving_derived
from ..core.evidence.ranges import add_serving_ranges, estimate_evidence, evidence_block
from ..core.model.result import COMPONENT_LABELS, Estimate
from ..core.pipeline.report import serving_block
from ..core.pipeline.scenario import scenario_dict
from ..core.sizing.option import SizingOption
from ..io.band_text import fit_band_of, with_flip
from ..io.calibration import calibration_lines, estimate_calibration
from ..io.evidence_text import EVIDENCE_TIP, how_sure, how_sure_short
from ..io.rl_role_text import peak_roles_line, policy_words
from ..io.serving_text import feature_lines, speed_line, user_tokens, users_line
from ..io.wording import count, fit_of, gpus_needed_spans, verdict_line
from .binding import as_rich
from .colors import verdict_color
from .style import set_role, set_text_color
from .usage_bar import UsageBar


def verdict(est: Estimate, unit: str, short: bool = False) -> str:
    """``62.10 GiB of 79.65 GiB per GPU — fits, 17.55 GiB headroom`` (io/wording.py: the CLI
    and the report word it the same). ``short``: without the engine's reason for not starting,
    which the serving line under the headline gives in full (:func:`serving_text`)."""
    flip = fit_band_of(est, unit)  # the verdict flips inside the peak's band (io/band_text.py)
    fit = fit_of(est)
    if short and fit.engine_reason:
        fit = replace(fit, engine_reason="")
    return with_flip(verdict_line(fit, unit), flip)


def context_line(est: Estimate) -> str:
    """Model, workload, cluster, peak phase and the dominant component in one line."""
    s, mem = est.scenario, est.memory
    nodes = -(-est.gpus // s.hardware.gpus_per_node)
    dom = est.dominant
    parts = mem.sum_of_parts or 1
    share = 100 * getattr(mem, dom) / parts
    return (
        f"{s.model.name} · {s.workload.label} · "
        f"{est.gpus:,} × {est.gpu.name} ({count(nodes, 'node')}) · "
        f"peak in {mem.peak_phase} · dominated by {COMPONENT_LABELS[dom]} ({share:.0f}%)"
    )


def serving_text(est: Estimate) -> str:
    """The serving headline: "<b>N users at C tokens each</b>" and the speed they see."""
    sv = est.serving
    assert sv is not None
    block = serving_block(sv)
    add_serving_ranges(block, estimate_evidence(est)[1].band)
    add_serving_derived(block, estimate_evidence(est)[1].band)  # p99, cost, the P/D pools
    if not sv.starts:
        return (
            f"<b>{html.escape(est.scenario.profile.label)} does not start</b>: {html.escape(sv.reason or '')}"
        )
    w = est.scenario.workload
    users = users_line(block, user_tokens(block, w.prompt_tokens, w.generated_tokens))
    head, _, rest = users.partition(" (")
    extra = "".join(
        f"<br>{html.escape(line.strip())}" for line in feature_lines(block, _split_block(est))
    )  # prefix, speculative
    return f"<b>{head}</b> ({rest}<br>{speed_line(block)}{extra}"


def _split_block(est: Estimate) -> dict[str, Any] | None:
    """The scenario's ``serving.disaggregated`` block (the prefill pool's layout), if set."""
    spec = est.scenario.serving.disaggregated
    return None if spec is None else spec.model_dump()


def needs_text(est: Estimate, option: SizingOption | None) -> str:
    """What the advisor says about the scenario's GPU, in one line: how many to buy, laid out
    how, with which techniques (io/wording.py; rich text: the GPU's name is escaped, a name
    from a shared file must not load images or links)."""
    words = "".join(
        f"<b>{html.escape(text)}</b>" if strong else html.escape(text)
        for text, strong in gpus_needed_spans(est, option)
    )
    return f"<b>GPUs needed:</b> {words}"


class SummaryHeader(QFrame):
    """Big verdict, usage bar, context line, GPUs needed, assumptions line, stale banner.

    ``applyRequested(option)`` asks to apply the advised layout (a typed ``SizingOption``).
    """

    applyRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("summary")
        set_role(self, "card")
        self.unit = "GiB"
        self._est: Estimate | None = None
        self.calibrations: dict[str, Any] = {}  # My calibration by ``gpu|engine`` (io/calibration.py)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(14, 10, 14, 10)
        lay.setSpacing(4)
        self.verdict = self._label("label_verdict", "verdict")
        self.verdict.setWordWrap(True)  # never cut mid-word ("…1,248.59 GB shor" at 1280 px)
        self.bar = UsageBar()
        self.context = self._label("label_context", "context")
        self.context.setWordWrap(True)
        # RL: which role holds the peak, one elided line (the whole in its tooltip): wrapped, it
        # took the RL step chart's room at 1024 x 700 and pushed its legend beside the plot
        self.roles = self._label("label_rl_roles", "context")
        self.roles.hide()
        self.serving = self._label("label_serving", "figure", rich=True)  # users and speed
        self.serving.setWordWrap(True)
        self.serving.hide()
        self.needs = self._label("label_needs", "figure", rich=True)
        self.needs.setWordWrap(True)
        self.apply = QPushButton("Apply this layout")
        self.apply.setObjectName("button_apply_layout")
        self.apply.setToolTip(
            "Set the parallelism, GPUs per node and the techniques named (gradient "
            "checkpointing...) to the advised option."
        )
        self.apply.hide()
        self.apply.clicked.connect(lambda: self.applyRequested.emit(self._option))
        self._option: SizingOption | None = None
        needs_row = QHBoxLayout()
        needs_row.setContentsMargins(0, 0, 0, 0)
        needs_row.addWidget(self.needs, 1)
        needs_row.addWidget(self.apply)
        self.how_sure = self._label("label_how_sure", "hint")  # the evidence's confidence
        self.assumptions = self._label("label_assumptions", "hint")
        self.stale = self._label("label_stale", "stale")
        self.stale.setWordWrap(True)
        self.stale.hide()
        for w in (self.verdict, self.bar, self.context, self.roles, self.serving):
            lay.addWidget(w)
        lay.addLayout(needs_row)
        hints = QHBoxLayout()  # one row: the summary keeps its height, the charts theirs
        hints.setContentsMargins(0, 0, 0, 0)
        hints.setSpacing(12)
        hints.addWidget(self.how_sure, 1)
        hints.addWidget(self.assumptions, 1)
        lay.addLayout(hints)
        lay.addWidget(self.stale)

    def _label(self, name: str, role: str, rich: bool = False) -> QLabel:
        label = QLabel()
        # Plain text unless the label's own markup needs rich text: names in it come from
        # files other people share.
        label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        label.setObjectName(name)
        set_role(label, role)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setMinimumWidth(100)  # long lines elide instead of widening the window
        return label

    def set_units(self, unit: str) -> None:
        self.unit = unit
        if self._est is not None:
            self.set_estimate(self._est)

    def set_estimate(self, est: Estimate) -> None:
        self._est = est
        color = verdict_color(est)
        # The headline without the engine's reason: said twice, the headline took four lines at
        # 1366 x 768 and the Hardware tab's filters needed a scroll bar; the whole in its tooltip
        short, whole = verdict(est, self.unit, short=True), verdict(est, self.unit)
        self.verdict.setText(short)
        self.verdict.setToolTip(as_rich(whole) if whole != short else "")
        self._hold_height()
        set_text_color(self.verdict, color)
        self.bar.set_estimate(est)
        self.context.setText(context_line(est))
        self._set_roles(est)
        self.serving.setVisible(est.serving is not None)
        if est.serving is not None:
            self.serving.setText(serving_text(est))
        ev, cal_tip = evidence_block(est), ""
        cal = estimate_calibration(est, self.calibrations) if self.calibrations else None
        if cal:  # the user's own run of this GPU x engine (gui/my_calibration.py)
            ev, cal_tip = (
                cal["evidence"],
                "<br><br>" + "<br>".join(html.escape(x.strip()) for x in calibration_lines(cal)),
            )
        self._how_sure_text = how_sure_short(ev) + (
            f" · calibrated from your run of {cal['calibration']['date']}" if cal else ""
        )
        full = html.escape(how_sure({"evidence": ev}))
        self.how_sure.setToolTip(f"{full}{cal_tip}<br><br>{EVIDENCE_TIP}")
        text = "Assumes: " + " · ".join(est.assumptions)
        self.assumptions.setToolTip("<br>".join(html.escape(a) for a in est.assumptions))
        self._assumption_text = text
        self._elide()

    def _set_roles(self, est: Estimate) -> None:
        """RL: the roles holding the peak, worded as the CLI's (io/rl_role_text.py), one elided
        line; hidden for the other kinds and where one role holds the whole peak."""
        line = peak_roles_line(est.rl, self.unit, policy_words(scenario_dict(est.scenario))) if est.rl else ""
        # one role at the peak says no more than the context line's phase and largest component
        holders = [r for r in (est.rl or {}).get("peak_roles", ()) if r["total"]]
        line = line if len(holders) > 1 else ""
        self.roles.setVisible(bool(line))
        self._roles_text = line[:1].upper() + line[1:]
        self.roles.setToolTip(self._roles_text)

    def set_advice(self, est: Estimate, option: SizingOption | None) -> None:
        """Show how many GPUs are needed at least (None: nothing fits)."""
        self._option = option
        self.needs.setText(needs_text(est, option))
        self._hold_height()
        self.apply.setVisible(
            option is not None and not needs_text(est, option).endswith("the layout set here.")
        )

    def set_advice_pending(self) -> None:
        """The scenario changed: the last advice may be out of date until the next one."""
        self.apply.hide()
        if not self.needs.text().startswith("<span"):
            self.needs.setText(f"<span style='color:#8c959f'>{self.needs.text()}</span>")

    def set_error(self, error: object, whole: object = None) -> None:
        """Show why the estimate is stale (None clears the mark); ``whole``: the error with
        its field's path, in the tooltip (gui/error_field.py)."""
        self.stale.setVisible(error is not None)
        if error is not None:
            self.stale.setText(f"⚠ Showing the last valid estimate — {error}")
            self.stale.setToolTip(str(whole or error))

    def _elide(self) -> None:
        for label, text in (
            (self.assumptions, getattr(self, "_assumption_text", "")),
            (self.how_sure, getattr(self, "_how_sure_text", "")),
            (self.roles, getattr(self, "_roles_text", "")),
        ):
            width = max(label.width(), 200)
            label.setText(label.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, width))

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        self._elide()
        self._hold_height()

    def _hold_height(self) -> None:
        """Keep the height the wrapped lines need at this width: the charts below give way,
        the summary is never cut ("GPUs needed" lost its second line at 1280 x 720)."""
        lay = self.layout()
        if lay is not None and lay.hasHeightForWidth():
            need = lay.totalHeightForWidth(self.width())
            if need > 0 and need != self.minimumHeight():
                self.setMinimumHeight(need)
