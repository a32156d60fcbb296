"""``serving.redundant_experts`` in the Serving panel ("Redundant experts",
docs/scenario-format.md): shown where a MoE model's experts span more than one rank (or a value
is held), hidden for a dense model; it round-trips its field, and replicas that do not spread
evenly over the ranks show the core's error beside it while the scenario keeps its last valid
value."""

from __future__ import annotations

from tests.scenarios import VLLM, vllm_serving

from .helpers import error_text, find, mismatches, set_scenario

# Qwen3-30B-A3B: 128 experts over 2 attention-DP ranks
MOE_EP = vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2, "attention_data": 2})


def test_redundant_experts_shown_under_expert_parallelism_only(window) -> None:
    set_scenario(window, VLLM)  # a dense model: no expert ranks
    spin = find(window, "spin_serving_redundant_experts")
    assert not spin.isVisibleTo(window)
    set_scenario(window, MOE_EP)
    assert spin.isVisibleTo(window) and spin.value() is None
    spin.setValue(2)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.redundant_experts == 2
    window.state.edit("serving.redundant_experts", 3, immediate=True)  # 131 over 2 ranks
    window.state.flush()
    assert "multiple of the 2 ranks" in error_text(window, "spin_serving_redundant_experts")
    assert window.state.scenario.serving.redundant_experts == 2
    assert "--ep-num-redundant-experts" in spin.toolTip()
    assert mismatches(window.binder) == []
