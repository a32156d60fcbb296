"""The Parallelism panel's "Expert (EP)" box takes experts expert-parallel inside tensor
parallelism for a serving engine with the switch (core/serving/expert_in_tensor.py,
docs/scenario-format.md), and shows the refusal beside it where the engine has none."""

from __future__ import annotations

from tests.scenarios import vllm_serving

from .helpers import error_text, find, mismatches, set_scenario

EP_IN_TP = vllm_serving("qwen3-30b-a3b", parallelism={"tensor": 2, "expert": 2})


def test_expert_box_takes_ep_inside_tp_and_shows_the_refusal(window) -> None:
    set_scenario(window, EP_IN_TP)
    spin = find(window, "spin_expert_parallel")
    assert spin.isEnabled() and spin.value() == 2
    assert window.state.error is None
    assert window.state.scenario.parallelism.expert == 2
    window.state.edit("parallelism.expert", 4, immediate=True)  # shards 4 do not divide TP 2
    window.state.flush()
    assert "allowed: 1, 2" in error_text(window, "spin_expert_parallel")
    assert window.state.scenario.parallelism.expert == 2  # the last valid value is kept
    assert mismatches(window.binder) == []
