"""``serving.expert_balance`` in the Serving panel ("EP balance", docs/scenario-format.md): shown
where a MoE model's experts span more than one rank (or a value is held, so a refusal shows
beside it), hidden for a dense model; it round-trips its field, and an out-of-range value shows
its error beside it while the scenario keeps its last valid value."""

from __future__ import annotations

from tests.scenarios import VLLM, vllm_serving

from .helpers import error_text, find, mismatches, set_scenario

MOE_EP = vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2, "attention_data": 2})


def test_expert_balance_shown_under_expert_parallelism_only(window) -> None:
    set_scenario(window, VLLM)  # a dense model: no expert ranks
    spin = find(window, "spin_serving_expert_balance")
    assert not spin.isVisibleTo(window)
    set_scenario(window, MOE_EP)
    assert spin.isVisibleTo(window) and spin.value() is None
    spin.setValue(0.7)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.expert_balance == 0.7
    window.state.edit("serving.expert_balance", 1.5, immediate=True)  # as from another tool
    window.state.flush()
    assert "less than or equal to 1" in error_text(window, "spin_serving_expert_balance")
    assert window.state.scenario.serving.expert_balance == 0.7
    set_scenario(window, {**VLLM, "serving": {"expert_balance": 0.8}})  # held: stays shown
    assert spin.isVisibleTo(window) and spin.value() == 0.8
    assert "balancedness" in spin.toolTip()
    assert mismatches(window.binder) == []
