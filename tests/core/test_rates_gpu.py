"""Per-GPU achieved rates (core/speed/rates_gpu.py): the H20's measured GEMM and attention
shares replace the Hopper entry's on that GPU only; an engine build's own era entry wins."""

from __future__ import annotations

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
