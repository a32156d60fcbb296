"""The H20's small-batch decode: Hopper's tensor-core GEMMs compute whole 64-row tiles
(core/speed/rates.py ``HOPPER_MMA_ROWS``, ``Rates.mma_rows``), which binds on the H20 alone
(148 BF16 / 296 FP8 TFLOPS beside 4.0 TB/s); docs/evidence/serving.md, the section on the H20's
decode step, and docs/evidence/speed.md, the section on the 64-row tile.

Sources, none of them Tencent TKE's Dynamo page nor the Mooncake runs they are checked against:
alibaba/InferSim ``bench_data/gemm/h20/data.csv`` (DeepGEMM's FP8 GEMM on one H20, m x k x n ->
us) and, for the H800 beside it, the fork roshini0108/InferSim ``bench_data/gemm/h800/data.csv``.
The TKE page's aggregated baseline (the same H20s, vLLM 0.9.0.1 V1, one TP 4 replica a user) is
replayed out of sample: nothing here was solved from it."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import gpu_spec as gpu_preset
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.load import serving_load
from gpusizer.core.speed.rates import HOPPER_MMA_ROWS, RATES
from gpusizer.core.speed.rates_era import achieved_by
from gpusizer.core.speed.step import StepModel

# InferSim's H20 table, DeepGEMM FP8 (k, n) -> {m: us}; the five shapes of 50 M weights or more
_H20_FP8 = {
    (5120, 51200): {16: 141.87, 32: 141.805, 64: 142.573, 128: 267.378, 256: 495.315},
    (25600, 5120): {16: 74.452, 32: 74.341, 64: 74.908, 128: 136.498, 256: 262.285},
    (4096, 24576): {16: 53.425, 32: 53.918, 64: 54.525, 128: 98.424, 256: 201.557},
    (12288, 4096): {16: 32.113, 32: 32.145, 64: 32.384, 128: 54.027, 256: 100.804},
    (5120, 10240): {16: 31.787, 32: 31.853, 64: 31.724, 128: 57.055, 256: 109.077},
}


def _fp8_gemm_us(m: int, k: int, n: int) -> float:
    """One FP8 GEMM on the H20 by the step's rule: the larger of its math on max(m, 64) rows at
    the H20's FP8 share and its weights at the bandwidth share, plus one kernel floor."""
    r = achieved_by(gpu_preset("h20-96gb"), "vendor")
    math = 2.0 * max(m, r.mma_rows) * k * n / (296e12 * r.matmul_low)
    return (max(math, k * n / (4.0e12 * r.bandwidth)) + r.kernel_floor) * 1e6


@pytest.mark.parametrize("shape", sorted(_H20_FP8))
def test_h20_fp8_gemm_replays_infersim(shape: tuple[int, int]) -> None:
    # flat from 16 to 64 tokens (one 64-row tile, compute-bound), then linear in the tokens:
    # ours -8 to -19 % at 16-64 tokens (DeepGEMM's 64-row tile at 0.71-0.80 of the FP8 peak where
    # ours takes the large-m 0.94), -3 to -10 % at 128, -2 to -9 % at 256
    k, n = shape
    measured = _H20_FP8[shape]
    for m, us in measured.items():
        assert _fp8_gemm_us(m, k, n) == pytest.approx(us, rel=0.20), (shape, m)
    assert _fp8_gemm_us(16, k, n) == _fp8_gemm_us(64, k, n)
    assert max(measured[16], measured[64]) / min(measured[16], measured[64]) < 1.03


def test_the_tile_does_not_bind_on_the_h800_or_h100() -> None:
    # the fork's H800 table, the same kernel: k 7,168 x n 36,864 at 16 / 64 / 128 tokens reads
    # 98.7 / 100.1 / 103.5 us, its weights streamed at 2.55-2.68 TB/s (76-80 % of 3.35): memory-
    # bound, where the 64-row tile's math at the Hopper entry's FP8 share would take 44 us
    hopper = RATES[("vendor", "hopper")]
    k, n = 7168, 36864
    math = 2.0 * HOPPER_MMA_ROWS * k * n / (1978.9e12 * hopper.matmul_low)
    memory = k * n / (3.35e12 * hopper.bandwidth)
    assert math < 0.5 * memory and memory * 1e6 == pytest.approx(98.7, rel=0.05)
    # BF16 on an H100: the tile's math is a quarter of the weights' read
    assert 2.0 * HOPPER_MMA_ROWS / (989.4e12 * hopper.matmul) < 0.3 * 2.0 / (3.35e12 * hopper.bandwidth)


def _scenario(gpu: str, users: int, version: str, **extra: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "model": {"preset": "qwen3-32b"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": 4},
        "workload": {
            "kind": "inference",
            "prompt_tokens": 2500,
            "generated_tokens": 100,
            "batch_size": users,
        },
        "serving": {"concurrency": users, "load": "steady", "engine_version": version, "max_context": 4096},
    }
    d.update(extra)
    return d


def _step(d: dict[str, Any]) -> StepModel:
    s = parse_scenario(d)
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), gpu)
    return serving_load(s, gpu, em, st).step


def test_h20_qwen3_32b_decode_step_terms() -> None:
    # Qwen3-32B BF16 at TP 4 on the H20, one sequence: 15.6 GB of projections a GPU read in
    # 4.9 ms at 0.8 x 4.0 TB/s, but their 64-row tile's math is 64 x 2 FLOP a weight at
    # 0.936 x 148 TFLOPS: 7.2 ms. The step: 7.21 projections + 0.18 LM head + 0.05 attention +
    # 1.03 all-reduces (128 x 8 us) + 1.74 kernel floors (580 x 3 us) + 0.40 host + 0.96 for
    # 0.9.0's PIECEWISE graphs (64 layers x 15 us, docs/evidence/speed.md section 136) = 11.6 ms
    # (8.2 before the tile, 10.6 before the PIECEWISE decode). The same up to 64 sequences but for
    # the KV read; the H100 stays memory-bound
    h20 = _step(_scenario("h20-96gb", 1, "0.9.0"))
    proj, _ = h20._token_terms(1)
    assert proj * 1e3 == pytest.approx(7.21, rel=0.01)
    assert h20._token_terms(32)[0] == pytest.approx(proj, rel=0.01)
    assert h20.decode_seconds(1, 2550) * 1e3 == pytest.approx(11.6, rel=0.01)
    h100 = _step(_scenario("h100-sxm-80gb", 1, "0.9.0"))
    assert h100._token_terms(1)[0] < h100._token_terms(64)[0] * 1.001 < h100._token_terms(128)[0]


def test_weight_only_formats_and_eras_keep_their_own_tiles() -> None:
    # Marlin's 4-bit GEMMs tile by 16 rows (no 64-row tile); vLLM 0.11's era keeps the vendor
    # GEMM share (docs/evidence/speed.md section 104), so the H20 keeps its own 0.936 and its tile
    awq = _step(_scenario("h20-96gb", 1, "0.9.0", precision={"weights": "awq_int4"}))
    assert awq.rates.mma_rows == 0
    v11 = _step(_scenario("h20-96gb", 1, "0.11.0"))
    v09 = _step(_scenario("h20-96gb", 1, "0.9.0"))
    assert v11.rates.mma_rows == HOPPER_MMA_ROWS
    assert v11._token_terms(1)[0] == pytest.approx(v09._token_terms(1)[0], rel=1e-9)


# tkestack/tke-ai-playbook helm-charts/dynamo-disagg/perf_qwen3-32b.md at 39163d2c, "vLLM v0.9.0.1
# V1 Engine, 4 x TP4 Chunked Prefill, H20 96GB": mean TPOT at one user (one request a replica at a
# time): 13.62 ms at 2500:100, 11.64 at 500:1000 (outputs to EOS); "vLLM v0.8.4 V0": 16.9 ms.
# Out of sample: 0.78 and 0.91 now (0.60 and 0.71 before); V0 0.63 (0.49)
@pytest.mark.parametrize(
    ("version", "isl", "osl", "published", "low"),
    [("0.9.0", 2500, 100, 13.62, 0.75), ("0.9.0", 500, 1000, 11.64, 0.75), ("0.7.0", 2500, 100, 16.9, 0.6)],
)
def test_tke_aggregated_baseline_out_of_sample(
    version: str, isl: int, osl: int, published: float, low: float
) -> None:
    d = _scenario("h20-96gb", 1, version)
    d["workload"].update(prompt_tokens=isl, generated_tokens=osl)
    ours = float(estimate_report(d)["serving"]["tpot_seconds"]) * 1e3
    assert low < ours / published < 1.0
