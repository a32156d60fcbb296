"""A scenario naming ``rl.reward.model`` with no ``rl.reward.kind`` runs that reward model
(core/model/rl_spec.py ``RewardSpec``; docs/scenario-format.md, ``rl.reward.kind``): before,
the default ``rule`` left the named model silently unused (docs/evidence/advice.md, "The
window, a visual pass 2"). verl's examples/ppo_trainer/run_qwen2-7b_rm.sh is such a run
(tests/core/data/real-configs-round6.json names its reward model and no kind)."""

from __future__ import annotations

from typing import Any

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario


def _rl(reward: dict[str, Any] | None) -> dict[str, Any]:
    rl: dict[str, Any] = {"algorithm": "grpo", "steps": 10}
    if reward is not None:
        rl["reward"] = reward
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "fsdp",
        "workload": {"kind": "rl", "micro_batch_size": 2},
        "parallelism": {"data": 8},
        "rl": rl,
        "hardware": {"gpu": "h100-sxm-80gb"},
    }


def _reward(scenario: Any) -> Any:
    """The scenario's RL reward block (an RL scenario always has its ``rl``)."""
    assert scenario.rl is not None
    return scenario.rl.reward


def test_a_named_reward_model_is_a_model_reward() -> None:
    s = parse_scenario(_rl({"model": "qwen2.5-7b"}))
    assert (_reward(s).kind, _reward(s).model) == ("model", "qwen2.5-7b")
    # the same answer as the kind stated: the model's forward is priced, its weights held
    stated = estimate(_rl({"kind": "model", "model": "qwen2.5-7b"}))
    inferred = estimate(_rl({"model": "qwen2.5-7b"}))
    rule = estimate(_rl(None))
    assert inferred.memory.total == stated.memory.total > rule.memory.total
    assert inferred.rl == stated.rl


def test_a_stated_rule_and_no_model_keep_the_rule() -> None:
    # the contract's default stands where no model is named, and a stated kind is kept
    assert _reward(parse_scenario(_rl(None))).kind == "rule"
    assert _reward(parse_scenario(_rl({"verify_workers": 8}))).kind == "rule"
    assert _reward(parse_scenario(_rl({"kind": "rule", "model": "qwen2.5-7b"}))).kind == "rule"
    # the saved form (every default written out) parses back to the same reward
    s = parse_scenario(_rl({"model": "qwen2.5-7b"}))
    assert _reward(parse_scenario(s.model_dump(mode="json"))) == _reward(s)
