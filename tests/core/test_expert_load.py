"""The busiest expert-parallel rank (core/speed/expert_load.py) and what it does to a step."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gpusizer.core.speed.expert_load import busiest_rank_factor
from tests.core.test_speed_figures import metric


def test_without_expert_parallelism_every_rank_is_the_mean() -> None:
    assert busiest_rank_factor(256, 8, 4096, 1, 1.01) == 1.0


def test_deepseek_at_max_throughput_matches_aiconfigurators_distribution() -> None:
    # DeepSeek-R1 (256 experts, top 8, alpha 1.01) at EP 8 and ~7,000 tokens a step: 1.49, the
    # mean busiest / mean rank over 200 draws of aiconfigurator's _generate_power_law_distribution
    # re-implemented with numpy (seed 0); 48 seeded draws here, within 5 %
    assert busiest_rank_factor(256, 8, 7168, 8, 1.01) == pytest.approx(1.49, rel=0.05)


def test_a_more_skewed_router_and_more_tokens_load_the_busiest_rank_more() -> None:
    deepseek = busiest_rank_factor(256, 8, 8192, 8, 1.01)
    qwen = busiest_rank_factor(128, 8, 8192, 8, 1.2)  # Qwen3-235B-A22B's 128 experts
    assert qwen > deepseek > 1.0
    assert busiest_rank_factor(128, 8, 8192, 8, 1.2) > busiest_rank_factor(128, 8, 512, 8, 1.2)


def test_the_answer_is_the_same_every_run() -> None:
    assert busiest_rank_factor(128, 8, 1000, 8, 1.2) == busiest_rank_factor(128, 8, 1000, 8, 1.2)


def test_tensorrt_llms_qwen3_235b_row_replays_as_attention_dp() -> None:
    """TensorRT-LLM 1.0 perf-overview, Qwen3-235B-A22B NVFP4 on 8 x B200, 1000/1000: 42,391
    output tokens/s with ``enable_attention_dp`` ("MoE rows also enable_attention_dp"). Replayed
    as attention DP 8 + EP 8 it came out 1.76x before the busiest rank was modelled, 1.17 with
    it; 1.32 since the engine's own gather replaced the all-to-all that stood in for MoE time
    inside an NVLink node (its CUTLASS MoE at the measured rates: 1.08 with the all-to-all,
    docs/evidence/speed.md section 49); 1.16 since the CUTLASS MoE module is read at its measured
    time for this shape (core/speed/moe_measured.py ``group_module``: the shares read it 0.76-0.90
    of the measured call at the decode step's 2,048-4,096 tokens)."""
    records = json.loads((Path(__file__).parent / "data" / "speed-figures.json").read_text())
    (record,) = [r for r in records if r["id"] == "trtllm-1.0-q235-fp4-b200-x8-tp8-1000-1000"]
    entry = copy.deepcopy(record["replay"][0])
    entry["scenario"]["parallelism"].update({"tensor": 8, "attention_data": 8, "expert": 8})
    assert metric(entry) / entry["published"] == pytest.approx(1.16, abs=0.03)


def test_deepseek_r1s_max_throughput_row_came_down_with_the_busiest_rank() -> None:
    """TensorRT-LLM's DeepSeek-R1 NVFP4 on 8 x B200, attention DP + EP 8, 896 requests a rank,
    FP8 KV: 43,150 output tokens/s published (tests/core/data/speed-figures.json). 1.78x fast
    with the mean rank's load, 1.47 with the busiest rank's, 1.37 once a rank also waits at the
    MoE layers for another rank's prompt, 1.13 once release 0.20's MoE layers take every rank's
    tokens padded to the prompt rank's count (docs/evidence/speed.md sections 23, 28 and 31);
    1.21 with the engine's gather and its CUTLASS MoE at the measured rates (section 49), 1.01
    with that module at its measured times (core/speed/moe_measured.py ``group_module``)."""
    records = json.loads((Path(__file__).parent / "data" / "speed-figures.json").read_text())
    (record,) = [r for r in records if r["id"] == "trtllm-dsr1-b200-maxtput-fp8kv"]
    entry = record["replay"][0]
    assert metric(entry) / entry["published"] == pytest.approx(1.01, abs=0.05)


def test_metal_tiles_price_few_tokens_an_expert_by_their_padding() -> None:
    """ggml-metal-ops.cpp ``ggml_metal_op_mul_mat_id``: (ne21 + 31) / 32 column tiles of 32
    tokens an expert, each computed in full. At a 512-token micro-batch DeepSeek-R1's 256 experts
    (top 8) get 16 tokens each on average: about half of a tile is real work (0.45 with the
    prefill routing skew, 0.5 were every expert given exactly 16); Qwen3-30B-A3B's 128 experts at
    2,048 tokens (128 each) fill nearly 9 tiles of 10."""
    from gpusizer.core.speed.expert_load import tile_efficiency

    dsr1 = tile_efficiency(256, 8, 512, 32)
    assert 0.40 <= dsr1 <= 0.50
    assert tile_efficiency(128, 8, 512, 32) < tile_efficiency(128, 8, 2048, 32) <= 1.0
    assert tile_efficiency(128, 8, 2048, 32) == pytest.approx(0.88, abs=0.03)


def test_metal_moe_prefill_follows_its_tiles_not_the_spark_half_rate() -> None:
    """Out of sample (speed-figures-apple.json): the M2 Ultra's Qwen3-30B-A3B Q8_0 at n_ubatch
    2048 (ggml-org/llama.cpp PR #15616) runs pp2048 at 1.11x its pp512 (2,272.56 / 2,045.19 t/s:
    32 and 128 tokens an expert); the half rate at 57 tokens an expert (DGX Spark) made it 1.50x,
    the tiles give it within 10 %. DeepSeek-R1's pp4096 on the M3 Ultra (build 7315) and the M2
    Ultra's pp512 and pp2048 come within 5 % (0.70, 0.77, 1.05 before)."""
    from tests.core.test_speed_figures_vendors import RATIOS

    rid = "llamacpp-pr15616-m2ultra-qwen3-30b-a3b-q8_0"
    pp512, pp2048 = RATIOS[("apple", rid, "pp512")], RATIOS[("apple", rid, "pp2048")]
    assert pp2048 * 2272.56 / (pp512 * 2045.19) == pytest.approx(2272.56 / 2045.19, rel=0.10)
    dsr1 = RATIOS[("apple", "llamacpp-b7315-m3ultra512-deepseek-r1-q4_k_m", "pp4096")]
    for r in (dsr1, pp512, pp2048):
        assert r == pytest.approx(1.0, abs=0.05)
