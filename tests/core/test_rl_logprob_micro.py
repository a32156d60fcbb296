"""The log-prob passes' own micro-batch (``rl.policy.log_prob_micro_batch_size``,
core/pipeline/rl_logprob_batch.py): verl's ``rollout.`` / ``ref.log_prob_micro_batch_size_per_gpu``
(``verl/workers/actor/dp_actor.py`` ``compute_log_prob``: ``batch.split(micro_batch_size)``, tags
v0.3.0.post1 and v0.5.0), NeMo RL's ``policy.logprob_batch_size``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.rl_gathers import exposed_gathers
from gpusizer.core.pipeline.rl_logprob_batch import log_prob_micro, training_micro
from gpusizer.core.pipeline.rl_plan import rl_plan
from gpusizer.core.pipeline.rl_reference_copy import reference_forwards
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.core.hostile_inputs import NOT_COUNTS, RL, at, refused

DATA = Path(__file__).parent / "data"
RECORDS = {r["id"]: r for r in json.loads((DATA / "rl-time-blind3.json").read_text(encoding="utf-8"))}
PPO = RECORDS["verl-ppo-qwen2.5-0.5b-8xa100"]
BLIND9 = {r["id"]: r for r in json.loads((DATA / "rl-time-blind9.json").read_text(encoding="utf-8"))}
FIELD = "rl.policy.log_prob_micro_batch_size"


def _without(scenario: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(scenario)
    out["rl"]["policy"].pop("log_prob_micro_batch_size", None)
    return out


def test_null_and_the_training_micro_batch_answer_as_before() -> None:
    # a scenario that leaves the field out, states null, or states the training micro-batch gives
    # the same answer, byte for byte
    plain = _without(PPO["scenario"])
    before = estimate_report(plain)
    assert estimate_report(at(plain, FIELD, None)) == before
    stated = estimate_report(at(plain, FIELD, 4))  # its echoed scenario states the field
    assert {k: v for k, v in stated.items() if k != "scenario"} == {
        k: v for k, v in before.items() if k != "scenario"
    }


def test_the_ppo_record_reads_the_scripts_log_prob_micro_batch() -> None:
    # play-verl's run_demo_qwen2.5b_ppo_8gpu.sh: ppo_micro_batch_size_per_gpu 4, the rollout's
    # log_prob_micro_batch_size_per_gpu 8 (the record's settings); step 12 timing_s/step 41.025,
    # old_log_prob 2.224 + values 3.366 s. Tolerance 3 % of the recorded ratios (model drift).
    # 0.997, 0.754 and 0.736 before the critic's one-output value head (core/pipeline/rl_critic_head.py)
    def phases(s: dict[str, Any]) -> dict[str, float]:
        return {p["name"]: p["seconds"] for p in estimate_report(s)["rl"]["phases"]}

    at4, at8 = phases(_without(PPO["scenario"])), phases(PPO["scenario"])
    assert at4["log_probs"] / 5.590 == pytest.approx(0.963, rel=0.03)
    assert at8["log_probs"] / 5.590 == pytest.approx(0.720, rel=0.03)
    # the critic's values stay at its micro-batch 4 (verl's forward_micro_batch_size_per_gpu
    # default): only the old policy's forwards halve, so the phase does not
    assert 0.5 < at8["log_probs"] / at4["log_probs"] < 0.9
    assert at8["training"] == at4["training"] and at8["rollout"] == at4["rollout"]
    step = estimate_report(PPO["scenario"])["rl"]["time_per_step_seconds"]
    assert step / 41.025 == pytest.approx(0.712, rel=0.03)


def test_the_logits_of_one_log_prob_micro_batch_double_at_twice_the_rows() -> None:
    # the log_probs phase's temporary: fp32 logits of one micro-batch (verl logprobs_from_logits)
    def temporary(value: int | None) -> int:
        s = parse_scenario(at(_without(PPO["scenario"]), FIELD, value))
        return rl_plan(s, scenario_gpu(s)).phases["log_probs"].temporary

    assert temporary(8) == 2 * temporary(None) == 2 * temporary(4)


def test_the_micro_batches_a_step_follow_the_log_prob_micro_batch() -> None:
    # verl's reference copied in at each of its micro-batches (ref.log_prob_micro_batch_size_per_gpu)
    # and a LoRA policy's unprefetched gathers (the old policy's forwards) count log-prob
    # micro-batches; the update's gathers stay at the training micro-batch
    base = at(at(RL, "rl.rollout.prompts_per_step", 64), "rl.policy.micro_batch_size", 4)
    base = at(base, "parallelism.zero_stage", 3)
    lora = at(at(base, "rl.policy.kind", "lora"), "rl.policy.prefetch_gathers", False)
    s4, s16 = parse_scenario(lora), parse_scenario(at(lora, FIELD, 16))
    assert reference_forwards(s4) == 64 * 8 // 8 // 4 == 4 * reference_forwards(s16)
    gpu = scenario_gpu(s4)
    (fwd4, train4), (fwd16, train16) = exposed_gathers(s4, gpu), exposed_gathers(s16, gpu)
    assert fwd4 == pytest.approx(4 * fwd16) and train16 == train4 and train4 > 0


def test_a_count_that_is_not_one_is_refused_naming_the_field() -> None:
    for value in NOT_COUNTS:
        if value is None:
            continue  # null: the training micro-batch
        refused(at(RL, FIELD, value), FIELD)
    refused(at(RL, FIELD, 0), FIELD)
    refused(at(RL, FIELD, "8"), FIELD)


def test_the_cli_refuses_in_one_line_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gpusizer.cli import main

    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(at(RL, FIELD, 0)), encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert FIELD in err and "\n" not in err
    path.write_text(json.dumps(at(RL, FIELD, 8)), encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 0


@pytest.mark.parametrize(
    ("rid", "policy", "training", "scoring"),
    [
        # play-verl's min run: ppo_mini_batch_size 32 over 8 ranks, 4 a rank; its 8,192-token
        # budget (29 responses) packs those 4 (verl dp_actor.py update_policy:
        # rearrange_micro_batches(batch=mini_batch, ...)); the log-prob passes split the whole batch
        ("verl-ppo-qwen2-7b-8xa100-min", {}, 4, 29),
        # the GRPO 0.5B: 64 prompts x 2 = 128 responses a mini-batch, 16 a rank, not 32
        ("verl-grpo-qwen2.5-0.5b-8xa100", {}, 16, 32),
        # packed rows (NeMo RL's unit) are not counts of responses: kept as stated
        ("verl-grpo-qwen2.5-0.5b-8xa100", {"micro_batch_unit": "row"}, 32, 32),
        # a micro-batch within its rank's share is the stated one (the PPO 0.5B: 4 x 8 <= 512)
        ("verl-ppo-qwen2.5-0.5b-8xa100", {}, 4, 8),
    ],
)
def test_a_training_micro_batch_holds_at_most_its_ranks_mini_batch_share(
    rid: str, policy: dict[str, Any], training: int, scoring: int
) -> None:
    # core/pipeline/rl_logprob_batch.py training_micro: verl's fsdp_workers.py normalises
    # ppo_mini_batch_size to x rollout.n // ranks and splits each mini-batch into micro-batches
    # (tags v0.3.0.post1, v0.5.0); docs/evidence/rl.md "verl's micro-batch within the mini-batch"
    data = copy.deepcopy({**RECORDS, **BLIND9}[rid]["scenario"])
    data["rl"]["policy"].update(policy)
    s = parse_scenario(data)
    assert (training_micro(s), log_prob_micro(s)) == (training, scoring)
