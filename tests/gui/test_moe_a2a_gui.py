"""``serving.moe_a2a_backend`` in the Serving panel ("MoE exchange", docs/scenario-format.md):
shown where a MoE model's experts span more than one rank (or a value is held, so a refusal
shows beside it), hidden for a dense model; its choices are the registry's
(core/registry/moe_a2a.py), it round-trips its field, and an engine that does not run the
backend shows the core's error beside it while the scenario keeps its last valid value."""

from __future__ import annotations

from gpusizer.core.registry.moe_a2a import MOE_A2A_BACKENDS
from tests.scenarios import VLLM, vllm_serving

from .helpers import error_text, find, mismatches, set_scenario

MOE_EP = vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2, "attention_data": 2})


def test_moe_exchange_shown_under_expert_parallelism_only(window) -> None:
    set_scenario(window, VLLM)  # a dense model: no expert ranks
    box = find(window, "combo_serving_moe_a2a_backend")
    assert not box.isVisibleTo(window)
    set_scenario(window, MOE_EP)
    assert box.isVisibleTo(window) and box.currentData() is None
    assert [box.itemData(i) for i in range(box.count())] == [None, *MOE_A2A_BACKENDS]
    box.setCurrentIndex(box.findData("deepep_low_latency"))
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.serving.moe_a2a_backend == "deepep_low_latency"
    window.state.edit("serving.moe_a2a_backend", "deepep_auto", immediate=True)  # SGLang's alone
    window.state.flush()
    assert "runs under sglang, not vLLM" in error_text(window, "combo_serving_moe_a2a_backend")
    assert window.state.scenario.serving.moe_a2a_backend == "deepep_low_latency"
    set_scenario(window, {**VLLM, "serving": {"moe_a2a_backend": "deepep_normal"}})  # held: shown
    assert box.isVisibleTo(window) and box.currentData() == "deepep_normal"
    assert "--all2all-backend" in box.toolTip()
    assert mismatches(window.binder) == []
