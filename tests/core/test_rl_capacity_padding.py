"""Packed rows padded to their capacity (``rl.policy.pad_rows_to_capacity``,
core/pipeline/rl_capacity_padding.py; docs/evidence/rl.md section 44): NeMo RL's DTensor policy,
``pack_sequences(..., min_seq_len=train_mb_tokens)`` in ``dtensor_policy_worker.py`` ``train`` at
tags v0.3.0-v0.5.0, and in the v2 worker's log-prob micro-batches too from v0.6.0
(``nemo_rl/models/automodel/data.py`` ``process_microbatch``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.rl_capacity_padding import capacity_share, pass_share
from gpusizer.core.pipeline.rl_padding import padded_share
from gpusizer.core.pipeline.scenario import parse_scenario

# NeMo RL v0.3.0's grpo_math_8B.yaml on its DTensor policy: FSDP2 over 8 H100, 64 prompts x 32
# generations, train_global_batch_size 512, micro-batch 1 of 4,096 tokens; the v0.3 blog's mean
# generated length (777 tokens) and an assumed 128-token prompt (tests/core/rl_figures.py PROMPT)
DTENSOR: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "none"},
    "rl": {
        "prompt_tokens": 128,
        "policy": {"mini_batch_size": 512, "pad_rows_to_capacity": "training"},
        "rollout": {
            "prompts_per_step": 64,
            "samples_per_prompt": 32,
            "response_tokens": 777,
            "response_spread": (4096 - 128) / 777 - 1,
        },
    },
}


def _with(**policy: Any) -> dict[str, Any]:
    sc = copy.deepcopy(DTENSOR)
    sc["rl"]["policy"].update(policy)
    return sc


def _phases(sc: dict[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
    rl = estimate_report(sc)["rl"]
    return {p["name"]: p["seconds"] for p in rl["phases"]}, rl


def test_short_responses_fill_their_rows_but_the_last() -> None:
    # 64 responses a rank of about 905 tokens pack 15 rows of 4,096 (14 nearly full, the last a
    # quarter): 15 x 4,096 / 57,896 = 1.061 (docs/evidence/rl.md section 44); exact to 0.1 %
    s = parse_scenario(DTENSOR)
    assert capacity_share(s, 4096, 512, True) == pytest.approx(1.061, rel=1e-3)
    assert capacity_share(s, 4096, 512, False) == 1.0  # v0.3.0's get_logprobs: no minimum


def test_all_pads_the_log_prob_forwards_too() -> None:
    s = parse_scenario(_with(pad_rows_to_capacity="all"))
    assert capacity_share(s, 4096, 512, False) == capacity_share(s, 4096, 512, True) > 1.05


def test_without_the_setting_or_packing_nothing_is_padded() -> None:
    for policy in ({"pad_rows_to_capacity": "none"}, {"sequence_packing": False}):
        s = parse_scenario(_with(**policy))
        assert pass_share(s, 4096, 512, True) == 1.0


def test_the_capacity_covers_the_pipelines_padding() -> None:
    # a row at capacity is at least its batch's longest: with both set, the capacity's share
    sc = _with(pad_packed_rows=True)
    sc["parallelism"] = {"data": 4, "pipeline": 2, "recompute": "none"}
    sc["framework"] = "megatron"
    s = parse_scenario(sc)
    assert pass_share(s, 4096, 512, True) == capacity_share(s, 4096, 512, True)
    # the log-prob forwards (v0.3.0-v0.5.0: no minimum) keep the pipeline's padding to the longest
    assert pass_share(s, 4096, 512, False) == padded_share(s, 4096, 512) <= capacity_share(s, 4096, 512, True)


def test_training_runs_the_padding_and_the_report_counts_real_tokens() -> None:
    padded, rl = _phases(DTENSOR)
    plain, rl0 = _phases(_with(pad_rows_to_capacity="none"))
    # the update's matmuls over 1.061x the tokens (attention per response, host and gathers
    # beside it): 4-7 % more training time
    assert padded["training"] / plain["training"] == pytest.approx(1.06, abs=0.015)
    assert padded["log_probs"] == pytest.approx(plain["log_probs"], rel=0.005)
    assert padded["rollout"] == plain["rollout"]
    assert rl["tokens_trained_per_step"] == rl0["tokens_trained_per_step"]


def test_unset_is_the_answer_before() -> None:
    sc = copy.deepcopy(DTENSOR)
    del sc["rl"]["policy"]["pad_rows_to_capacity"]
    assert estimate_report(sc) == estimate_report(_with(pad_rows_to_capacity="none"))


@pytest.mark.parametrize("bad", ["sometimes", True, 1, None, ["training"], "Training"])
def test_a_bad_value_names_the_field_and_the_values(bad: object) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_with(pad_rows_to_capacity=bad))
    message = str(err.value)
    assert "rl.policy.pad_rows_to_capacity" in message
    assert "training" in message and "all" in message
