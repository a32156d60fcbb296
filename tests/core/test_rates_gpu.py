"""Per-GPU achieved rates (core/speed/rates_gpu.py): the H20's measured GEMM, attention and
grouped-GEMM shares replace the Hopper entry's on that GPU only; an engine build's era entry
replaces the shares it measured and keeps the GPU's others (rates_era.py ``_over_own``)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import gpu_spec as gpu_preset
from gpusizer.core.speed.rates import RATES
from gpusizer.core.speed.rates_era import ERA_RATES, achieved_by
from gpusizer.core.speed.rates_gpu import (
    H20_ATTENTION,
    H20_GROUPED_BANDWIDTH,
    H20_GROUPED_HALF,
    H20_MATMUL,
)
from gpusizer.core.speed.step import experts_read


def test_h20_takes_its_measured_shares() -> None:
    r = achieved_by(gpu_preset("h20-96gb"), "vendor")
    # torch.matmul BF16 8192^3 138.60 of 148 TFLOPS; FA3 causal hdim 128 107.8 of 148
    assert r.matmul == H20_MATMUL == 0.936
    assert r.attention == H20_ATTENTION == 0.728
    # vLLM PR #44152's H20 fused_moe_kernel: 84 % of 4.0 TB/s, half rate at 24 tokens an expert
    assert (r.grouped_bandwidth, r.grouped_half) == (H20_GROUPED_BANDWIDTH, H20_GROUPED_HALF) == (0.84, 24.0)
    hopper = RATES[("vendor", "hopper")]
    assert r.bandwidth == hopper.bandwidth and r.kernel_floor == hopper.kernel_floor


def test_other_hoppers_unchanged_and_eras_keep_the_gpus_own() -> None:
    assert achieved_by(gpu_preset("h100-sxm-80gb"), "vendor") is RATES[("vendor", "hopper")]
    era = ERA_RATES[("vendor", "hopper", "vllm-0.11")]
    assert achieved_by(gpu_preset("h100-sxm-80gb"), "vendor", "vllm-0.11") is era
    # vLLM 0.11's paged-cache share (measured on an H100), the H20's own GEMM share, attention and
    # grouped GEMMs (measured on the H20): the era keeps the vendor Hopper GEMM share
    # (docs/evidence/speed.md section 104), so it replaces none of the H20's
    h20 = achieved_by(gpu_preset("h20-96gb"), "vendor", "vllm-0.11")
    assert era.matmul == RATES[("vendor", "hopper")].matmul
    own = achieved_by(gpu_preset("h20-96gb"), "vendor")
    assert (h20.matmul, h20.kv_bandwidth) == (own.matmul, era.kv_bandwidth)
    assert (h20.attention, h20.grouped_half, h20.grouped_bandwidth) == (H20_ATTENTION, 24.0, 0.84)
    assert achieved_by(gpu_preset("h20-96gb"), "ggml") is RATES[("ggml", "hopper")]


# vllm-project/vllm PR #44152 (2026-06-01), one H20, fused_moe_kernel BF16 with the PR's tuned
# configs, one expert GEMM of Mixtral's shape (8 experts of N 14,336 x K 4,096, top-2): batch ->
# ms. Batch 32 set the bandwidth share and batches 512 / 2,048 the half-rate point; 1 and 128
# are out of sample
_PR44152 = {1: 0.076, 32: 0.279, 128: 0.435, 512: 1.069, 2048: 3.606}


@pytest.mark.parametrize("batch", sorted(_PR44152))
def test_h20_grouped_gemm_replays_the_kernel_benchmark(batch: int) -> None:
    # the step's rule (core/speed/step_moe.py ``_experts``): the larger of the math at m / (m + half)
    # of the matmul rate (a vector kernel up to 8 tokens an expert) and the experts read at the
    # grouped bandwidth, plus one kernel floor; within 13 % (before: +36 % at batch 32, +98 % at
    # 128 and +41 % at 512 with the H100's 95 tokens and 62 %)
    r = achieved_by(gpu_preset("h20-96gb"), "vendor")
    w = 14336 * 4096
    distinct = experts_read(8, 2, batch)
    per = batch * 2 / distinct
    eff = 1.0 if per <= 8 else per / (per + r.grouped_half)
    math = 2.0 * batch * 2 * w / (148e12 * r.matmul * eff)
    ms = (max(math, distinct * w * 2 / (4.0e12 * r.grouped_bandwidth)) + r.kernel_floor) * 1e3
    assert ms == pytest.approx(_PR44152[batch], rel=0.13)


def test_metal_2025_floor_is_the_m4s_and_the_m3_keeps_2024s() -> None:
    # The 3.9 us floor was solved on an M4 Max (llama.cpp PR #14596, qwen3moe tg128 76.68 t/s);
    # the M3 Ultra's build-7315 decodes (geerlingguy/beowulf-ai-cluster#17: Llama 3.3 70B Q4_K_M
    # tg128 14.41 t/s, DeepSeek R1 Q4_K_M 20.21) sit within 2 % on the 2024 floor, 7.1 us, and
    # 1.09x / 1.22x fast on the M4's (docs/evidence/speed.md section 34)
    from gpusizer.core.speed.rates_era import M3_ERA_RATES, METAL_2025_FLOOR

    m2 = RATES[("ggml", "apple")].kernel_floor
    for era in ("metal-2025", "metal-2025-07"):
        m4 = achieved_by(gpu_preset("apple-m4-max-128gb"), "ggml", era)
        m3 = achieved_by(gpu_preset("apple-m3-ultra-512gb"), "ggml", era)
        assert m4 is ERA_RATES[("ggml", "apple-m3", era)] and m4.kernel_floor == METAL_2025_FLOOR
        assert m3 is M3_ERA_RATES[("ggml", "apple-m3", era)] and m3.kernel_floor == m2 == pytest.approx(
            7.1e-6
        )
        # the M3's compute shares (Dynamic Caching) and the grouped GEMM's rate stay the M4's
        assert (m3.matmul, m3.matmul_quant, m3.grouped_tile_rate) == (
            m4.matmul,
            m4.matmul_quant,
            m4.grouped_tile_rate,
        )
    # MLX and the 2024 ggml entry are untouched
    assert achieved_by(gpu_preset("apple-m3-ultra-512gb"), "ggml") is RATES[("ggml", "apple-m3")]
