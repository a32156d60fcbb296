"""Block-FP8 GEMMs at prefill-sized M on CDNA3: AITER's measured gfx942 times against what the
step prices (docs/evidence/serving.md, the section on AITER's large-M block-FP8 GEMMs).

Measured: ROCm/aiter ``aiter/configs/model_configs/a8w8_blockscale_tuned_gemm_qwen3_vl_235b.csv``
at 6b831fb287 (2026-07-08, PR #3422), rows ``gfx942`` / ``cu_num`` 304 (MI300X, MI325X): the CK
``gemm_a8w8_blockscale`` kernels, 128 x 128 weight scales, at Qwen3-235B's TP 8 attention shapes
(its text backbone is Qwen3-VL-235B's): the input projection N 1,280 (a rank's 8 query heads and
the K and V of the one KV head it holds, 10 x 128) x K 4,096, the output projection N 4,096 x K
1,024. The step prices a block-FP8 GEMM on CDNA3 at the ``("vendor", "cdna3")`` share of the FP8
peak, 0.19 x 2,614.9 = 497 TFLOP/s (core/speed/rates_vendor.py, set on Oracle's MI300X hipBLASLt
run), plus the 3 us kernel floor. From 4K tokens AITER's kernel is the faster (0.68-0.91 of the
step's time: 530-720 TFLOP/s); at 1-2K tokens mostly the slower (0.93-1.29). An 8,008- or
16,008-token prompt, the Anyscale runs' prefill, is in the first range: AITER's times would shorten
the first token, not explain why the runs' is longer, so the step keeps its share (nothing fitted,
nothing changed). This file pins the comparison so that a change of the CDNA3 share shows here.
"""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model

us = 1e-6

# a8w8_blockscale_tuned_gemm_qwen3_vl_235b.csv at 6b831fb287, gfx942, cu_num 304: (M, N, K) -> us
AITER = {
    (1024, 1280, 4096): 31.8285,
    (2048, 1280, 4096): 54.5781,
    (4096, 1280, 4096): 81.445,
    (8064, 1280, 4096): 143.5386,
    (16000, 1280, 4096): 233.0784,
    (1024, 4096, 1024): 22.4666,
    (2048, 4096, 1024): 35.0746,
    (4096, 4096, 1024): 62.8318,
    (8064, 4096, 1024): 108.855,
    (16000, 4096, 1024): 209.0921,
}


def _step() -> StepModel:
    """Anyscale's MI325X engine (tests/core/data/disagg-anyscale-mi325x.json: Qwen3-235B-FP8,
    128 x 128 block scales, TP 8 with EP 8, vLLM 0.18)."""
    s = parse_scenario(
        {
            "model": {"preset": "qwen3-235b-a22b"},
            "framework": "vllm",
            "hardware": {"gpu": "mi325x-256gb", "gpus_per_node": 8},
            "precision": {"weights": "fp8", "quantization_rule": "fp8-block", "kv_cache": "fp8"},
            "parallelism": {"tensor": 8, "expert": 8},
            "serving": {"engine_version": "0.18.0"},
            "workload": {"kind": "inference", "batch_size": 16},
        }
    )
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def _priced(st: StepModel, m: int, n: int, k: int) -> float:
    """Seconds the step charges one block-FP8 GEMM of ``m`` tokens: the larger of its math at
    the CDNA3 FP8 rate and its weights' bytes, plus the kernel floor (the walk along K,
    core/speed/block_walk.py, is below both at these M)."""
    work = max(2.0 * m * n * k / st.rate.mm, n * k / st.rate.bandwidth)
    return work + st.rates.kernel_floor


def test_the_step_prices_block_fp8_on_cdna3_at_a_fifth_of_the_fp8_peak() -> None:
    # 0.19 x MI325X's 2,614.9 dense FP8 TFLOP/s (core/speed/rates_vendor.py)
    assert _step().rate.mm == pytest.approx(496.8e12, rel=0.01)


@pytest.mark.parametrize("shape", sorted(AITER))
def test_aiter_is_faster_than_the_step_at_prefill_sized_m_and_slower_below(
    shape: tuple[int, int, int],
) -> None:
    m, n, k = shape
    ratio = AITER[shape] * us / _priced(_step(), m, n, k)
    if m >= 4096:  # an Anyscale prompt's prefill (8,008 / 16,008 tokens): AITER is the faster
        assert 0.6 <= ratio <= 0.95
    else:  # 1-2K tokens: tiles barely fill 304 CUs (M 1,024 x N 1,280 in 64 x 64: 320, two waves)
        assert 0.9 <= ratio <= 1.35


def test_an_8k_prompts_attention_gemms_would_shorten_under_aiter() -> None:
    """The two attention GEMMs of a layer at 8,064 tokens: AITER 252 us, the step's price of the
    same shapes 312 us: over 94 layers 23.7 ms against 29.4 ms, of a ~209 ms prefill step."""
    st = _step()
    aiter = sum(AITER[(8064, n, k)] for n, k in ((1280, 4096), (4096, 1024))) * us
    priced = sum(_priced(st, 8064, n, k) for n, k in ((1280, 4096), (4096, 1024)))
    assert aiter == pytest.approx(252.4 * us, rel=0.01)
    assert aiter / priced == pytest.approx(0.81, abs=0.02)
