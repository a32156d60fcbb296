"""``rl.policy.fp32_logprobs`` and ``rl.policy.bias_activation_fusion`` from the RL panel
(docs/evidence/rl.md section 16): each checkbox sets its field and the step prices it; cleared, the
answer comes back."""

from __future__ import annotations

from typing import Any

from .helpers import find, open_rl_sections

RL: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl"},
    "parallelism": {"data": 8},
    "rl": {"rollout": {"prompts_per_step": 64, "samples_per_prompt": 8, "response_tokens": 1024}},
}


def test_fp32_logprobs_from_the_rl_panel(window) -> None:
    window.state.set_scenario(RL)
    window.state.flush()
    assert window.state.error is None, window.state.error
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "check_rl_fp32_logprobs")
    assert box.isVisibleTo(window) and not box.isChecked()
    assert "DistributedLogprob" in box.toolTip()
    before = window.state.estimate.rl["time_per_step_seconds"]
    box.setChecked(True)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.policy.fp32_logprobs is True
    # the log-prob forwards and the loss move 46 and 68 bytes a logit (core/pipeline/rl_logits.py)
    assert window.state.estimate.rl["time_per_step_seconds"] > before
    box.setChecked(False)
    window.state.flush()
    assert window.state.estimate.rl["time_per_step_seconds"] == before


def test_unfused_swiglu_from_the_rl_panel(window) -> None:
    window.state.set_scenario(RL)
    window.state.flush()
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "check_rl_bias_activation_fusion")
    assert box.isVisibleTo(window) and box.isChecked()  # Megatron: shown, fused by default
    assert "bias_activation_fusion" in box.toolTip()
    before = window.state.estimate.rl["time_per_step_seconds"]
    box.setChecked(False)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.policy.bias_activation_fusion is False
    # the eager SwiGLU's bytes in the log-prob forwards and training (core/pipeline/rl_swiglu.py)
    assert window.state.estimate.rl["time_per_step_seconds"] > before
    window.state.set_scenario({**RL, "framework": "fsdp", "parallelism": {"data": 8, "zero_stage": 3}})
    window.state.flush()
    assert not box.isVisibleTo(window)  # FSDP runs other code: not shown
