"""``serving.two_batch_overlap`` in the Serving panel ("Two-batch overlap", beside "MoE
exchange"; docs/scenario-format.md): shown where a MoE model's experts span more than one rank
(or a value is held), hidden for a dense model; it round-trips its field, and a scenario the
core refuses (no DeepEP exchange) shows the error beside it while the scenario keeps its last
valid value."""

from __future__ import annotations

from tests.scenarios import VLLM, vllm_serving

from .helpers import error_text, find, mismatches, set_scenario

MOE_EP = vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2, "attention_data": 2, "expert": 2})
SGLANG_EP = {**MOE_EP, "framework": "sglang", "serving": {"moe_a2a_backend": "deepep_low_latency"}}


def test_two_batch_overlap_row(window) -> None:
    set_scenario(window, VLLM)  # a dense model: no expert ranks
    box = find(window, "combo_serving_two_batch_overlap")
    assert not box.isVisibleTo(window)
    set_scenario(window, SGLANG_EP)
    assert box.isVisibleTo(window) and box.currentData() is None
    assert [box.itemData(i) for i in range(box.count())] == [None, True, False]
    box.setCurrentIndex(box.findData(True))
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.serving.two_batch_overlap is True
    window.state.edit("serving.moe_a2a_backend", None, immediate=True)  # TBO needs DeepEP
    window.state.flush()
    assert "deepep_ id" in error_text(window, "combo_serving_two_batch_overlap")
    assert window.state.scenario.serving.moe_a2a_backend == "deepep_low_latency"
    assert "--enable-two-batch-overlap" in box.toolTip()
    assert mismatches(window.binder) == []
