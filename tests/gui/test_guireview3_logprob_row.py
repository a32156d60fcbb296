"""The RL panel's "Log-prob micro-batch" (``rl.policy.log_prob_micro_batch_size``) sizes the
old-policy and reference log-prob forwards only (core/pipeline/rl_logprob_batch.py): with the
old-policy pass off (``rl.policy.old_logprobs`` false) and no reference (DAPO's default, or
``rl.reference.enabled`` false) it applies to nothing and is disabled, its tooltip saying why
(gui/panels/logprob_row.py); enabled while it holds a value so it can be cleared."""

from __future__ import annotations

from typing import Any

from gpusizer.gui.why_disabled import PREFIX

from .helpers import find, set_scenario

NAME = "spin_rl_policy_log_prob_micro_batch_size"


def _verl(
    algorithm: str = "grpo", old: bool = True, reference: Any = None, micro: Any = None
) -> dict[str, Any]:
    return {
        "model": {"preset": "qwen3-8b"},
        "framework": "fsdp",
        "workload": {"kind": "rl", "micro_batch_size": 2},
        "rl": {
            "framework": "verl",
            "algorithm": algorithm,
            "steps": 200,
            "reference": {"enabled": reference},
            "policy": {"log_prob_micro_batch_size": micro, "old_logprobs": old},
            "rollout": {"prompts_per_step": 64, "samples_per_prompt": 8, "response_tokens": 2048},
        },
        "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
    }


def test_verl_grpo_row_live(window) -> None:
    set_scenario(window, _verl(micro=16))
    spin = find(window, NAME)
    assert spin.isEnabled() and PREFIX not in spin.toolTip()
    assert window.state.scenario.rl.policy.log_prob_micro_batch_size == 16


def test_reference_alone_keeps_it_live(window) -> None:
    set_scenario(window, _verl(old=False))  # GRPO's reference still scores
    assert find(window, NAME).isEnabled()


def test_no_pass_disables_it_saying_why(window) -> None:
    for case in (_verl(old=False, reference=False), _verl("dapo", old=False)):
        set_scenario(window, case)
        spin = find(window, NAME)
        assert not spin.isEnabled()
        assert f"{PREFIX} no log-prob pass runs" in spin.toolTip()
        assert spin.toolTip().startswith("Sequences per log-prob forward")  # its definition first


def test_a_held_value_stays_live(window) -> None:
    set_scenario(window, _verl("dapo", old=False, micro=8))
    assert find(window, NAME).isEnabled()
