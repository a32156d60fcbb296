"""vLLM's block-FP8 experts on Hopper at its Triton fused MoE's measured time
(core/speed/moe_measured_vllm_fp8.py, scripts/triton_moe_module_table.py; docs/evidence/speed.md,
the section on vLLM's block-FP8 MoE on Hopper): where a release runs Triton for them (a rank's
expert slice at most 512 wide, the releases read), the step reads aiconfigurator's vLLM 0.24.0
table; every other scenario keeps the grouped-GEMM rates."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.registry.moe_backends import FLASHINFER_CUTLASS, TRITON
from gpusizer.core.speed.moe_measured import (
    SGLANG_TRITON_FP8_BLOCK,
    VLLM_TRITON_FP8_BLOCK,
    measured_module,
    module_seconds,
)
from tests.core.blind_speeds import BlindSpeeds
from tests.core.serving_step import serving_step

DEEPSEEK = (256, 7168, 2048, 8)  # experts, hidden, moe_intermediate_size, top-k (config.json)
BLIND5 = BlindSpeeds("speed-figures-blind5.json")
DSR1 = "gpustack-vllm-0.11.0-deepseek-r1-0528-fp8-8xh200-tp8-random-burst-500"


@pytest.mark.parametrize(
    ("gpu", "tokens", "ms"),
    [
        # aiconfigurator 0.12.0 wheel, systems/data/<gpu>/moe/vllm/0.24.0/moe_perf.parquet,
        # kernel_source vllm_fp8moe_triton_tritonexperts, fp8_block, 256 x 7168 x 2048 top 8,
        # moe_tp_size 8, moe_ep_size 1, power_law_1.01: ``latency`` (ms) as written
        ("h200-141gb", 1, 0.056755),
        ("h200-141gb", 128, 0.334483),
        ("h200-141gb", 8192, 2.537933),
        ("h100-sxm-80gb", 1, 0.064109),
        ("h100-sxm-80gb", 8192, 2.720621),
    ],
)
def test_deepseeks_tp8_slice_reads_the_measured_module(gpu: str, tokens: int, ms: float) -> None:
    pts = measured_module(VLLM_TRITON_FP8_BLOCK, gpu, DEEPSEEK, 8, 1.0)
    assert module_seconds(pts, tokens) == pytest.approx(ms * 1e-3, abs=2e-9)


def test_the_0_19_0_table_of_the_same_kernel_agrees() -> None:
    # aiconfigurator 0.12.0 wheel, h200_sxm/moe/vllm/0.19.0/moe_perf.parquet, kernel_source
    # vllm_fused_moe (the collector calling vLLM 0.19.0's fused_experts), fp8_block, the same shape,
    # TP 8, power_law_1.01 (ms): the kernel and its tuned configs are the releases' (module docstring)
    older = {1: 0.05568, 16: 0.176294, 128: 0.353619, 2048: 0.900678, 8192: 2.480115, 16384: 4.57472}
    pts = measured_module(VLLM_TRITON_FP8_BLOCK, "h200-141gb", DEEPSEEK, 8, 1.0)
    ratios = {t: module_seconds(pts, t) / (ms * 1e-3) for t, ms in older.items()}
    assert all(abs(r - 1) <= 0.13 for r in ratios.values()), ratios  # 0.88 at 16 tokens the widest
    assert all(abs(ratios[t] - 1) <= 0.05 for t in (2048, 8192, 16384)), ratios


def _deepseek(**change: Any) -> dict[str, Any]:
    """The fifth blind round's GPUStack DeepSeek-R1-0528 FP8 run on 8 x H200 under vLLM 0.11.0."""
    d = copy.deepcopy(next(r for r in BLIND5.records if r["id"] == DSR1)["replay"][0]["scenario"])
    for path, value in change.items():
        section, field = path.split("__")
        d[section][field] = value
    return d


def test_the_gpustack_run_reads_the_module() -> None:
    st = serving_step(_deepseek())
    assert st.costs.moe_module == VLLM_TRITON_FP8_BLOCK
    assert st.moe_points == measured_module(VLLM_TRITON_FP8_BLOCK, "h200-141gb", DEEPSEEK, 8, 1.0)


@pytest.mark.parametrize(
    "change",
    [
        # TP 2 under 0.11.0: a 1,024-wide slice, run through DeepGEMM from 128 tokens
        {"parallelism__tensor": 2},
        # another kernel stated
        {"serving__moe_backend": FLASHINFER_CUTLASS},
        # 0.16.0's oracle takes FlashInfer's CUTLASS MoE first on Hopper for block FP8
        {"serving__engine_version": "0.16.0"},
        # before the releases read
        {"serving__engine_version": "0.9.1"},
    ],
)
def test_elsewhere_the_rates_stay(change: dict[str, Any]) -> None:
    st = serving_step(_deepseek(**change))
    assert st.costs.moe_module != VLLM_TRITON_FP8_BLOCK and not st.moe_points


def test_triton_stated_and_a_later_release_read_it() -> None:
    for change in ({"serving__moe_backend": TRITON}, {"serving__engine_version": "0.19.0"}):
        assert serving_step(_deepseek(**change)).costs.moe_module == VLLM_TRITON_FP8_BLOCK


def test_from_0_17_0_a_wide_slice_reads_it_too() -> None:
    # 0.19.0 oracle/fp8.py _get_priority_backends: TRITON first on Hopper for block FP8 at EP 1
    d = _deepseek(parallelism__tensor=2, serving__engine_version="0.19.0")
    st = serving_step(d)
    assert st.costs.moe_module == VLLM_TRITON_FP8_BLOCK
    assert st.moe_points == measured_module(VLLM_TRITON_FP8_BLOCK, "h200-141gb", DEEPSEEK, 2, 1.0)


def test_sglang_keeps_its_own_module() -> None:
    d = _deepseek()
    d["framework"] = "sglang"
    d["serving"].pop("engine_version", None)
    assert serving_step(d).costs.moe_module == SGLANG_TRITON_FP8_BLOCK
