"""Generation in rounds (``rl.rollout.generation_rounds``, core/pipeline/rl_rounds.py): a step's
responses split into generate calls in series, each waiting for its longest response, as TRL's
``GRPOTrainer`` v0.14.0-v0.16.x generates once per gradient-accumulation micro-step
(``trl/trainer/grpo_trainer.py`` ``_prepare_inputs`` at those tags; PR #3283, v0.17.0, generates
once per effective batch). docs/evidence/rl.md, the section on generation in rounds."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-time-logs.json").read_text(encoding="utf-8")
)
TRL = RECORDS[0]["scenario"]  # open-r1 #251: 16 prompts x 7 on one vLLM GPU, 8 micro-steps of 14


def _with(**rollout: Any) -> dict[str, Any]:
    s = copy.deepcopy(TRL)
    s["rl"]["rollout"].update(rollout)
    return s


def _phases(s: dict[str, Any]) -> dict[str, float]:
    return {p["name"]: p["seconds"] for p in estimate_report(s)["rl"]["phases"]}


def test_one_round_is_the_answer_without_the_field() -> None:
    # the default: every answer as before, the echo aside (it states the knob)
    plain, one = copy.deepcopy(TRL), _with(generation_rounds=1)
    plain["rl"]["rollout"].pop("generation_rounds", None)
    a, b = estimate_report(plain), estimate_report(one)
    a.pop("scenario", None), b.pop("scenario", None)
    assert a == b


def test_the_answer_states_the_rounds() -> None:
    said = [a for a in estimate_report(_with(generation_rounds=8))["assumptions"] if "generate calls" in a]
    assert said == [
        "rollout in 8 generate calls in series (rl.rollout.generation_rounds), up to 14 responses a "
        "replica each, each waiting for its longest response"
    ]
    one = estimate_report(_with(generation_rounds=1))["assumptions"]
    assert not [a for a in one if "generate calls" in a]


def test_even_rounds_are_one_rounds_rollout_times_the_rounds() -> None:
    # 112 completions in 8 rounds of 14 on one replica: eight times the rollout of a step of 14
    # (2 prompts x 7) sent at once; the passes and the sync do not move (the pools take turns, so
    # the interleaved training adds as the phases do)
    rounds = _phases(_with(generation_rounds=8))
    one = _with(prompts_per_step=2, generation_rounds=1)
    one["rl"]["policy"]["mini_batch_size"] = 14
    assert rounds["rollout"] == pytest.approx(8 * _phases(one)["rollout"], rel=1e-9)
    whole = _phases(_with(generation_rounds=1))
    for name in ("log_probs", "training", "weight_sync"):
        assert rounds[name] == whole[name]


def test_uneven_rounds_price_each_at_its_own_size() -> None:
    # 112 in 3 rounds: 38, 37, 37; each round's drain to the cap, so three rounds cost nearly three
    # times one round of 38 and more than the one call of 112 (which refills its slots)
    three = _phases(_with(generation_rounds=3))["rollout"]
    one = _phases(_with(generation_rounds=1))["rollout"]
    assert one < three
    big = _with(prompts_per_step=38, samples_per_prompt=1, generation_rounds=1)
    big["rl"]["policy"]["mini_batch_size"] = 38
    assert three < 3 * _phases(big)["rollout"]
    assert three > 2.9 * _phases(big)["rollout"]


def test_more_rounds_take_longer() -> None:
    times = [_phases(_with(generation_rounds=r))["rollout"] for r in (1, 2, 8, 112)]
    assert times == sorted(times) and times[0] < times[-1]


def _rl_error(s: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as err:
        estimate_report(s)
    return str(err.value)


@pytest.mark.parametrize("bad", [0, -8, 4097, 2.5, "8", True, [8], None])
def test_hostile_generation_rounds_names_the_field(bad: object) -> None:
    assert "rl.rollout.generation_rounds" in _rl_error(_with(generation_rounds=bad))


def test_more_rounds_than_responses_is_refused() -> None:
    msg = _rl_error(_with(generation_rounds=113))
    assert "rl.rollout.generation_rounds" in msg and "112" in msg


@pytest.mark.parametrize(("placement", "overlap"), [("colocated", None), ("split", None), ("split", True)])
def test_rounds_need_the_pools_taking_turns(placement: str, overlap: bool | None) -> None:
    s = _with(generation_rounds=8)
    s["rl"]["placement"], s["rl"]["overlap"] = placement, overlap
    if placement == "colocated":
        s["rl"]["rollout"]["gpus"] = 0
        s["parallelism"]["data"] = 8
    msg = _rl_error(s)
    assert "rl.rollout.generation_rounds" in msg and "rl.overlap false" in msg


@pytest.mark.parametrize("bad", [0, 1.5, 113])
def test_the_cli_says_it_in_one_line_and_exits_2(
    bad: object, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "rounds.json"
    path.write_text(json.dumps(_with(generation_rounds=bad)), encoding="utf-8")
    code = main(["estimate", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and "rl.rollout.generation_rounds" in err, err
