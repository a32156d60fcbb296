"""``rl.reward.verify_workers`` from the RL panel (core/pipeline/rl_verify.py): shown for a rule
reward; 8 workers over the step's 64 x 8 responses add 64 Math-Verify calls of 12.2 ms (verl PR
#1206) to the rollout; back to null, the answer comes back; a reward model hides the row."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import find, rl_phase_seconds, set_scenario

RL: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl"},
    "rl": {"rollout": {"prompts_per_step": 64, "samples_per_prompt": 8}},
}


def test_verify_workers_from_the_rl_panel(window) -> None:
    set_scenario(window, RL)
    spin = find(window, "spin_rl_reward_verify_workers")
    assert spin.isVisibleTo(window) and spin.value() is None
    assert "Math-Verify" in spin.toolTip()
    before = rl_phase_seconds(window, "rollout")
    window.state.edit("rl.reward.verify_workers", 8, immediate=True)
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.reward.verify_workers == 8
    assert spin.value() == 8
    assert rl_phase_seconds(window, "rollout") - before == pytest.approx(64 * 200 / 16384, rel=1e-6)
    window.state.edit("rl.reward.verify_workers", None, immediate=True)
    assert rl_phase_seconds(window, "rollout") == before
    set_scenario(window, {**RL, "rl": {**RL["rl"], "reward": {"kind": "model"}}})
    assert not spin.isVisibleTo(window)
