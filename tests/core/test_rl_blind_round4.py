"""Published RL step times replayed blind, round four (docs/evidence/rl.md, the section "A fourth
blind round of published RL step times"; records in tests/core/data/rl-time-blind4.json, each with
its source link, the quoted lines, the settings read from the run's launcher and what had to be
assumed).

Two steps, not tuned to: DeepScaleR's first stage (verl GRPO, DeepSeek-R1-Distill-Qwen-1.5B, 1,024
responses of up to 8,192 tokens a step, the stock launcher) on 8 H200 and on 8 A100, as a user
reproducing it reported in rllm-org/rllm issue 29 (396 and 394 s a step). Nothing in the estimator
was changed for them; the ratios below are what it gave on first replay."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import by_id, load, step_ratio, within, within_inverted
from tests.core.blind_replay import rl_step as _step

RECORDS: list[dict[str, Any]] = load("rl-time-blind4.json")

# estimate / published step on first replay (blind), as docs/evidence/rl.md records it
RECORDED = {
    "verl-deepscaler-1.5b-8k-8xh200": 0.614,
    "verl-deepscaler-1.5b-8k-8xa100": 0.761,
}

DEEPSCALER = "verl-deepscaler-1.5b-8k-8xh200"


def _record(record_id: str) -> dict[str, Any]:
    return by_id(RECORDS, record_id)


def _at_mean_response(record: dict[str, Any], tokens: int) -> dict[str, Any]:
    """The record's scenario at another mean response, the longest still at the 8,192 cap and the
    dynamic micro-batch refilled to verl's 32,768 tokens a GPU (the launcher's
    ppo_max_token_len_per_gpu)."""
    scenario = copy.deepcopy(record["scenario"])
    rl = scenario["rl"]
    rl["rollout"]["response_tokens"] = tokens
    rl["rollout"]["response_spread"] = round(8192 / tokens - 1 - 0.0001, 4)
    micro = 32768 // (rl["prompt_tokens"] + tokens)
    scenario["workload"]["micro_batch_size"] = micro
    rl["policy"]["micro_batch_size"] = micro
    return scenario


def test_every_record_names_its_source_settings_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://"), record["id"]
        assert record["settings_source"].startswith("https://github.com/"), record["id"]
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert record["counted"] and set(record["measured"]) == {"step"}
    assert len({r["id"] for r in RECORDS}) == len(RECORDS) == len(RECORDED)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_step_is_as_recorded(record: dict[str, Any]) -> None:
    # source: the record's link and quote; tolerance 3 % of the recorded ratio (drift of the model,
    # not accuracy: the count below says how many are within 25 %)
    ratio = step_ratio(record)
    assert ratio == pytest.approx(RECORDED[record["id"]], rel=0.03)


def test_the_count_within_25_percent_is_as_recorded() -> None:
    # docs/evidence/rl.md's convention (estimate / published within 0.75-1.25): 1 of 2, the A100
    # step at 0.761; the H200 step short at 0.614. As published / estimate (the bands' ratio) none
    # holds: 1.31 and 1.63
    ratios = {r["id"]: step_ratio(r) for r in RECORDS}
    assert within(ratios) == ["verl-deepscaler-1.5b-8k-8xa100"]
    assert not within_inverted(ratios)


# the estimate's phases (seconds): rollout, log-probs, training
PHASES = {
    "verl-deepscaler-1.5b-8k-8xh200": (192.1, 18.4, 32.3),
    "verl-deepscaler-1.5b-8k-8xa100": (192.2, 39.0, 68.4),
}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_the_rollout_holds_most_of_the_estimate(record: dict[str, Any]) -> None:
    # the estimate's phases (3 %): the rollout of 1,024 responses (mean 5,500, the longest at the
    # 8,192 cap) on 8 vLLM engines takes the same 192 s on both GPUs (V0's eager decode, its host
    # work per step, paces it), 0.79 and 0.64 of the step; only the passes scale with the GPU. The
    # issue prints no phase timers, so which phase holds the gap is not known (docs/evidence/rl.md,
    # the section's misses); the published steps are also the same on both GPUs (396 and 394 s)
    report = estimate_report(record["scenario"])["rl"]
    phases = {p["name"]: p["seconds"] for p in report["phases"]}
    estimated = (phases["rollout"], phases["log_probs"], phases["training"])
    for est, pinned in zip(estimated, PHASES[record["id"]], strict=True):
        assert est == pytest.approx(pinned, rel=0.03), record["id"]


def test_the_unpublished_lengths_move_the_ratio_as_recorded() -> None:
    # the record's assumptions: the mean response is not printed; DeepScaleR's blog gives 5,500
    # tokens at the start of the 8K stage and 3,500 at its end. Shorter responses read shorter
    # still, so no length the blog allows brings the step within 25 % (3 %)
    record = _record(DEEPSCALER)
    for tokens, ratio in ((4500, 0.555), (3500, 0.497)):
        estimate = _step(_at_mean_response(record, tokens)) / record["measured"]["step"]
        assert estimate == pytest.approx(ratio, rel=0.03), tokens
