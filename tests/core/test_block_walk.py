"""Block-scaled FP8 GEMMs at few tokens on CDNA3 walk K in one wave (core/speed/block_walk.py;
docs/evidence/serving.md, the section on the MI325X decode step's block-FP8 GEMMs).

Measured: ROCm/aiter ``aiter/configs/a8w8_blockscale_tuned_gemm.csv`` at 1c06f87f87, rows of
``cu_num`` 304 (gfx942: MI300X, MI325X) at M = 16. The line 3.25 us + 2.21 ns x K was solved from
these nine rows (a kernel's own table, no serving figure); each is reproduced within 8 %.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.block_walk import expert_walk, linear_walks, walk_seconds
from gpusizer.core.speed.rates import RATES
from gpusizer.core.speed.roofline import linear_ops
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model

us = 1e-6
CDNA3 = RATES[("vendor", "cdna3")]


@pytest.mark.parametrize(
    ("n", "k", "published_us"),
    # aiter a8w8_blockscale_tuned_gemm.csv at 1c06f87f87, cu_num 304, M 16: (N, K, us)
    [
        (7168, 256, 3.6821),
        (4096, 512, 4.0887),
        (3072, 1536, 6.3665),
        (7168, 2048, 8.4152),
        (7168, 2304, 8.5899),
        (512, 7168, 18.3741),
        (576, 7168, 18.445),
        (1536, 7168, 19.3027),
        (4608, 7168, 20.1448),
    ],
)
def test_the_line_reproduces_aiters_gfx942_rows(n: int, k: int, published_us: float) -> None:
    # the walk is the time beyond the kernel floor the step charges every kernel
    ours = walk_seconds(CDNA3, k) + CDNA3.kernel_floor
    assert ours == pytest.approx(published_us * us, rel=0.08), n  # 8 %: the line's worst row


def test_only_cdna3_walks() -> None:
    """Measured on gfx942 only: every other architecture (CDNA4's own rows not read) has none."""
    for key, r in RATES.items():
        assert (r.block_walk != (0.0, 0.0)) == (key == ("vendor", "cdna3")), key


def _step(gpu: str, rule: str, model: str = "qwen3-8b", tensor: int = 1) -> StepModel:
    sc: dict[str, Any] = {
        "model": {"preset": model},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": tensor},
        "precision": {"weights": "fp8", "quantization_rule": rule},
        "workload": {"kind": "inference", "batch_size": 4},
    }
    s = parse_scenario(sc)
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def test_a_block_fp8_decode_on_mi300x_walks_each_linear() -> None:
    """Qwen3-8B (36 layers, hidden 4,096, 32 x 128 query heads) on one MI300X: the input
    projection walks K = 4,096 and the output projection K = 4,096, the MLP's gate-up 4,096 and
    down 12,288, each at 0.25 us + 2.21 ns x K a layer."""
    m = _step("mi300x-192gb", "fp8-block")
    names = [op[0] for op in linear_ops(m.shape)]
    walks = dict(zip(names, m._walks, strict=True))
    one = lambda k: 0.25 * us + 2.21e-9 * k  # noqa: E731
    assert walks["qkv"] == pytest.approx(36 * one(4096))
    assert walks["out_proj"] == pytest.approx(36 * one(4096))
    assert walks["mlp"] == pytest.approx(36 * (one(4096) + one(12288)))
    assert walks["norms"] == 0.0


@pytest.mark.parametrize(("gpu", "rule"), [("mi300x-192gb", "uniform"), ("h100-sxm-80gb", "fp8-block")])
def test_no_walk_without_block_scales_or_off_cdna3(gpu: str, rule: str) -> None:
    m = _step(gpu, rule)
    assert set(m._walks) == {0.0}
    assert m._moe_walk == 0.0


def test_the_walk_is_a_floor_under_a_decode_not_a_sum_over_a_prefill() -> None:
    """A decode of 4 tokens takes the walk; a 8,192-token prefill's GEMMs are past it."""
    m = _step("mi300x-192gb", "fp8-block")
    bare = copy.copy(m)
    bare._walks, bare._moe_walk, bare._by_tokens = tuple(0.0 for _ in m._walks), 0.0, {}
    m._by_tokens = {}
    assert m._token_terms(4)[0] > bare._token_terms(4)[0]
    assert m._token_terms(8192) == bare._token_terms(8192)


def test_the_experts_walk_their_two_grouped_gemms() -> None:
    """Qwen3-235B-A22B (94 MoE layers, hidden 4,096, experts of 1,536) at TP 4, the experts
    sliced 4 ways: each layer walks K = 4,096 then K = 1,536 / 4 = 384. (TP 8 would slice them to
    192, half a 128-wide FP8 block short of whole, which vLLM refuses to load:
    core/pipeline/validate_block_quant.py.)"""
    m = _step("mi300x-192gb", "fp8-block", "qwen3-235b-a22b", 4)
    one = lambda k: walk_seconds(CDNA3, k)  # noqa: E731
    assert m._moe_walk == pytest.approx(94 * (one(4096) + one(384)))
    assert expert_walk(m.shape, CDNA3, block_fp8=False) == 0.0
    assert set(linear_walks(m.shape, CDNA3, block_fp8=False)) == {0.0}


@pytest.mark.parametrize(
    ("n", "k", "published_us"),
    # out of sample: aiter model_configs/a8w8_blockscale_tuned_gemm_qwen3_vl_235b.csv at 6b831fb287
    # (2026-07-08), cu_num 304, M 16: Qwen3-235B's backbone (hidden 4,096, attention width 8,192)
    # at its tensor-parallel slices, the runs' own linears
    [(1280, 4096, 14.66), (2304, 4096, 15.04), (4096, 4096, 15.54), (4608, 4096, 15.49), (4096, 1024, 6.24)],
)
def test_the_line_bounds_qwen3_235bs_own_linears_from_below(n: int, k: int, published_us: float) -> None:
    ours = walk_seconds(CDNA3, k) + CDNA3.kernel_floor
    assert 0.75 * published_us * us <= ours <= published_us * us, n  # a floor, within 25 %
