"""The rule reward's verification inside the rollout (``rl.reward.verify_workers``,
core/pipeline/rl_verify.py; docs/evidence/rl.md, the verification's section): NeMo RL's math
environment at tags v0.3.0-v0.7.0 deals a step's responses over ``env.math.num_workers`` Math-Verify
actors, each verifying its chunk one response after another, before the ``generation`` timer
stops; one call takes 12.2 ms (verl PR #1206: "200+ seconds" for 16,384 generations in one
process)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.rl_verify import VERIFY_SECONDS, verify_seconds
from gpusizer.core.pipeline.scenario import parse_scenario

from .rl_figures import PHASED

BLOG_8B = next(f for f, _ in PHASED if "8B" in f.name)  # 64 prompts x 32 samples, 8 H100


def _with(reward: dict[str, Any] | None = None, **rollout: Any) -> dict[str, Any]:
    s = copy.deepcopy(BLOG_8B.scenario())
    s["rl"].pop("reward", None)
    if reward is not None:
        s["rl"]["reward"] = reward
    s["rl"]["rollout"].update(rollout)
    return s


def _rollout(s: dict[str, Any]) -> float:
    return next(p["seconds"] for p in estimate_report(s)["rl"]["phases"] if p["name"] == "rollout")


def test_eight_workers_verify_the_blog_step_256_deep() -> None:
    # NeMo RL v0.3 blog's 8B step: 2,048 responses, chunk_list_to_workers over 8 actors -> 256
    # calls in series at 200 s / 16,384 (verl PR #1206) = 3.125 s, added to the rollout
    s = _with({"verify_workers": 8})
    assert verify_seconds(parse_scenario(s)) == pytest.approx(256 * 200 / 16384)
    assert _rollout(s) - _rollout(_with()) == pytest.approx(3.125, rel=1e-6)


def test_the_last_chunk_sets_the_depth() -> None:
    # 2,048 responses over 3 workers: chunks of 683 (chunk_list_to_workers' ceil)
    s = parse_scenario(_with({"verify_workers": 3}))
    assert verify_seconds(s) == pytest.approx(683 * VERIFY_SECONDS)


def test_the_async_engine_exposes_one_call() -> None:
    # run_async_multi_turn_rollout verifies each response as it ends, beside the decoding
    s = parse_scenario(_with({"verify_workers": 8}, async_engine=True))
    assert verify_seconds(s) == VERIFY_SECONDS


def test_a_reward_model_or_null_prices_nothing() -> None:
    assert verify_seconds(parse_scenario(_with({"kind": "model", "verify_workers": 8}))) == 0.0
    assert verify_seconds(parse_scenario(_with())) == 0.0
    # the default: every answer as without the field
    assert estimate_report(_with()) == estimate_report(_with({"verify_workers": None}))


@pytest.mark.parametrize("bad", [0, -8, 4097, 2.5, "8", True, [8]])
def test_hostile_verify_workers_names_the_field(bad: object) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_with({"verify_workers": bad}))
    assert "rl.reward.verify_workers" in str(err.value)
