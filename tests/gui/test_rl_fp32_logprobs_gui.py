"""``rl.policy.fp32_logprobs`` from the RL panel (docs/evidence/rl.md section 16): the checkbox
sets the field, the step prices NeMo RL's FP32 log-softmax, and clearing it gives the answer back."""

from __future__ import annotations

from typing import Any

from .helpers import find

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
