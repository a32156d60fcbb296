"""``rl.policy.pad_rows_to_capacity`` from the RL panel (docs/evidence/rl.md section 44): the combo
sets the field, the step prices the rows padded to their capacity (NeMo RL's DTensor policy,
core/pipeline/rl_capacity_padding.py); set back to none, the answer comes back."""

from __future__ import annotations

from typing import Any

from .helpers import find, open_rl_sections

RL: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "parallelism": {"data": 8, "zero_stage": 3},
    "rl": {"rollout": {"prompts_per_step": 64, "samples_per_prompt": 8, "response_tokens": 800}},
}


def test_pad_rows_to_capacity_from_the_rl_panel(window) -> None:
    window.state.set_scenario(RL)
    window.state.flush()
    assert window.state.error is None, window.state.error
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "combo_rl_policy_pad_rows_to_capacity")
    assert box.isVisibleTo(window) and box.currentData() == "none"
    assert "train_mb_tokens" in box.toolTip()
    before = window.state.estimate.rl["phases"]
    training = {p["name"]: p["seconds"] for p in before}["training"]
    box.setCurrentIndex(box.findData("training"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.policy.pad_rows_to_capacity == "training"
    # the last rows of a rank's share are padded to the row's capacity: the update computes more
    after = {p["name"]: p["seconds"] for p in window.state.estimate.rl["phases"]}
    assert after["training"] > training
    box.setCurrentIndex(box.findData("none"))
    window.state.flush()
    assert window.state.estimate.rl["phases"] == before
