"""The window as a user sees it at 1400 x 900 and at a small 1024 x 700, with the scenarios
this round's fields show in (Qwen3-30B-A3B training with EP 8 and DeepEP, NeMo RL with vLLM's
async engine, DeepSeek-V3 wide-EP serving split P/D with an opening burst): the panels'
column is never wider than its scroll area, whose horizontal bar is off, so no field is cut at
the right (gui/window_body.py ``_LeftScroll``). Screenshots of each were looked at."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from gpusizer.gui.main_window import MainWindow
from tests.scenarios import megatron_moe_pretraining

from .helpers import find, shown_window

EP8_DEEPEP = megatron_moe_pretraining(data=8, expert=8, expert_dispatcher="deepep", expert_overlap=True)
NEMO_ASYNC: dict[str, Any] = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
    "rl": {"framework": "nemo_rl", "rollout": {"prompts_per_step": 64, "tensor": 2, "async_engine": True}},
}
DSV3_PD: dict[str, Any] = {
    "model": {"preset": "deepseek-v3"},
    "framework": "sglang",
    "hardware": {"gpu": "h200-141gb", "gpus_per_node": 8},
    "parallelism": {"tensor": 16, "attention_data": 16, "expert": 16},
    "workload": {"kind": "inference", "batch_size": 64, "prompt_tokens": 2000, "generated_tokens": 500},
    "serving": {
        "moe_a2a_backend": "deepep_low_latency",
        "disaggregated": {"prefill_gpus": 16, "decode_gpus": 16, "opening_burst": True},
    },
}
SIZES = [(1400, 900), (1024, 700)]


def _column_fits(w: MainWindow) -> None:
    QApplication.processEvents()
    column, scroll = find(w, "left_column"), find(w, "left_scroll")
    # The Training panel's fused-kernel grid asked 437 px where the area showed 436: the
    # spin boxes' arrows and the preset list's counts fell under the vertical scroll bar.
    assert column.width() <= scroll.viewport().width(), (column.width(), scroll.viewport().width())
    assert column.width() >= column.minimumSizeHint().width()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("scenario", [EP8_DEEPEP, NEMO_ASYNC, DSV3_PD], ids=["ep8", "nemo", "pd"])
def test_the_panels_column_is_never_cut(qtbot, size, scenario) -> None:
    w = shown_window(qtbot, scenario, size, advice=False)
    _column_fits(w)


def test_the_column_widens_when_a_wider_panel_shows(window) -> None:
    """Serving first (no Training panel), then training: the splitter reads the wider minimum."""
    window.resize(1024, 700)
    window.state.set_scenario(DSV3_PD)
    window.state.flush()
    _column_fits(window)
    window.state.set_scenario(EP8_DEEPEP)
    window.state.flush()
    assert window.state.error is None, window.state.error
    _column_fits(window)


def test_max_sequences_tooltip_agrees_with_the_async_engines_default(window) -> None:
    """The field showed "default: 128 (vLLM async engine)" while its tooltip still said only
    verl's 1,024: both now name the async engine's default (vLLM 0.9.2's SchedulerConfig
    max_num_seqs 128, docs/scenario-format.md ``rl.rollout.async_engine``)."""
    window.state.set_scenario(NEMO_ASYNC)
    window.state.flush()
    assert window.state.error is None, window.state.error
    spin = find(window, "spin_rl_rollout_max_sequences")
    assert spin.text() == "default: 128 (vLLM async engine)"
    tip = spin.toolTip()
    assert "1,024" in tip and "async engine" in tip and "128" in tip


def test_roofline_in_a_small_window_drops_the_names_that_clash(qtbot) -> None:
    """At 1024 x 700 under the training summary the roofline's plot is about 200 px tall: the
    ridge and memory-roof figures were drawn over the step labels. Operation names, then the
    roofs' figures, now give way (the step labels stay); a taller plot shows them again."""
    from gpusizer.gui.charts.labels import overlaps

    w = shown_window(qtbot, EP8_DEEPEP, (1024, 700))
    w.tabs.select("roofline")
    QApplication.processEvents()
    chart: Any = w.tabs.current_chart()
    assert chart is not None
    chart.relayout()
    assert overlaps(chart.annotations()) == []
    assert all(x.isVisible() for x in chart.step_labels.values() if x.toPlainText())
    w.resize(1920, 1200)
    QApplication.processEvents()
    chart.relayout()
    assert chart.ridge_label.isVisible() and chart.memory_label.isVisible()


def test_a_long_summary_scrolls_in_a_short_window_and_the_chart_keeps_its_plot(qtbot) -> None:
    """DeepSeek-V3 split P/D with DeepEP at 1024 x 700: the summary took 340 of the answer
    side's 680 px and the chart tab kept a title and no plot. It now takes at most 40 % of
    the side and scrolls (gui/summary_scroll.py); at 1400 x 900 it is whole, as before."""
    from gpusizer.gui.summary_scroll import SHARE

    w = shown_window(qtbot, DSV3_PD, (1024, 700))
    QApplication.processEvents()
    scroll, summary = find(w, "summary_scroll"), find(w, "summary")
    side = scroll.parentWidget()
    assert scroll.height() <= int(side.height() * SHARE) + 1
    assert scroll.verticalScrollBar().maximum() > 0  # the rest is a scroll away, not cut
    for name in ("label_verdict", "label_needs", "label_serving"):
        label = find(w, name)
        assert label.height() >= label.heightForWidth(label.width()), name
    w.tabs.select("features")
    QApplication.processEvents()
    chart: Any = w.tabs.current_chart()
    assert chart is not None and chart.plot.vb.height() >= 60  # 18 px before, 73 px now
    w.resize(1400, 900)
    QApplication.processEvents()
    assert scroll.verticalScrollBar().maximum() == 0
    assert scroll.height() >= summary.minimumHeight()


def test_the_stale_banner_is_scrolled_into_view_in_a_short_window(qtbot) -> None:
    """A refused edit at 1024 x 700: the summary scrolls to its "last valid estimate" banner
    (the banner is its last line, under "GPUs needed")."""
    w = shown_window(qtbot, DSV3_PD, (1024, 700), advice=False)
    w.state.edit("serving.disaggregated.opening_burst", "yes", immediate=True)
    w.state.flush()
    QApplication.processEvents()
    scroll, stale = find(w, "summary_scroll"), find(w, "label_stale")
    assert stale.isVisible()
    top = stale.mapTo(scroll.widget(), stale.rect().topLeft()).y()
    bar = scroll.verticalScrollBar().value()
    assert bar <= top and top + stale.height() <= bar + scroll.viewport().height() + 1
