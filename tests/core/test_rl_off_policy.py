"""k steps off-policy (``rl.off_policy_steps``) and the engine's own weight dtype
(``rl.rollout.weights``): NeMo RL's async GRPO and FP8 generation (tag v0.6.0;
docs/evidence/rl.md section 2l replays the performance summary's rows that ran them)."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.rl_time import Decode, rollout_seconds

SPLIT = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
}


def _rl(rollout: dict | None = None, **rl: object) -> dict:
    engine = {"gpus": 8, "tensor": 1, "prompts_per_step": 64} | (rollout or {})
    return estimate_report({**SPLIT, "rl": {"placement": "split", "rollout": engine, **rl}})["rl"]


def _rollout(rl: dict) -> float:
    return next(p["seconds"] for p in rl["phases"] if p["name"] == "rollout")


def test_a_steady_rollout_decodes_every_token_at_the_full_batch() -> None:
    def flat(b: int, c: float) -> float:
        return 0.01

    # NeMo RL async_utils.py: later steps' requests refill the slots a step's last responses
    # leave, so a step costs its tokens at the full batch and its prompts' prefill, no drain
    # to the cap (a drain alone would run the cap's 2,000 steps)
    d = Decode(100, 200, 100, 1000, 2000, 1.0, flat, 0.0, steady=True)
    assert rollout_seconds(d) == pytest.approx(100 / 200 * 1.0 + 100 * 1000 / 200 * 0.01)
    drained = Decode(100, 100, 100, 1000, 2000, 1.0, flat)
    assert rollout_seconds(drained) == pytest.approx(1.0 + 2000 * 0.01, rel=1e-3)


def test_k_steps_off_hold_more_requests_and_skip_the_drain() -> None:
    one, eight = _rl(), _rl(off_policy_steps=8)
    # max_inflight = num_prompts_per_step x max_trajectory_age_steps prompt groups
    assert eight["rollout_batch"] > one["rollout_batch"]
    assert _rollout(eight) < _rollout(one)
    # one step off, or pools that take turns, or one shared pool: no later step's requests
    assert _rollout(_rl(off_policy_steps=1)) == pytest.approx(_rollout(one))
    assert _rollout(_rl(off_policy_steps=8, overlap=False)) == pytest.approx(_rollout(one))
    colocated = {**SPLIT, "rl": {"off_policy_steps": 8}}
    assert estimate_report(colocated)["rl"]["time_per_step_seconds"] == pytest.approx(
        estimate_report({**SPLIT, "rl": {}})["rl"]["time_per_step_seconds"]
    )


def test_an_fp8_engine_reads_half_the_weights() -> None:
    # vLLM quantization fp8 (NeMo RL vllm_cfg precision fp8): the decode step reads 1-byte weights
    assert _rollout(_rl(rollout={"weights": "fp8"})) < _rollout(_rl())


@pytest.mark.parametrize(
    ("rl", "field"),
    [
        ({"off_policy_steps": 0}, "rl.off_policy_steps"),
        ({"rollout": {"weights": "fp7"}}, "rl.rollout.weights"),
    ],
)
def test_bad_input_names_the_field(rl: dict, field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        _rl(**rl)
    assert err.value.field == field, str(err.value)
