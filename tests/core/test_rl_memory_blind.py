"""Published RL memory figures replayed blind (docs/evidence/rl.md, the section "A blind round of
published RL memory figures beyond the GRPO-LoRA counters"; records in
tests/core/data/rl-memory-blind.json, each with its source link, the quoted step line, what the
figure measures, the settings and what had to be assumed, committed before any estimate ran).

Two verl ``perf/max_memory_allocated_gb`` counters no replay had read: dingxianzhong/play-verl's
Qwen2.5-0.5B-Instruct GRPO and PPO logs on GSM8K (8 GPUs, FSDP, vLLM 0.8.3 colocated at
``gpu_memory_utilization`` 0.6, 2025-05-03), whose steps rl-time-blind3.json already replays for
time with the same scenarios. Like for like with rl-memory.json's counters (allocated bytes, the
run's high-water mark, vLLM's sleeping CuMemAllocator pool counted): counted with them within
the issue's 15 %. On first replay both within: GRPO 1.062, PPO 0.918.

Searched and not recorded (no figure a replay could read, docs/evidence/rl.md): TRL's nvidia-smi
readings and OOM reports (#2927, #3456, #3678: batch, lengths or vLLM mode missing), ms-swift
#3848 (an approximate 12 GB of an LMDeploy-served run, an engine the estimator does not model),
siiRL's quickstart log (its step line's 256-token responses do not match its script's 4,096
cap), a verl quickstart log whose GPU is not named, NeMo RL (prints memory after offload only),
the play-verl README's "Mem (GB)" column (the same logs' counters, reserved for three of four).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import by_id, load, within

RECORDS: list[dict[str, Any]] = load("rl-memory-blind.json")
GiB = 2**30
GRPO = "verl-grpo-qwen2.5-0.5b-8xh100-memory"
PPO = "verl-ppo-qwen2.5-0.5b-8xh100-memory"
MEMORY_BAR = 0.15  # issue 35's bar on RL memory

# estimate / published perf/max_memory_allocated_gb on first (blind) replay
FIRST_REPLAY = {GRPO: 1.062, PPO: 0.918}
# since a training micro-batch holds at most the rank's share of the mini-batch (the GRPO's 128
# responses over 8 ranks: 16, not the 32 its 8,000-token budget holds; core/pipeline/
# rl_logprob_batch.py training_micro), the GRPO's update peak is half the tokens' activations
RECORDED = {GRPO: 0.932, PPO: 0.918}


def counted_gib(record: dict[str, Any]) -> float:
    """The report's ``rl.max_memory_allocated_bytes`` in GiB: the counterpart of verl's
    ``perf/max_memory_allocated_gb`` (``torch.cuda.max_memory_allocated() / 1024**3``)."""
    return float(estimate_report(record["scenario"])["rl"]["max_memory_allocated_bytes"]) / GiB


def memory_ratio(record: dict[str, Any]) -> float:
    """Estimate / published memory counter of one record."""
    return counted_gib(record) / record["measured_allocated_gib"]


def test_every_record_names_its_source_measure_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://github.com/dingxianzhong/play-verl/blob/"), record["id"]
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert "allocated" in record["measures"], record["id"]
        assert f"perf/max_memory_allocated_gb:{record['measured_allocated_gib']:.3f}" in record["quote"]
        assert f"perf/max_memory_reserved_gb:{record['measured_reserved_gib']:.3f}" in record["quote"]
    assert [r["id"] for r in RECORDS] == [GRPO, PPO]


@pytest.mark.parametrize("rid", [GRPO, PPO])
def test_each_counter_is_as_recorded(rid: str) -> None:
    # source: the record's link and quoted step line (52.804 and 53.038 GiB); tolerance 0.005 of
    # the ratio (drift of the model, not accuracy: the count below is against the 15 % bar)
    assert memory_ratio(by_id(RECORDS, rid)) == pytest.approx(RECORDED[rid], abs=0.005)


def test_both_counters_are_within_15_percent() -> None:
    # docs/evidence/rl.md section 5's bar for memory: 2 of 2, both under (the GRPO over, 1.062, on
    # first replay, with its update at 32-response micro-batches)
    ratios = {r["id"]: memory_ratio(r) for r in RECORDS}
    assert within(ratios, MEMORY_BAR) == [GRPO, PPO]
    assert within(FIRST_REPLAY, MEMORY_BAR) == [GRPO, PPO]
    assert ratios[GRPO] < 1 and ratios[PPO] < 1 < FIRST_REPLAY[GRPO]


def test_which_phase_and_role_hold_each_counter() -> None:
    # core/pipeline/rl_memory.allocator_counted: a colocated verl run's counter is its heaviest
    # phase's tensors with the sleeping engine's weights and KV pool on top. The GRPO's is its
    # training phase (the policy's update at micro-batches of 16 responses, its rank's share of
    # each 128-response mini-batch, the logits of ~3,950 tokens) plus the engine's 0.92 + 40.6
    # GiB; the PPO's micro-batches of 4 leave its update small, and its counter is the rollout
    # phase itself, the engine awake (role
    # "rollout" of rl.phases[i].memory_by_role, 48.0 GiB with its CUDA context)
    for rid, phase in ((GRPO, "training"), (PPO, "rollout")):
        rl = estimate_report(by_id(RECORDS, rid)["scenario"])["rl"]
        phases = {p["name"]: p for p in rl["phases"]}
        engine = phases["rollout"]["memory_by_role"]["rollout"]
        pool = engine["weights"] + engine["kv_cache"]
        held = phases[phase]["memory"]["total"] - phases[phase]["memory"]["overhead"]
        asleep = pool if phase != "rollout" else 0
        assert rl["max_memory_allocated_bytes"] == held + asleep, rid
        assert pool / GiB == pytest.approx(41.53, abs=0.05), rid


def test_the_counters_do_not_tell_the_sleeping_pool_apart() -> None:
    # Like section 6a's GSM8K + MATH series: with the engine awake only in rollout, the heaviest
    # phase alone reads 0.909 (GRPO) and 0.918 (PPO), also within 15 %, so these two counters
    # neither confirm nor refute that PyTorch counts the sleeping pool (tolerance 0.005)
    for rid, awake_ratio in ((GRPO, 0.909), (PPO, 0.918)):
        record = by_id(RECORDS, rid)
        rl = estimate_report(record["scenario"])["rl"]
        awake = max(p["memory"]["total"] - p["memory"]["overhead"] for p in rl["phases"])
        assert awake / GiB / record["measured_allocated_gib"] == pytest.approx(awake_ratio, abs=0.005), rid
