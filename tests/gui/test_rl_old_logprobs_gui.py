"""``rl.policy.old_logprobs`` from the RL panel (docs/evidence/rl.md section 21): the checkbox
sets the field and the step drops the policy's scoring forward; checked again, the answer comes
back."""

from __future__ import annotations

from .helpers import find, open_rl_sections
from .test_rl_fp32_logprobs_gui import RL


def test_the_old_policy_pass_from_the_rl_panel(window) -> None:
    window.state.set_scenario(RL)
    window.state.flush()
    assert window.state.error is None, window.state.error
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "check_rl_old_logprobs")
    assert box.isVisibleTo(window) and box.isChecked()  # the default: the policy is scored
    assert "force_on_policy_ratio" in box.toolTip()
    before = window.state.estimate.rl["time_per_step_seconds"]
    box.setChecked(False)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.policy.old_logprobs is False
    # NeMo RL v0.7.0 under force_on_policy_ratio: no prev_logprobs forward (grpo.py)
    assert window.state.estimate.rl["time_per_step_seconds"] < before
    box.setChecked(True)
    window.state.flush()
    assert window.state.estimate.rl["time_per_step_seconds"] == before
