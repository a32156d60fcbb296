"""``model.moe.expert_groups`` in the Model panel ("Expert groups", docs/scenario-format.md):
shown with the other MoE counts of a custom architecture, hidden for a dense one; it round-trips
its field, and a count that does not divide the experts shows the core's error beside it while
the scenario keeps its last valid value."""

from __future__ import annotations

from tests.scenarios import vllm_serving

from .helpers import error_text, find, mismatches, row_visible, set_scenario

_ARCH = {
    "name": "grouped",
    "layers": 4,
    "hidden_size": 1024,
    "attention_heads": 8,
    "ffn_hidden_size": 4096,
    "vocab_size": 32000,
}
DENSE = {**vllm_serving(), "model": dict(_ARCH)}
MOE = {
    **vllm_serving(),
    "model": {**_ARCH, "moe": {"experts": 64, "experts_per_token": 4, "expert_ffn_hidden_size": 512}},
}


def test_expert_groups_shown_for_a_moe_architecture_and_round_trips(window) -> None:
    set_scenario(window, DENSE)
    spin = find(window, "spin_moe_expert_groups")
    assert not row_visible(spin)
    set_scenario(window, MOE)
    assert row_visible(spin) and spin.value() == 0
    spin.setValue(8)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.model.moe.expert_groups == 8
    window.state.edit("model.moe.expert_groups", 7, immediate=True)  # 64 experts in 7 groups
    window.state.flush()
    assert "must divide experts (64)" in error_text(window, "spin_moe_expert_groups")
    assert window.state.scenario.model.moe.expert_groups == 8
    assert mismatches(window.binder) == []
