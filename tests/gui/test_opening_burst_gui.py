"""``serving.disaggregated.opening_burst`` in the Serving panel as "Opening burst" (off, on,
off as stated), shown with a prefill pool beside "Arrival burstiness": it round-trips its
field and moves the split's first token, the aggregated answer unchanged
(core/serving/disagg_burst.py, docs/scenario-format.md)."""

from __future__ import annotations

from typing import Any

from tests.scenarios import VLLM

from .helpers import find, mismatches, set_scenario

BOX = "combo_disaggregated_opening_burst"
# Llama 3.1 8B under vLLM at a batch of 16 on H100s, one prefill and one decode GPU: 16 users
# reach one prefill replica at once
SPLIT: dict[str, Any] = {**VLLM, "serving": {"disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}}}


def test_shown_with_a_prefill_pool_null_by_default(window) -> None:
    set_scenario(window, VLLM)
    box = find(window, BOX)
    assert not box.isVisibleTo(window)
    set_scenario(window, SPLIT)
    assert box.isVisibleTo(window)
    assert box.currentData() is None and box.currentText() == "off"
    assert "aiperf" in box.toolTip() and "serving.requests" in box.toolTip()


def test_edit_reaches_the_scenario_and_the_answer(window) -> None:
    set_scenario(window, SPLIT)
    base = window.state.estimate.serving
    box = find(window, BOX)
    box.setCurrentIndex(box.findData(True))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.serving.disaggregated.opening_burst is True
    sv = window.state.estimate.serving
    assert sv.disaggregated_ttft_seconds > base.disaggregated_ttft_seconds
    assert sv.disaggregated_tpot_seconds == base.disaggregated_tpot_seconds
    assert sv.ttft_seconds == base.ttft_seconds  # the aggregated answer
    assert mismatches(window.binder) == []
    box.setCurrentIndex(box.findData(None))
    window.state.flush()
    assert window.state.scenario.serving.disaggregated.opening_burst is None
