"""Hostile input in the window to the fields of the last two rounds (docs/evidence/rl.md, the
round-44 buyer section): ``rl.rollout.generation_rounds`` (RL panel), ``serving.load`` and
``serving.routing_simulation`` (Serving panel), ``parallelism.expert_tensor`` (Parallelism
panel). Each refused value leaves the last valid scenario in place with the core's one-line
message beside its widget, naming the field; the file and CLI refusals are in
tests/cli/test_buyer_review_round44.py."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.scenarios import RL_SPLIT, megatron_moe_pretraining

from .hostile_fields import each_refused_beside
from .test_hostile_rl_gui import HOSTILE

# a MoE served on vLLM: "Expert routing" shows for a MoE model
MOE_SERVE = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "vllm",
    "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 1024, "generated_tokens": 256},
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
}
MOE_TRAIN = megatron_moe_pretraining(tensor=2, expert=8, data=16, sequence_parallel=True)
# the rounds row shows where the pools take turns (split, overlap off)
RL_TURNS = copy.deepcopy(RL_SPLIT) | {"rl": {**copy.deepcopy(RL_SPLIT["rl"]), "overlap": False}}
NOT_IDS: tuple[Any, ...] = (0, 1.5, float("nan"), True, "Steady", "STEADY", "uniform", "", [], {})


@pytest.mark.parametrize(
    ("start", "path", "widget", "values"),
    [
        (RL_TURNS, "rl.rollout.generation_rounds", "spin_rl_rollout_generation_rounds", HOSTILE),
        # 0 of expert_tensor is left out of HOSTILE[1:]: greater than or equal to 1, as -1 checks
        (MOE_TRAIN, "parallelism.expert_tensor", "spin_expert_tensor_parallel", (*HOSTILE[1:], 3)),
        (MOE_SERVE, "serving.load", "combo_serving_load", NOT_IDS),
        (MOE_SERVE, "serving.routing_simulation", "combo_serving_routing_simulation", NOT_IDS),
    ],
)
def test_a_hostile_value_of_the_newest_fields_is_refused_beside_it(
    window, start, path, widget, values
) -> None:
    each_refused_beside(window, start, path, widget, values)
