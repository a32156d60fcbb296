"""MXFP4 routed experts on AMD CDNA3 (core/speed/mx_upcast.py): OpenAI's triton_kernels as vLLM
runs gpt-oss on gfx942, read, upcast to BF16 on the vector ALUs and multiplied in BF16 MFMA
tiles in turn. Sources: Triton third_party/amd UpcastMXFPToLLVM.cpp (the instruction count),
triton_kernels matmul_ogs_details/opt_flags.py ``make_default_opt_flags_amd`` (the tile), vLLM
quantization/mxfp4.py (the backend on ROCm). The published figures it is checked against are
InferenceX's gpt-oss-120b runs on one MI300X (tests/core/data/speed-figures-amd.json, replayed
by test_speed_figures_vendors.py; docs/evidence/speed.md section 43)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.mx_upcast import tile_rows
from gpusizer.core.speed.rates import MX_UPCAST_OPS, RATES
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model


def _step(gpu: str, model: str = "gpt-oss-120b", framework: str = "vllm") -> StepModel:
    s = parse_scenario(
        {
            "model": {"preset": model},
            "framework": framework,
            "hardware": {"gpu": gpu},
            "workload": {"kind": "inference", "batch_size": 128},
        }
    )
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def test_the_upcast_costs_seven_instructions_a_weight() -> None:
    # upcast8xMxfp4: 20 instructions for 8 values; mxfpScaleBf16ViaF32: 4 a value; a pack per 2
    assert MX_UPCAST_OPS == 7.0
    assert RATES[("vendor", "cdna3")].mx_upcast_ops == MX_UPCAST_OPS
    assert RATES[("vendor", "cdna4")].mx_upcast_ops == 0.0  # gfx950: scaled MFMA


@pytest.mark.parametrize(
    ("rows", "block"),
    [(512, 32), (1024, 32), (128 * 40, 64), (128 * 100, 64), (128 * 512, 128)],
)
def test_the_tile_is_the_amd_opt_flags(rows: int, block: int) -> None:
    # block_m = max(32, min(next_power_of_2(m // n_expts_tot), 64)); 128 from 512 tokens an expert
    assert tile_rows(rows, 128) == block


def test_only_mxfp4_experts_on_cdna3_under_vendor_kernels_pay_it() -> None:
    assert _step("mi300x-192gb").rates.mx_upcast_ops == MX_UPCAST_OPS
    assert _step("mi355x-288gb").rates.mx_upcast_ops == 0.0  # an FP4 matrix rate of its own
    assert _step("h100-sxm-80gb").rates.mx_upcast_ops == 0.0
    assert _step("mi300x-192gb", model="qwen3-30b-a3b").rates.mx_upcast_ops == 0.0  # 16-bit experts


def test_a_128_user_decode_pays_read_upcast_and_math_in_turn() -> None:
    # InferenceX PR #1061 (vLLM 0.17.0 ROCm, one MI300X): median TPOT 41.3 ms at 128 users with
    # prompts in the same steps; the decode step alone must sit below it and well above the
    # reads alone (the overlapped composition, 18.9 ms before this rule)
    step = _step("mi300x-192gb").decode_seconds(128, 1400)
    assert 0.030 < step < 0.0413
