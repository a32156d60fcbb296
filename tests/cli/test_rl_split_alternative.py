"""A colocated RL answer names the split placement on the same GPU where it is faster at no more
cost, or cheaper at no more time, beyond both evidence bands (core/sizing/rl_split_alt.py,
core/sizing/rl_split_words.py; docs/evidence/rl.md, the split-alternative section).

The buyer's case: GRPO of Qwen3 8B, 128 prompts x 8 responses of 8,192 tokens, 200 steps within
a week, verl colocated (tests/cli/data/buyer/rl-qwen3-8b-8k-200-steps-week). Round 49 read the
colocated H100 row at 2.2 days for $1,685 and the same scenario with ``rl.placement`` split (8
rollout GPUs beside 8 training) at 1.05 days for $1,605; on H200 0.79 days for $1,388 against
1.6 days for $1,393. The row did not say so.
"""

from __future__ import annotations

import copy

import pytest

import gpusizer
from gpusizer.core.sizing.rl_split_words import split_alternative
from tests.cli.buyer_cases import case, rows

RL = "rl-qwen3-8b-8k-200-steps-week"
DAY = 86400.0


@pytest.fixture(scope="module")
def week() -> dict[str, dict]:
    return rows(case(RL), "h100-sxm-80gb", "h200-141gb")


def test_h100_row_names_the_split_that_round_49_read(week: dict[str, dict]) -> None:
    o = week["h100-sxm-80gb"]
    # the row's own answer is unchanged: colocated, one 8-GPU server, 2.2 days, $1,685
    assert o["gpus"] == 8 and o["rl_total_gpus"] == 8 and o["layout"] == "TP 4 x PP 1 x DP 2 (ZeRO 2)"
    assert o["rl_run_seconds"] / DAY == pytest.approx(2.2, abs=0.05)
    alt = o["rl_split_alternative"]
    # round 49's split reading, to the cent (the same estimate: 8 + 8 GPUs at rollout TP 4)
    assert (alt["rollout_gpus"], alt["training_gpus"], alt["total_gpus"]) == (8, 8, 16)
    assert alt["run_seconds"] / DAY == pytest.approx(1.05, abs=0.005)
    assert alt["training_cost"] == pytest.approx(1605, abs=1)
    assert alt["wins"] == "faster" and alt["overlap"] is True and alt["placement_stated"] is False
    clause = (
        "split 8 rollout + 8 training GPUs: 1.0 days, $1,605 (colocated 2.2 days, $1,685), faster at "
        "no more cost, even at the slow edge of its run band against colocated's fast edge "
        "(rl.placement split, rl.rollout.gpus 8, the rollout a "
        "step ahead of training: rl.overlap)"
    )
    assert o["layout_reason"].endswith("; " + clause), o["layout_reason"]


def test_h200_row_names_it_though_the_costs_are_close(week: dict[str, dict]) -> None:
    o = week["h200-141gb"]
    alt = o["rl_split_alternative"]
    # $1,388 against $1,393: no more cost; 0.79 days even at the split band's slow edge (1.48
    # days) is under the colocated band's fast edge (1.64 days): faster beyond both bands
    assert alt["training_cost"] == pytest.approx(1388, abs=1) and o["training_cost"] == pytest.approx(
        1393, abs=1
    )
    assert alt["run_seconds_range"][1] < o["rl_run_seconds_range"][0]
    assert (
        "split 8 rollout + 8 training GPUs: 18.9 h, $1,388 (colocated 1.6 days, $1,393)" in o["layout_reason"]
    )


def test_priced_rows_carry_no_unpriced_alternatives(week: dict[str, dict]) -> None:
    # the search's alternatives are priced into rl_split_alternative; the raw list stays out
    assert all("rl_split_options" not in o for o in week.values())


def test_a_stated_placement_is_named_as_set_and_kept() -> None:
    data = case(RL)
    data["rl"]["placement"] = "colocated"
    o = rows(data, "h100-sxm-80gb")["h100-sxm-80gb"]
    # the user's placement stays the answer (8 GPUs, colocated); the split is an alternative
    assert o["gpus"] == 8 and o["rl_total_gpus"] == 8
    assert "(colocated as set: 2.2 days, $1,685)" in o["layout_reason"]
    assert o["rl_split_alternative"]["placement_stated"] is True


def test_a_split_scenario_gets_no_clause() -> None:
    data = case(RL)
    data["rl"] |= {"placement": "split", "rollout": data["rl"]["rollout"] | {"gpus": 8}}
    o = rows(data, "h100-sxm-80gb")["h100-sxm-80gb"]
    # the scenario is split already: nothing to weigh beside it (its own note names the best ratio)
    assert "rl_split_alternative" not in o and "colocated 2" not in (o["layout_reason"] or "")


def test_plan_says_it_in_the_why_line() -> None:
    out = gpusizer.plan(case(RL), gpus=["h100-sxm-80gb"])
    # plan is compare's advice for the GPUs asked: the same Why, one clause more
    assert out[0]["rl_split_alternative"]["total_gpus"] == 16
    assert "split 8 rollout + 8 training GPUs: 1.0 days, $1,605" in out[0]["layout_reason"]


def test_other_kinds_keep_their_keys() -> None:
    data = {"model": {"preset": "qwen3-8b"}, "workload": {"kind": "inference"}}
    o = rows(data, "h100-sxm-80gb")["h100-sxm-80gb"]
    # a serving scenario weighs no RL placement: no key added, the JSON as before
    assert "rl_split_alternative" not in o and "rl_split_options" not in o


# --- the rule, on rows made by hand (the bands decide) -----------------------------------------

ROW = {
    "training_cost": 1000.0,
    "training_cost_range": [1040.0, 1630.0],  # the colocated band 1.04-1.63 (rl.md section 8)
    "rl_run_seconds": 2 * DAY,
    "rl_run_seconds_range": [2.08 * DAY, 3.26 * DAY],
    "layout_reason": "why",
    "parallelism": {"tensor": 4, "pipeline": 1, "context": 1, "data": 2},
}


def _alt(run_days: float, band: tuple[float, float]) -> dict:
    run = run_days * DAY
    return {
        "rollout_gpus": 8,
        "training_gpus": 8,
        "total_gpus": 16,
        "time_per_step_seconds": run / 200,
        "run_seconds": run,
        "run_seconds_range": [run * band[0], run * band[1]],
        "tokens_trained_per_second": 1.0,
        "overlap": False,
        "placement_stated": False,
    }


def _price(per_hour: float):
    def price(x: dict) -> dict:
        rng = x["time_seconds_range"]
        return {
            "cost_per_hour": per_hour,
            "training_cost": per_hour * x["time_seconds"] / 3600,
            "training_cost_range": None if rng is None else [per_hour * r / 3600 for r in rng],
        }

    return price


def test_faster_within_the_bands_is_not_named() -> None:
    row = copy.deepcopy(ROW) | {"rl_split_options": [_alt(1.5, (0.88, 1.88))]}
    # 1.5 days is faster at the estimate, but its slow edge (2.8 days) passes the colocated fast
    # edge (2.08 days): the bands overlap, so nothing is named
    assert split_alternative(row, _price(20.0)) == {}
    assert "rl_split_options" not in row  # dropped all the same


def test_faster_beyond_the_bands_at_more_cost_is_not_named() -> None:
    row = copy.deepcopy(ROW) | {"rl_split_options": [_alt(1.0, (0.88, 1.88))]}
    # 1.0 day (slow edge 1.88) beats 2.08 days, but at $60/h the run costs $1,440 > $1,000
    assert split_alternative(row, _price(60.0)) == {}


def test_faster_beyond_the_bands_at_no_more_cost_is_named() -> None:
    row = copy.deepcopy(ROW) | {"rl_split_options": [_alt(1.0, (0.88, 1.88))]}
    out = split_alternative(row, _price(40.0))  # $960 <= $1,000
    assert out["rl_split_alternative"]["wins"] == "faster"
    assert out["layout_reason"] == (
        "why; split 8 rollout + 8 training GPUs: 1.0 days, $960 (colocated 2.0 days, $1,000), faster "
        "at no more cost, even at the slow edge of its run band against colocated's fast edge "
        "(rl.placement split, rl.rollout.gpus 8)"
    )


def test_cheaper_beyond_the_cost_bands_at_no_more_time_is_named() -> None:
    row = copy.deepcopy(ROW) | {"rl_split_options": [_alt(1.9, (0.88, 1.1))]}
    # 1.9 days (band to 2.09: overlaps the colocated 2.08, so not "faster"); at $10/h it costs
    # $456, at its slow edge $502, under the colocated fast edge $1,040: cheaper, no slower
    out = split_alternative(row, _price(10.0))
    assert out["rl_split_alternative"]["wins"] == "cheaper"
    assert (
        "cheaper at no more time, even at the slow edge of its cost band against colocated's fast edge"
        in out["layout_reason"]
    )


def test_unpriced_row_names_nothing() -> None:
    row = copy.deepcopy(ROW) | {"training_cost": None, "rl_split_options": [_alt(1.0, (0.88, 1.88))]}
    # no cost on the basis asked: "no more cost" cannot be judged
    assert split_alternative(row, _price(40.0)) == {}


def test_trl_splits_without_overlap() -> None:
    from gpusizer.core.sizing.rl_split_alt import split_overlap

    # TRL's split releases (v0.14.0-v0.29.x, vLLM on GPUs of its own) make the ranks wait while
    # the main process generates: rl.overlap false (core/registry/rl_framework_releases_trl.py),
    # so its split alternative is priced in turns, not one step off-policy
    assert split_overlap("trl") is False
    # verl and NeMo RL place nothing split by default: the scenario's own default (overlap)
    assert split_overlap("verl") is None and split_overlap(None) is None


def test_one_copy_unsloth_run_names_nothing() -> None:
    # Unsloth's one copy of the weights (rl.rollout.shared_weights) needs colocated placement:
    # every split is refused, so no row gains a clause (and none fails)
    data = case("rl-unsloth-grpo-8b-qlora-one-gpu")
    assert all("rl_split_alternative" not in o for o in gpusizer.compare_gpus(data))
