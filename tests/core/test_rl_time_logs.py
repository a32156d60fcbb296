"""Other frameworks' RL step times from issue-thread logs, replayed blind (docs/evidence/rl.md, the
section "More published RL step times from other frameworks' logs"; records in
tests/core/data/rl-time-logs.json, each with its source link, the quoted log lines, the settings
read from the run's recipe and trainer source at the commit it ran, and what had to be assumed).

One row: TRL's GRPOTrainer (main of 2025-02-08) under open-r1's Qwen2.5-Math-7B recipe on 8 H100
(huggingface/open-r1 #251): 70.0 s a step. TRL generates each of the step's 8 gradient-accumulation
micro-steps in its own vLLM call of 14 completions and waits for that call's longest before scoring
and training; the record states it as ``rl.rollout.generation_rounds`` 8 (core/pipeline/rl_rounds.py)
and the replay prices 56.2 s (0.803 of it). Before the field it read 40.5 s (0.579), the 14 slots
refilled as responses ended."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.core.blind_replay import load, step_ratio, within
from tests.core.blind_replay import rl_step as _step

RECORDS: list[dict[str, Any]] = load("rl-time-logs.json")

# estimate / published step, as docs/evidence/rl.md records it
# (0.812 before each rank's backward waited for the rank with the most tokens: TRL's completions
# at their own lengths, rl.policy.balanced_micro_batches false; rl.md, the stragglers section)
RECORDED = {"trl-grpo-qwen2.5-math-7b-7plus1xh100": 0.820}


def test_every_record_names_its_source_settings_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://github.com/"), record["id"]
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
    # docs/evidence/rl.md, the section on generation in rounds: 1 of 1 (the TRL step at 0.803 of
    # measured; 0 of 1 at 0.579 before the rounds); all RL step and phase figures 62 of 120 (61 of
    # 120 before), other frameworks 5 of 21
    within_25 = within({r["id"]: step_ratio(r) for r in RECORDS})
    assert len(RECORDS) == 1 and within_25 == ["trl-grpo-qwen2.5-math-7b-7plus1xh100"]


def test_the_trl_step_holds_over_the_unpublished_settings() -> None:
    # open-r1 #251 prints neither the prompt length nor how TRL pads a rank's two completions: at a
    # 100- or 200-token prompt, and with every completion padded to the 1,024 cap, the estimate
    # stays within 3 % of the central replay, between 0.75 and 0.85 of the published 70.0 s
    record = RECORDS[0]
    central = _step(record["scenario"])
    for path, value in (("prompt_tokens", 100), ("prompt_tokens", 200), ("policy.sequence_packing", False)):
        scenario = copy.deepcopy(record["scenario"])
        node = scenario["rl"]
        *parents, leaf = path.split(".")
        for key in parents:
            node = node[key]
        node[leaf] = value
        assert _step(scenario) == pytest.approx(central, rel=0.03), path
        assert 0.75 < _step(scenario) / record["measured"]["step"] < 0.85, path


def test_one_call_a_step_was_the_miss() -> None:
    # the same run generated in one call (generation_rounds 1, as TRL v0.17.0 on does: PR #3283)
    # refills the engine's slots over all 112 completions and reads 0.14 of the published step; the
    # section 48 reading (14 slots refilled, no barrier) 0.579; the 8 rounds 0.803
    record = RECORDS[0]
    one = copy.deepcopy(record["scenario"])
    one["rl"]["rollout"]["generation_rounds"] = 1
    # 0.145 before DeepSpeed ZeRO-2's seven early all-reduces a step (+0.62 s; speed.md section
    # on ZeRO-2's reduction in every backward), a 6 % move of this 10 s what-if; 0.154 and 0.579
    # before each backward waited for the rank with the most tokens (balanced_micro_batches false)
    assert _step(one) / record["measured"]["step"] == pytest.approx(0.161, rel=0.03)
    one["rl"]["rollout"]["max_sequences"] = 14
    assert _step(one) / record["measured"]["step"] == pytest.approx(0.596, rel=0.03)
