"""Per-GPU achieved rates (core/speed/rates_gpu.py): the H20's measured GEMM and attention
shares replace the Hopper entry's on that GPU only; an engine build's own era entry wins."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import gpu_spec as gpu_preset
from gpusizer.core.speed.rates import RATES
from gpusizer.core.speed.rates_era import ERA_RATES, achieved_by
from gpusizer.core.speed.rates_gpu import H20_ATTENTION, H20_MATMUL


def test_h20_takes_its_measured_shares() -> None:
    r = achieved_by(gpu_preset("h20-96gb"), "vendor")
    # torch.matmul BF16 8192^3 138.60 of 148 TFLOPS; FA3 causal hdim 128 107.8 of 148
    assert r.matmul == H20_MATMUL == 0.936
    assert r.attention == H20_ATTENTION == 0.728
    hopper = RATES[("vendor", "hopper")]
    assert r.bandwidth == hopper.bandwidth and r.kernel_floor == hopper.kernel_floor


def test_other_hoppers_and_eras_unchanged() -> None:
    assert achieved_by(gpu_preset("h100-sxm-80gb"), "vendor") is RATES[("vendor", "hopper")]
    era = achieved_by(gpu_preset("h20-96gb"), "vendor", "vllm-0.11")
    assert era is ERA_RATES[("vendor", "hopper", "vllm-0.11")]
    assert achieved_by(gpu_preset("h20-96gb"), "ggml") is RATES[("ggml", "hopper")]


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
