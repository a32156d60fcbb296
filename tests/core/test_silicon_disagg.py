"""NVIDIA aiconfigurator's measured disaggregated runs replayed through ``serving.disaggregated``
(docs/evidence/serving.md §17; ``scripts/silicon_disagg_replay.py``).

The data: a deterministic stratified subset (tests/core/data/silicon-disagg-subset.json: in
each backend x GPU x model, the 6 rows of lowest SHA-256 of their id, never chosen by ratio)
of the 113 rows of aiconfigurator 0.12.0's ``systems/silicon_sample.csv`` (Apache-2.0) that
ours expresses (110 before the decode pool's running cap), each kept as the CSV has it and
mapped by the script itself. The whole replay
(110 rows, 220 figures): TTFT 20 of 110 within 25 %, TPOT 92 of 110; after later rounds
113 rows, TTFT 26 and TPOT 88, and with aiperf's opening burst stated TTFT 30 of 113; with a
decode replica's running cap and its wait for a slot or KV room in the first token
(core/serving/decode_queue.py, serving.md "aiconfigurator's 113 P/D runs re-counted after the
decode pool's running cap") TTFT 31 of 113, TPOT 88: five rows move, each a KV-room wait."""

from __future__ import annotations

import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
import silicon_disagg_replay as replay

DATA = json.loads((Path(__file__).parent / "data" / "silicon-disagg-subset.json").read_text())
TOL = 0.25  # the bar


def _ours(row: dict[str, Any]) -> tuple[float, float]:
    d = replay.scenario(row)
    assert not isinstance(d, str), d
    got = replay.replay(d)
    assert not isinstance(got, str), got
    return got


@pytest.fixture(scope="module")
def replayed() -> list[tuple[dict[str, Any], tuple[float, float]]]:
    return [(r["row"], _ours(r["row"])) for r in DATA["rows"]]


def test_subset_states_its_source() -> None:
    """Source, licence and wheel version beside the rows; 40-80 rows, at most 6 a stratum."""
    about = DATA["_about"]
    assert "silicon_sample.csv" in about["source"] and "0.12.0" in about["source"]
    assert about["license"] == "Apache-2.0"
    rows = DATA["rows"]
    assert 40 <= len(rows) <= 80
    assert len({r["id"] for r in rows}) == len(rows)
    assert max(Counter(r["stratum"] for r in rows).values()) <= 6
    assert all(r["row"]["mode"] == "disagg" for r in rows)


def test_subset_counts(replayed: list[tuple[dict[str, Any], tuple[float, float]]]) -> None:
    """53 rows: first tokens 15 of 53 within 25 %, time per token 40 of 53 (50 rows, 15 and 39,
    until the subset was rewritten after the decode pool's running cap: three more Qwen3-32B
    4000/1000 rows on H100 under SGLang start, so the script's rule, the 6 of lowest SHA-256 a
    stratum, takes 4 there, not 1; of the three, TP 1's time per token comes in at 1.17 and
    every first token stays out (1.33, 2.17 and 39 x measured); 14 before a decode
    replica's wait for KV room was put in the first token, core/serving/decode_queue.py,
    serving.md "A disaggregated decode replica runs its engine's running cap": Qwen3-32B
    4000/1000 on H100 under SGLang came in, 0.06 -> 0.77, while its time per token stays 0.19,
    so it is in by the queue, not a right decode step; DeepSeek-R1 GB200 1k/1k c4096 3.5 ->
    20.6 and Qwen3-32B on H100 under vLLM 2.8 -> 7.8 stay out; 11 before the
    replay stated aiperf's opening burst, ``opening_burst`` over 10 requests a user:
    core/serving/disagg_burst.py, serving.md "aiperf's opening burst"; 10 and 40 before
    SGLang's default fraction reserved cuda_graph_max_bs x dp_size x 4.5 MiB under DP attention,
    serving.md "SGLang's reserve under DP attention...": the H200 8k/1k decode's first token
    0.19 -> 0.76, the GB200 1k/1k c4096 decode pool too small for its 512 users a rank, time
    per token 0.99 -> 0.55, the run's own fraction not in the CSV; 11 before
    trtllm-serve's cost per request was re-solved, 33.4 -> 20.4 ms, once the overlap scheduler's
    skipped steps took part of the figure it was solved from: GB200 DeepSeek-V3 8k/1k 0.757 ->
    0.746, every TensorRT-LLM first token 0.2-2 % shorter; 9 and 41 before
    TensorRT-LLM's CUTLASS MoE took its measured rates and its gather, speed.md section 49:
    three B200 DeepSeek first tokens came in, 1.44-1.69 -> 1.15-1.33, and the GB200 / GB300
    DeepSeek decodes moved slow, 0.97-1.32 -> 1.13-1.73). TPOT is the
    split's decode pool (median 0.93 of measured); TTFT misses both ways: a prefill rank that
    runs one prompt at a time (the rows' ``prefill_batch_size``) queues near saturation, where
    a small error in its prompt time moves the queue a lot, and at light load SGLang's P/D path
    costs more than ours (§16). Pinned so that a model closing either gap updates §17."""
    ttft = [ours[0] / float(row["silicon_ttft_ms"]) for row, ours in replayed]
    tpot = [ours[1] / float(row["silicon_tpot_ms"]) for row, ours in replayed]
    # 15 before MLA's down-projections read whole on every TP rank (core/model/mla_whole.py):
    # DeepSeek-R1 FP8 on H200 8k/1k at 64 users came in, 0.717 -> 0.769
    assert sum(abs(q - 1) <= TOL for q in ttft) == 16
    assert sum(abs(q - 1) <= TOL for q in tpot) == 40
    assert 0.85 <= statistics.median(tpot) <= 1.0


def _split(**extra: Any) -> dict[str, Any]:
    """DeepSeek-V3 FP8 on H200 under TensorRT-LLM: one attention-DP TP 8 decode worker, the
    prefill pool one 8-GPU worker, 1,024 users of 1,024-token prompts (the prefill pool busy)."""
    return {
        "model": {"preset": "deepseek-v3"},
        "framework": "tensorrt-llm",
        "hardware": {"gpu": "h200-141gb"},
        "parallelism": {"tensor": 8, "attention_data": 8, "expert": 8},
        "precision": {"weights": "fp8", "quantization_rule": "fp8-block"},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256, "batch_size": 1024},
        "serving": {
            "concurrency": 1024,
            "load": "steady",
            "disaggregated": {"prefill_gpus": 8, "decode_gpus": 8, **extra},
        },
    }


def test_prefill_batch_of_one_queues() -> None:
    """A prefill rank that takes one request at a time (aiconfigurator's generator renders the
    prefill worker at max_batch_size 1) gives a later first token under load than one that
    batches the prompts waiting; the decode is the same."""
    free = estimate_report(_split())["serving"]
    one = estimate_report(_split(prefill_max_sequences=1))["serving"]
    assert one["disaggregated_ttft_seconds"] > free["disaggregated_ttft_seconds"]
    assert one["disaggregated_tpot_seconds"] == free["disaggregated_tpot_seconds"]


def test_prefill_layout_as_the_scenario_changes_nothing() -> None:
    """Naming the scenario's own layout for the prefill pool is the same as leaving it null."""
    base = estimate_report(_split())["serving"]
    same = estimate_report(_split(prefill_tensor=8, prefill_attention_data=8, prefill_expert=8))["serving"]
    for k in ("disaggregated_ttft_seconds", "disaggregated_tpot_seconds", "disaggregated_tokens_per_second"):
        assert same[k] == base[k]


def test_prefill_pool_of_its_own_layout() -> None:
    """A tensor-parallel prefill pool (TP 8, experts tensor-parallel) beside the attention-DP
    decode worker: its own step model, so its first token differs; the decode does not."""
    base = estimate_report(_split())["serving"]
    tp = estimate_report(_split(prefill_attention_data=1, prefill_expert=1))["serving"]
    assert tp["disaggregated_ttft_seconds"] != base["disaggregated_ttft_seconds"]
    assert tp["disaggregated_tpot_seconds"] == base["disaggregated_tpot_seconds"]


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"prefill_tensor": 4, "prefill_attention_data": 3}, "serving.disaggregated.prefill_attention_data"),
        # experts EP 8 inside TP 8 is a layout TensorRT-LLM runs (moe_expert_parallel_size within
        # tp_size, docs/evidence/serving.md section 62); 3 divides neither the ranks nor the TP
        ({"prefill_attention_data": 1, "prefill_expert": 3}, "serving.disaggregated.prefill_expert"),
    ],
)
def test_bad_prefill_layout_names_the_field(extra: dict[str, int], field: str) -> None:
    with pytest.raises(ScenarioError) as e:
        estimate_report(_split(**extra))
    assert e.value.field == field


def test_beside_aiconfigurator(replayed: list[tuple[dict[str, Any], tuple[float, float]]]) -> None:
    """aiconfigurator 0.12.0's own answers for the same rows (the subset's ``aiconfigurator``,
    its ``cli_estimate`` at its default database; it refuses 23 of the 53, most for want of
    cross-node DeepEP all-to-all data; the three Qwen3-32B SGLang H100 rows added after the
    decode pool's running cap it refuses as out of memory, so the counts below stand). On the
    30 both express: ours TTFT 10 and TPOT 25 within
    25 %, aiconfigurator's 3 and 19 (its first token the prefill worker's alone, no queue; ours
    TTFT 6 before the replay stated aiperf's opening burst, core/serving/disagg_burst.py; 5
    before SGLang's DP-attention reserve, the H200 8k/1k row of test_subset_counts, and
    6 before trtllm-serve's cost per request was re-solved, the GB200 row there)."""
    ours_in, theirs_in = [0, 0], [0, 0]
    both = 0
    for (row, ours), rec in zip(replayed, DATA["rows"], strict=True):
        aic = rec["aiconfigurator"]
        if not isinstance(aic, list):
            continue
        both += 1
        for i, key in enumerate(("silicon_ttft_ms", "silicon_tpot_ms")):
            measured = float(row[key])
            ours_in[i] += abs(ours[i] / measured - 1) <= TOL
            theirs_in[i] += abs(aic[i] / measured - 1) <= TOL
    assert both == 30
    assert ours_in == [
        11,
        25,
    ]  # [10, 25] before MLA's down-projections read whole on every TP rank (core/model/mla_whole.py)
    assert theirs_in == [3, 19]
