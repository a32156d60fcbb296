"""The window at 1366 x 768 as a user sees it (docs/evidence/surfaces.md, "The window at
1366x768 and 1920x1080, tab by tab"): where the engine does not start, the headline no longer
repeats the reason the serving line under it gives (four lines of red pushed the Hardware
tab's filters under a scroll bar); the Serving features chart says in the plot why its curves
lie flat on 0; the controls seen without a tooltip have one; and the RL step's hint for other
kinds says what kind it needs."""

from __future__ import annotations

import html
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from gpusizer.core.registry.workloads import WORKLOAD_KINDS
from gpusizer.core.views.settings import chart_view
from gpusizer.gui.charts.labels import scene_rect
from gpusizer.gui.summary import verdict

from .helpers import find, open_rl_sections, shown_window
from .test_chart_labels import make

# Llama 3.1 70B FP8 with EAGLE-3 and a shared prefix on one H100 (a buyer's file,
# tests/cli/data/buyer/serve-llama-70b-eagle3-4k-system-prompt.gpusizer.json, with its GPU):
# vLLM does not start, the KV cache of one 8,192-token request not fitting beside the proposer
NO_START = {
    "model": {"preset": "llama-3.1-70b"},
    "framework": "vllm",
    "precision": {"weights": "fp8"},
    "workload": {"kind": "inference", "prompt_tokens": 5120, "generated_tokens": 512},
    "serving": {
        "max_context": 8192,
        "prefix": {"shared_tokens": 4096, "hit_rate": 0.9},
        "speculative": {"method": "eagle3", "num_tokens": 3},
    },
    "hardware": {"gpu": "h100-sxm-80gb"},
}
STARTS = {**NO_START, "model": {"preset": "llama-3.1-8b"}}
RL_SPLIT = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "fsdp",
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "rl": {"algorithm": "grpo", "steps": 1000, "placement": "split", "rollout": {"gpus": 8}},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


def test_headline_leaves_the_reason_to_the_serving_line(qtbot) -> None:
    w = shown_window(qtbot, NO_START, (1366, 768))
    est, head = w.state.estimate, w.summary.verdict.text()
    reason = est.serving.reason
    assert reason and "does not start" in head and "more per GPU would start it" in head
    assert reason not in head  # said once, in the serving line under the headline
    assert reason in html.unescape(w.summary.serving.text())
    assert reason in html.unescape(w.summary.verdict.toolTip())  # the CLI's whole line on hover
    assert verdict(est, "GiB").endswith(reason)  # the CLI's and report's wording, unchanged
    # the headline on two lines, not four: the Hardware tab's filters all in view
    assert w.summary.verdict.height() <= 3 * w.summary.verdict.fontMetrics().lineSpacing()


def test_headline_of_a_started_engine_is_unchanged(qtbot) -> None:
    w = shown_window(qtbot, STARTS, (1366, 768), advice=False)
    assert w.summary.verdict.text() == verdict(w.state.estimate, "GiB")
    assert w.summary.verdict.toolTip() == ""


def test_features_chart_says_why_it_is_flat(qtbot) -> None:
    chart = make(qtbot, "features", NO_START, (880, 330))  # its size at 1366 x 768
    assert chart.note.isVisible()
    text = chart.note.toPlainText()
    assert text.startswith("vLLM starts at none of these user counts") and "verdict" in text
    area = chart.plot.vb.sceneBoundingRect()
    assert area.contains(chart.note.mapRectToScene(chart.note.boundingRect()))


def test_features_chart_with_curves_has_no_note(qtbot) -> None:
    chart = make(qtbot, "features", STARTS, (880, 330))
    assert any(chart.data.with_features) and not chart.note.isVisible()


def test_controls_seen_without_a_tooltip_have_one(qtbot) -> None:
    w = shown_window(qtbot, RL_SPLIT, (1366, 768), advice=False)
    w.tabs.select("sweep")
    QApplication.processEvents()
    toggles = [f"toggle_rl_{k}" for k in ("policy", "rollout", "between")]
    names = ["edit_model_search", "combo_sweep_axis", *toggles]
    tips: dict[str, Any] = {n: find(w, n).toolTip() for n in names}
    assert all(tips.values()), tips
    assert tips["toggle_rl_rollout"].startswith("Show the rollout engine details")
    open_rl_sections(w)
    assert find(w, "toggle_rl_rollout").toolTip().startswith("Hide")


def test_rl_step_hint_names_the_kind_it_needs() -> None:
    hint = chart_view("rl_timeline").hint(WORKLOAD_KINDS["inference"])
    assert hint.endswith("a question about RL post-training. Choose it as the workload kind to see it.")
    assert "step of phases" not in hint


# Llama 3.3 70B FP8 on one H100 at max_context 8,192 (tests/cli/data/buyer/
# serve-llama-3.3-70b-fp8-pd-vllm-chat.gpusizer.json, with its GPU): vLLM starts at no prompt
# length, so the boundary stands at the sweep's left end, beside the capacity's words
PD_ONE_GPU = {
    "model": {"preset": "llama-3.3-70b"},
    "framework": "vllm",
    "precision": {"weights": "fp8"},
    "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
    "serving": {"max_context": 8192, "disaggregated": {"prefill_gpus": 2, "decode_gpus": 4}},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


@pytest.mark.parametrize("size", [(880, 330), (1400, 420)])  # the chart at 1366 and 1920 px
def test_sweep_boundary_words_leave_the_capacity_words_visible(qtbot, size) -> None:
    chart = make(qtbot, "sweep", PD_ONE_GPU, size)
    cap, boundary = chart.capacity_line.label, chart.boundary.label
    assert chart.boundary.isVisible() and "does not start" in boundary.toPlainText()
    assert "usable" in cap.toPlainText()
    assert not scene_rect(cap).intersects(scene_rect(boundary))
    area = chart.plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    assert area.contains(scene_rect(cap)) and area.contains(scene_rect(boundary))
