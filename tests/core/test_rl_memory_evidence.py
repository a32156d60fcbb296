"""Published RL memory figures replayed (tests/core/data/rl-memory.json; docs/evidence/rl.md
section 5).

verl prints ``perf/max_memory_allocated_gb`` (``torch.cuda.max_memory_allocated() / 2**30``
after ``update_actor``, ``verl/workers/fsdp_workers.py``) on every step. Its logs of GRPO-LoRA
on Qwen2.5 0.5B to 72B (eric-haibin-lin/verl-data, the runs behind verl's
``docs/perf/device_tuning.rst``) are replayed with the settings each log prints, against the
report's ``rl.max_memory_allocated_bytes`` (core/pipeline/rl_memory.allocator_counted: the
sleeping vLLM's weights and KV pool stay counted). Tolerance: the issue's 15 %. Errors at the
time of writing (estimate / figure - 1): 0.5B -13.3 %, 1.5B -0.1 %, 3B +4.0 %, 7B -4.4 %, 14B
+5.3 %, 32B +6.3 %, 72B +3.7 %; the GSM8K + MATH logs' 0.5B +20.1 % and 1.5B +15.5 % (outside),
3B +14.8 %, 7B -3.3 %, 14B -5.4 %, 32B -2.4 %. The same step lines' times:
tests/core/test_rl_verl_time_evidence.py (section 6)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

GiB = 2**30
RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "rl-memory.json").read_text(encoding="utf-8")
)
BY_ID = {r["id"]: r for r in RECORDS}


def _counted_gib(record: dict[str, Any]) -> float:
    return estimate_report(record["scenario"])["rl"]["max_memory_allocated_bytes"] / GiB


# the counters outside the 15 %, kept as replayed (docs/evidence/rl.md section 6a)
OUTSIDE = {
    "verl-grpo-lora-math-qwen2.5-1.5b-2xh100": 0.1551,
    "verl-grpo-lora-math-qwen2.5-0.5b-2xh100": 0.2012,
    # the MATH-only 1.5B and 0.5B logs of section 18, the same 2-GPU runs' excess
    "verl-grpo-lora-mathonly-qwen2.5-1.5b-2xh100": 0.1690,
    "verl-grpo-lora-mathonly-qwen2.5-0.5b-2xh100": 0.2133,
}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_verl_log_is_within_15_percent(record: dict[str, Any]) -> None:
    # source: record["source"] (quote beside it); tolerance: the 15 % on memory, or for a
    # counter outside it its recorded error to 0.5 %
    error = _counted_gib(record) / record["measured_allocated_gib"] - 1
    if record["id"] in OUTSIDE:
        assert error == pytest.approx(OUTSIDE[record["id"]], abs=0.005)
    else:
        assert abs(error) <= 0.15


def test_the_count_within_15_percent() -> None:
    within = [r["id"] for r in RECORDS if abs(_counted_gib(r) / r["measured_allocated_gib"] - 1) <= 0.15]
    # docs/evidence/rl.md section 5: 11 of 13 (the GSM8K + MATH 1.5B's and 0.5B's counters read
    # +15.5 and +20.1 %); 16 of 20 with section 18's seven MATH-only logs (the 1.5B's and 0.5B's
    # +16.9 and +21.3 % out, as their GSM8K + MATH twins)
    assert len(RECORDS) == 20 and len(within) == 16


def test_the_counter_holds_the_sleeping_engine() -> None:
    # verl's 72B log reads 82.9 GiB reserved on an 80 GB H100 (79.2 GiB): the sleeping engine's
    # unmapped memory is still counted, so the counter is no physical peak. The estimate's
    # counter is its heaviest training-side phase plus the engine's weights and KV pool.
    rec = BY_ID["verl-grpo-lora-qwen2.5-72b-8xh100"]
    rep = estimate_report(rec["scenario"])
    assert rec["measured_reserved_gib"] * GiB > rep["gpu"]["memory_bytes"]
    phases = {p["name"]: p["memory"] for p in rep["rl"]["phases"]}
    engine = phases["rollout"]["weights"] + phases["rollout"]["kv_cache"]
    training = phases["training"]["total"] - phases["training"]["overhead"]
    assert rep["rl"]["max_memory_allocated_bytes"] == engine + training > rep["per_gpu"]["total"]


def test_no_awake_phase_reaches_the_published_counters() -> None:
    # Like with like: if torch's counter could not see the sleeping engine (vLLM's CuMemAllocator
    # pool), a counter would be the heaviest phase's tensors with the engine awake or gone. Every
    # published counter lies above all of those in the estimate (0.58-0.89 of them), and only the
    # sleeping pool added brings the estimate within 15 % of them (0.87-1.06). PyTorch does count
    # it: vllm-project/vllm #17117 (torch.cuda.memory_allocated() unchanged by sleep(level=2):
    # 28,294 MB before and after), #33625 (verl + vLLM: memory_reserved 198.7 GB on a 140 GB
    # H200), verl-project/verl PR #1101 (sleep mode breaks PyTorch's memory statistics;
    # docs/evidence/rl.md section 8a).
    # The GSM8K series only: in the GSM8K + MATH series on 2 GPUs (0.5B-3B, longer responses)
    # the awake training phase alone is 0.97-1.00 of the counter and the pool added 1.15-1.20,
    # so those counters neither confirm nor refute it (section 6a); the MATH-only logs of
    # section 18 are left out with them
    for rec in (r for r in RECORDS if "-math" not in r["id"]):
        rep = estimate_report(rec["scenario"])
        awake = max(p["memory"]["total"] - p["memory"]["overhead"] for p in rep["rl"]["phases"])
        published = rec["measured_allocated_gib"] * GiB
        with_pool = rep["rl"]["max_memory_allocated_bytes"]
        assert awake < 0.9 * published and 0.85 * published < with_pool, rec["id"]


def _boundary_scenario(rid: str, gpus: int, tp: int, fraction: float, prompts: int) -> dict[str, Any]:
    """verl examples/tuning/*/qwen2-*_grpo-lora_*_h100_fsdp_vllm.sh at ``prompts`` per GPU:
    Ulysses SP 2, every micro-batch 2 x prompts responses; GSM8K lengths assumed (104 prompt,
    300 mean response, 720 longest: the tuning logs are not published)."""
    s = copy.deepcopy(BY_ID[rid]["scenario"])
    micro = prompts * 2
    s["workload"]["micro_batch_size"] = micro
    s["parallelism"] = {"data": gpus // 2, "context": 2, "zero_stage": 3, "recompute": "full"}
    rl = s["rl"]
    rl["prompt_tokens"] = 104
    rl["policy"].update(micro_batch_size=micro, mini_batch_size=prompts * gpus * 5)
    rl["policy"]["log_prob_micro_batch_size"] = micro  # the scripts' log-prob micro-batch alike
    rl["rollout"].update(
        tensor=tp,
        memory_fraction=fraction,
        prompts_per_step=prompts * gpus,
        response_tokens=300,
        response_spread=1.4,
    )
    return s


# (record whose model it runs, GPUs = rollout TP, gpu_memory_utilization, the largest prompts per
# GPU that ran as the script's comment records it, the largest the estimate fits, within 15 %)
BOUNDARIES = [
    ("verl-grpo-lora-qwen2.5-14b-8xh100", 2, 0.25, 58, 51, True),
    ("verl-grpo-lora-qwen2.5-32b-8xh100", 4, 0.3, 44, 44, True),
    ("verl-grpo-lora-qwen2.5-72b-8xh100", 8, 0.4, 22, 31, False),
]


@pytest.mark.parametrize(("rid", "gpus", "fraction", "ran", "fits", "within"), BOUNDARIES, ids=str)
def test_each_tuning_boundary_is_as_recorded(
    rid: str, gpus: int, fraction: float, ran: int, fits: int, within: bool
) -> None:
    # source: verl examples/tuning scripts' comments ("# 32√ → 64× → 48√ → 56√ → 60× → 58√ →
    # 59×" for 14B); a physical peak against the H100. The estimate's largest batch: 14B -12 %,
    # 32B exact, 72B +41 % (a miss, docs/evidence/rl.md section 5b)
    def fits_at(prompts: int) -> bool:
        return bool(estimate_report(_boundary_scenario(rid, gpus, gpus, fraction, prompts))["fits"])

    assert fits_at(fits) and not fits_at(fits + 1)
    assert (abs(fits / ran - 1) <= 0.15) is within


def test_a_lora_policy_scores_its_reference_with_its_own_base() -> None:
    # verl compute_ref_log_prob: "if _is_lora, actor without lora applied is the ref"
    s = copy.deepcopy(BY_ID["verl-grpo-lora-qwen2.5-7b-8xh100"]["scenario"])
    lora = {p["name"]: p["memory"] for p in estimate_report(s)["rl"]["phases"]}
    s["rl"]["reference"]["model"] = "qwen2.5-7b"  # a reference model of its own
    apart = {p["name"]: p["memory"] for p in estimate_report(s)["rl"]["phases"]}
    bf16_shard = 7_615_616_512 * 2 // 8
    assert apart["log_probs"]["weights"] - lora["log_probs"]["weights"] == pytest.approx(bf16_shard, rel=0.01)


def test_a_response_micro_batch_holds_mean_length_responses() -> None:
    s = copy.deepcopy(BY_ID["verl-grpo-lora-qwen2.5-32b-8xh100"]["scenario"])
    rows = estimate_report(s)["rl"]["max_memory_allocated_bytes"]
    s["rl"]["policy"]["micro_batch_unit"] = "row"  # prompt + longest per sequence
    assert estimate_report(s)["rl"]["max_memory_allocated_bytes"] > rows


def test_split_placement_counts_the_training_pool_only() -> None:
    s = copy.deepcopy(BY_ID["verl-grpo-lora-qwen2.5-7b-8xh100"]["scenario"])
    s["rl"].update(placement="split")
    s["rl"]["rollout"]["gpus"] = 8
    rl = estimate_report(s)["rl"]
    train = [p["memory"] for p in rl["phases"] if p["pool"] == "training"]
    assert rl["max_memory_allocated_bytes"] == max(m["total"] - m["overhead"] for m in train)
