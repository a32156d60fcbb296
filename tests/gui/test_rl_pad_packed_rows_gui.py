"""``rl.policy.pad_packed_rows`` from the RL panel (docs/evidence/rl.md section 27): the checkbox
sets the field and the step prices the padded rows under pipeline parallelism; cleared, the answer
comes back."""

from __future__ import annotations

from typing import Any

from .helpers import find, open_rl_sections

RL: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl"},
    "parallelism": {"data": 4, "pipeline": 2},
    "rl": {"rollout": {"prompts_per_step": 64, "samples_per_prompt": 8, "response_tokens": 3000}},
}


def test_pad_packed_rows_from_the_rl_panel(window) -> None:
    window.state.set_scenario(RL)
    window.state.flush()
    assert window.state.error is None, window.state.error
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "check_rl_pad_packed_rows")
    assert box.isVisibleTo(window) and not box.isChecked()
    assert "pipeline parallelism" in box.toolTip()
    before = window.state.estimate.rl["time_per_step_seconds"]
    box.setChecked(True)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.policy.pad_packed_rows is True
    # responses near the cap pack about one a row, each padded to the batch's longest
    # (core/pipeline/rl_padding.py)
    assert window.state.estimate.rl["time_per_step_seconds"] > before
    box.setChecked(False)
    window.state.flush()
    assert window.state.estimate.rl["time_per_step_seconds"] == before
