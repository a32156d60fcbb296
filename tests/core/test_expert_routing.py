"""``parallelism.expert_routing``: a MoE training step at the busiest EP rank under the router's
own load (core/speed/train_layer.py), set by RL's policy (``rl.policy.expert_routing``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.rl_roles import trainer_scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.expert_load import PREFILL_ROUTING_ALPHA, busiest_rank_factor
from gpusizer.core.speed.train_layer import layer_context
from gpusizer.core.speed.train_step import training_step

# Qwen3-30B-A3B on 32 H100, EP 8, one packed 4,096-token row per micro-batch: NeMo RL's
# grpo-qwen3-30ba3b-4n8g recipe at v0.6.0 (tests/core/rl_figures.py)
QWEN3_30B: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "full_finetune", "sequence_length": 4096, "global_batch_size": 512},
    "parallelism": {"expert": 8, "data": 32, "zero_stage": 1},
}


def _scenario(routing: str | None, preset: str = "qwen3-30b-a3b", expert: int = 8):
    data: dict[str, Any] = {**QWEN3_30B, "model": {"preset": preset}}
    data["parallelism"] = {**data["parallelism"], "expert": expert}
    if routing:
        data["parallelism"]["expert_routing"] = routing
    return parse_scenario(data)


def _seconds(s) -> float:
    return training_step(s, scenario_gpu(s)).seconds


def test_balanced_is_the_default_and_every_existing_answer() -> None:
    assert _seconds(_scenario(None)) == _seconds(_scenario("balanced"))
    assert layer_context(_scenario(None), scenario_gpu(_scenario(None)))[0].busiest == 1.0


def test_the_routers_own_load_is_the_busiest_ranks_factor() -> None:
    s = _scenario("router")
    # the EP group's tokens of one micro-batch: 8 ranks x 4,096 tokens; 128 experts, top 8, at
    # aiconfigurator's prefill skew (alpha 0.6, shared/docs/speed-anchors.md "MoE")
    expected = busiest_rank_factor(128, 8, 8 * 4096, 8, PREFILL_ROUTING_ALPHA)
    assert layer_context(s, scenario_gpu(s))[0].busiest == pytest.approx(expected)
    assert 1.2 < expected < 1.6  # a third more than the mean rank, not a multiple
    # only the routed experts' matmuls and the dispatch/combine grow: less than the factor
    assert 1.0 < _seconds(s) / _seconds(_scenario("balanced")) < expected


def test_dense_models_and_a_single_expert_rank_do_not_move() -> None:
    dense: dict[str, Any] = {
        **QWEN3_30B,
        "model": {"preset": "qwen3-32b"},
        "parallelism": {"data": 32, "zero_stage": 1},
    }
    a = parse_scenario(dense)
    b = parse_scenario({**dense, "parallelism": {**dense["parallelism"], "expert_routing": "router"}})
    assert _seconds(a) == _seconds(b)
    assert _seconds(_scenario("router", expert=1)) == _seconds(_scenario("balanced", expert=1))


def test_rl_policy_trains_at_the_routers_own_load_unless_told_balanced() -> None:
    rl: dict[str, Any] = {
        **QWEN3_30B,
        "workload": {"kind": "rl"},
        "rl": {"rollout": {"tensor": 2, "prompts_per_step": 64, "samples_per_prompt": 32}},
    }
    assert trainer_scenario(parse_scenario(rl)).parallelism.expert_routing == "router"
    rl["rl"] = {**rl["rl"], "policy": {"expert_routing": "balanced"}}
    assert trainer_scenario(parse_scenario(rl)).parallelism.expert_routing == "balanced"
