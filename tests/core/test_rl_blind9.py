"""Published RL step times and memory replayed blind, round nine (docs/evidence/rl.md, the section
"A ninth blind round of published RL step times and RL memory"; records in
tests/core/data/rl-time-blind9.json, each with its source link, the quoted step line, the
settings read from the script and the log's config dump, and what had to be assumed).

Two counted verl PPO steps with a critic, not tuned to: dingxianzhong/play-verl's Qwen2-7B-Instruct
logs on GSM8K, one node of 8 A100 80 GB, FSDP actor and critic, vLLM 0.8.3 (V1) colocated,
2025-05-03 (rl.md section 70 found them and left them unreplayed). The "recommended" run: 1,024
prompts x 5 responses, vLLM TP 2, nothing offloaded; the "min" run: 512 x 1, vLLM TP 1, the
actor's and critic's parameters and optimizer offloaded. On first replay both steps within 25 %
(0.927 and 0.772); of the two memory counters (verl ``perf/max_memory_allocated_gb``) the
recommended run's within 15 % (0.997) and the min run's over (1.307). The min run's critic sends
its weights and optimizer to host after its update (verl ``CriticWorker.update_critic`` under
``param_offload`` / ``optimizer_offload``), so the actor's update runs without them: read since
(core/pipeline/rl_memory.py ``training_side``), 1.307 -> 1.116, both counters within. Each log
prints its phase timers: diagnostics, not counted (``test_the_phases_say_where_each_step_stands``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import by_id, load, step_ratio, within

RECORDS: list[dict[str, Any]] = load("rl-time-blind9.json")
GiB = 2**30
REC = "verl-ppo-qwen2-7b-8xa100-recommended"
MIN = "verl-ppo-qwen2-7b-8xa100-min"

# estimate / published step on first replay (blind) and now
FIRST_REPLAY = {REC: 0.927, MIN: 0.772}
# since: the critic's forward and update over rows padded to prompt + longest, as verl's critic
# runs them without use_remove_padding (core/pipeline/rl_critic_padding.py); the recommended
# run's actor already read about 1.6x slow, which the critic's packed price had offset
# then 1.888 and 1.203; since, on the H100 the log's own MFU counters name (verl's
# get_device_flops; docs/evidence/rl.md, the section on this run's actor), 0.917 and 0.739; since
# the critic's one-output value head (core/pipeline/rl_critic_head.py), 0.873 and 0.719
# the min run 0.719 before a training micro-batch was bounded by the rank's share of the mini-batch
# (32 responses over 8 ranks: 4, not the 29 its token budget holds; core/pipeline/rl_logprob_batch.py
# training_micro): 16 optimizer steps a model of one 4-response micro-batch a rank; 0.873 and
# 0.779 before the critic's padded rows ran the prompt cap (rl.prompt_cap 512, verl's dataset
# padding each prompt to data.max_prompt_length: core/pipeline/rl_tokens.py row_prompt)
RECORDED = {REC: 1.082, MIN: 0.871}
# estimate / published perf/max_memory_allocated_gb (GiB) on first replay, and since the critic's
# states leave the GPU after its update where verl offloads them (the min run: 1.307 -> 1.116)
FIRST_MEMORY = {REC: 0.997, MIN: 1.307}
# on the H100 since (0.999, 1.119), and the critic's states without the vocabulary head since;
# the recommended run 0.990 before its critic's padded rows ran the prompt cap
RECORDED_MEMORY = {REC: 1.014, MIN: 1.105}  # the min run 1.115 before that bound


def counted_gib(record: dict[str, Any]) -> float:
    """The report's ``rl.max_memory_allocated_bytes`` in GiB: the counterpart of verl's
    ``perf/max_memory_allocated_gb`` (``torch.cuda.max_memory_allocated() / 1024**3``)."""
    return float(estimate_report(record["scenario"])["rl"]["max_memory_allocated_bytes"]) / GiB


def memory_ratio(record: dict[str, Any]) -> float:
    """Estimate / published memory counter of one record."""
    return counted_gib(record) / record["measured_allocated_gib"]


def _phases(record: dict[str, Any]) -> dict[str, float]:
    return {p["name"]: p["seconds"] for p in estimate_report(record["scenario"])["rl"]["phases"]}


def test_every_record_names_its_source_settings_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://github.com/dingxianzhong/play-verl/blob/"), record["id"]
        assert record["settings_source"].startswith("https://github.com/dingxianzhong/play-verl/blob/")
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert record["group"] == "verl" and record["counted"], record["id"]
        assert f"timing_s/step:{record['measured']['step']:.3f}" in record["quote"], record["id"]
        assert f"perf/max_memory_allocated_gb:{record['measured_allocated_gib']:.3f}" in record["quote"]
    assert [r["id"] for r in RECORDS] == [REC, MIN]


def test_each_step_carries_the_tokens_its_log_counts() -> None:
    # source: the quoted line's perf/total_num_tokens (1,506,078 and 143,124) over the step's
    # responses (1,024 x 5 and 512 x 1): the stated prompt + response means; tolerance one token
    for record, tokens in ((by_id(RECORDS, REC), 1_506_078), (by_id(RECORDS, MIN), 143_124)):
        ro = record["scenario"]["rl"]["rollout"]
        responses = ro["prompts_per_step"] * ro["samples_per_prompt"]
        stated = record["scenario"]["rl"]["prompt_tokens"] + ro["response_tokens"]
        assert stated == pytest.approx(tokens / responses, abs=1.0), record["id"]
        assert f"perf/total_num_tokens:{tokens}.000" in record["quote"]


@pytest.mark.parametrize("rid", [REC, MIN])
def test_each_step_ratio_is_as_recorded(rid: str) -> None:
    # source: the record's link and quoted step line; tolerance 0.02 of the ratio (drift of
    # the model, not accuracy: the count below says how many are within 25 %)
    assert step_ratio(by_id(RECORDS, rid)) == pytest.approx(RECORDED[rid], abs=0.02)


def test_both_steps_are_within_25_percent() -> None:
    # docs/evidence/rl.md's convention (estimate / published within 0.75-1.25): 2 of 2 on
    # first replay, both short; with the critic's padded rows 1 of 2, both long (the
    # recommended run 1.888); on the H100 the log's MFU counters name, 1 of 2 again, both short
    # (the recommended run 0.917 within, the min run 0.739 just out); 2 of 2 since the min run's
    # training micro-batch is its rank's share of the mini-batch (0.719 -> 0.779); 2 of 2 with
    # the critic's rows padded to the prompt cap, the recommended run long (1.082), the min short
    ratios = {r["id"]: step_ratio(r) for r in RECORDS}
    assert within(FIRST_REPLAY) == [REC, MIN]
    assert all(v < 1 for v in FIRST_REPLAY.values())
    assert within(ratios) == [REC, MIN]
    assert ratios[REC] > 1 > ratios[MIN]


@pytest.mark.parametrize("rid", [REC, MIN])
def test_each_memory_counter_is_as_recorded(rid: str) -> None:
    # source: the quoted line's perf/max_memory_allocated_gb (83.563 and 54.493 GiB); the
    # issue's bar for memory is 15 %: on first replay the recommended run within (0.997), the
    # min run over (1.307); both within since; tolerance 0.02 of the ratio
    assert memory_ratio(by_id(RECORDS, rid)) == pytest.approx(RECORDED_MEMORY[rid], abs=0.02)
    assert within({rid: FIRST_MEMORY[rid]}, 0.15) == ([rid] if rid == REC else [])
    assert within({rid: memory_ratio(by_id(RECORDS, rid))}, 0.15) == [rid]


def test_the_offloaded_critic_leaves_the_actors_update() -> None:
    # verl/workers/fsdp_workers.py CriticWorker.update_critic (v0.3.0.post1 lines 857-859):
    # offload_fsdp_model_to_cpu and offload_fsdp_optimizer after the critic's update, before
    # update_actor. The min run's training phase holds the actor's peak alone: 9.9 GiB less,
    # the critic's FP32 shard and Adam moments over 8 GPUs (7.1e9 x (4 + 8) / 8 bytes: Qwen2-7B
    # less its vocabulary head, the critic's head being one output, core/pipeline/rl_critic_head.py;
    # 10.6 GiB with the head); with the states kept on the GPU (rl.policy.offload_per_call false)
    # the critic's stay beside it, the counter as first replayed (within 0.02). The counter falls
    # the same 9.9 GiB, the training phase its heaviest. The rule moves memory only. Since a
    # training micro-batch holds at most the rank's share of the mini-batch (4 responses, not 29:
    # core/pipeline/rl_logprob_batch.py training_micro) the training phase is light enough that the
    # counter is the rollout's either way: the 9.9 GiB move the training phase alone
    record = by_id(RECORDS, MIN)
    kept = copy.deepcopy(record["scenario"])
    kept["rl"]["policy"]["offload_per_call"] = False
    now, before = estimate_report(record["scenario"])["rl"], estimate_report(kept)["rl"]
    assert before["max_memory_allocated_bytes"] == now["max_memory_allocated_bytes"]
    assert now["peak_phase"] == before["peak_phase"] == "rollout"
    phases = {p["name"]: p["memory"]["total"] for p in now["phases"]}
    kept_phases = {p["name"]: p["memory"]["total"] for p in before["phases"]}
    assert (kept_phases["training"] - phases["training"]) / GiB == pytest.approx(9.88, abs=0.2)
    # the recommended run offloads nothing: its critic stays beside the actor, as before
    assert memory_ratio(by_id(RECORDS, REC)) == pytest.approx(FIRST_MEMORY[REC], abs=0.02)


def test_the_phases_say_where_each_step_stands() -> None:
    # the logs' timers against the estimate's phases (diagnostics, not counted): rollout
    # against timing_s/gen (0.96 and 1.17); the scoring forwards (old_log_prob + ref + values)
    # 1.16 and 0.75 as first replayed, 2.18 and 1.44 with the critic's padded rows; the two
    # updates (update_actor + update_critic) 0.85 and 0.42 first, 2.00 and 1.00 now. The
    # critic runs without use_remove_padding (core/pipeline/rl_critic_padding.py); priced so,
    # the recommended run's phases read about 2x long on an A100. On the H100 the log's MFU
    # counters name: rollout 0.73 and 1.15, scoring 1.02 and 0.67, updates 0.93 and 0.47; with
    # the critic's one-output value head (core/pipeline/rl_critic_head.py): scoring 0.97 and
    # 0.64, updates 0.88 and 0.44; the min run's updates 0.55 since its training micro-batch is
    # the rank's 4-response share of each 32-response mini-batch (16 optimizer steps a model).
    # With the critic's rows padded to the prompt cap (512 + 1,024 tokens, rl.prompt_cap):
    # scoring 1.19 and 0.79, updates 1.13 and 0.67
    bounds = {
        REC: ((0.68, 0.77), (1.14, 1.24), (1.08, 1.18)),
        MIN: ((1.09, 1.21), (0.74, 0.84), (0.62, 0.72)),
    }
    for rid, (gen, scoring, update) in bounds.items():
        record, t = by_id(RECORDS, rid), by_id(RECORDS, rid)["timers"]
        ours = _phases(record)
        assert gen[0] < ours["rollout"] / t["gen"] < gen[1], rid
        published = t["old_log_prob"] + t["ref"] + t["values"]
        assert scoring[0] < ours["log_probs"] / published < scoring[1], rid
        assert update[0] < ours["training"] / (t["update_actor"] + t["update_critic"]) < update[1], rid
