"""How the MoE layers move tokens between expert-parallel ranks (``EngineRelease.moe_comm``,
core/speed/step.py): the all-to-all dispatch and combine, or TensorRT-LLM's gather (every rank's
tokens all-gathered in the experts' input format, the 16-bit outputs reduce-scattered), priced
with NCCL's ring protocols (core/speed/collectives.py). docs/evidence/speed.md section 29."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.model.presets import gpu_spec, scenario_gpu
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engine_releases_cpp import TENSORRT_LLM
from gpusizer.core.serving.attention_dp import rank_view
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.collectives import all_gather_seconds, link
from gpusizer.core.speed.step_model import step_model

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "speed-figures.json").read_text()
)


def _scenario(rid: str) -> dict[str, Any]:
    return next(r for r in RECORDS if r["id"] == rid)["replay"][0]["scenario"]


def test_fp4_gather_is_about_three_times_the_bf16_gather() -> None:
    """TensorRT-LLM tech blog 3 (DeepSeek-R1 max throughput on 8 x B200): "At the kernel level,
    we are seeing about 3x when switching from BF16 to FP4 AllGather". The gather of a decode
    step at 896 requests a rank: 7,168 tokens of 7,168 values, FP4 with one scale per 16
    (0.5625 bytes) against 2 bytes. Tolerance 25 %: the mid-size message keeps more of its
    latency, so the bytes' 3.6x shows as 2.4x (154 against 64 us)."""
    b200 = link(gpu_spec("b200-192gb"), 8, 8)
    values = 7168 * 7168
    ratio = all_gather_seconds(b200, values * 2, 8) / all_gather_seconds(b200, values * 0.5625, 8)
    assert ratio == pytest.approx(3.0, rel=0.25)


def test_gather_charges_all_gather_and_reduce_scatter_of_every_ranks_tokens() -> None:
    s = rank_view(parse_scenario(_scenario("trtllm-dsr1-b200-maxtput-fp8kv")))
    gpu = scenario_gpu(s)
    costs = engine_costs(s, gpu, engine_settings(s, gpu))
    gathered = step_model(s, gpu, replace(costs, moe_comm="gather"))
    sh, n = gathered.shape, 896.0
    tokens = n * sh.ep * sh.hidden
    routing = n * sh.ep * sh.top_k * 8  # each token's int32 expert ids and float32 weights
    one = all_gather_seconds(gathered.ep_link, tokens * 0.5625 + routing, sh.ep)  # FP4 in
    one += all_gather_seconds(gathered.ep_link, tokens * 2, sh.ep)  # 16-bit out
    assert gathered._token_terms(n)[1] == pytest.approx(sh.moe_layers * one)
    # the all-to-all sends each token's k copies to the busiest rank instead: more at top-8
    a2a = step_model(s, gpu, replace(costs, moe_comm="all_to_all"))
    assert a2a._token_terms(n)[1] > gathered._token_terms(n)[1]


def test_block_scaled_fp8_gathers_sixteen_bit_values() -> None:
    """DeepSeek's block-scaled FP8 quantises after the gather (its scales are per 128 of a
    token's values, set by the expert GEMM's input quantiser): the gather moves 16 bits."""
    s = rank_view(parse_scenario(_scenario("trtllm-dsr1-h200-maxtput")))
    gpu = scenario_gpu(s)
    costs = engine_costs(s, gpu, engine_settings(s, gpu))
    assert step_model(s, gpu, replace(costs, moe_comm="gather"))._gather_b == 2.0


Q30_X4 = "trtllm-1.0-q30-fp4-rtxpro-x4-tp4-1000-1000"


def _moe_comm(rid: str, gpus_per_node: int | None = None) -> str:
    raw = _scenario(rid)
    if gpus_per_node:
        raw = {**raw, "hardware": {**raw["hardware"], "gpus_per_node": gpus_per_node}}
    s = rank_view(parse_scenario(raw))
    gpu = scenario_gpu(s)
    return engine_costs(s, gpu, engine_settings(s, gpu)).moe_comm


def test_tensorrt_llm_gathers_over_pcie_and_nvlink_alike() -> None:
    """TensorRT-LLM 0.19-1.0 gathers every rank's tokens in any 8-GPU box (the all-to-all only
    where ``MnnvlMemory.supports_mnnvl()``: an NVL72 domain): the model prices the gather over
    PCIe (RTX Pro 6000) and inside an NVLink node (DGX B200) alike; the all-to-all that stood in
    for MoE time inside an NVLink node is gone now that the CUTLASS grouped GEMMs run at their
    measured rates (docs/evidence/speed.md section 49)."""
    rel = TENSORRT_LLM[-1]
    assert rel.moe_comm == "gather" and any("all-gathered" in src for src in rel.sources)
    assert _moe_comm(Q30_X4) == "gather"
    assert _moe_comm("trtllm-dsr1-b200-maxtput-fp8kv") == "gather"
    assert _moe_comm("trtllm-dsr1-b200-maxtput-fp8kv", 72) == "all_to_all"


def test_pcie_gather_is_a_fraction_of_the_all_to_all_it_replaces() -> None:
    """Qwen3-30B-A3B NVFP4 on 4 RTX Pro (attention DP 4, EP 4, top-8 of 128) at 750 requests
    a rank: the all-to-all sends 8 16-bit copies of each token to the busiest rank (59.6 ms a
    step before); the engine gathers one FP4 copy with its scales and routing and
    reduce-scatters one 16-bit output: a fifth of the bytes, about a third of the time (the
    NCCL ring over PCIe at the 4-GPU host-bound 35 GB/s, NVIDIA/nccl#1639, against the
    all-to-all's 0.7 of the link's 64 GB/s): 18.8 ms a step."""
    s = rank_view(parse_scenario(_scenario(Q30_X4)))
    gpu = scenario_gpu(s)
    costs = engine_costs(s, gpu, engine_settings(s, gpu))
    gathered = step_model(s, gpu, costs)
    a2a = step_model(s, gpu, replace(costs, moe_comm="all_to_all"))
    g, a = gathered._token_terms(750.0)[1], a2a._token_terms(750.0)[1]
    assert a == pytest.approx(0.0596, rel=0.02)
    assert g == pytest.approx(0.0188, rel=0.02)
    assert 0.25 < g / a < 0.4


@pytest.mark.parametrize(
    ("rid", "published"),
    [
        ("trtllm-1.0-q30-fp4-rtxpro-x2-tp2-1000-1000", 16431),
        ("trtllm-1.0-q30-fp4-rtxpro-x4-tp4-1000-1000", 24046),
        ("trtllm-1.0-q30-fp4-rtxpro-x8-tp8-1000-1000", 31785),
    ],
)
def test_qwen3_30b_over_pcie_replays_by_its_one_gpu_column(rid: str, published: int) -> None:
    """TensorRT-LLM 1.0 perf overview (perf-overview.md at 00f37686), Qwen3-30B-A3B NVFP4 on 2, 4
    and 8 RTX Pro 6000 Server Edition at 1000/1000, total output tokens/s; the one-GPU column
    replays at 1.09. With the engine's gather over PCIe at NCCL's host-bound rate: 1.22, 1.24,
    1.12 (0.67, 0.62, 0.71 under the all-to-all). Tolerance 25 %, the regime's."""
    sv = estimate(_scenario(rid)).serving
    assert sv is not None
    assert sv.tokens_per_second / published == pytest.approx(1.0, abs=0.25)
