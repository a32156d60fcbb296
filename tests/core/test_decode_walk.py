"""Decode attention on CDNA3 walks each sequence's context a tile at a time: a floor per context
token (core/speed/decode_walk.py; docs/evidence/serving.md, the section on decode attention's
walk on gfx942).

Measured: ROCm/aiter PR #5415 (MI325X, gfx942) times vLLM v0.28's Triton unified attention at 16
KV heads of 256 dims, a BF16 cache and a 1,024-token window at 8K: 59.87 us at batch 1, 63.89 at
batch 8. The rate one program streams was read from that row alone (a kernel's time, no serving
figure); ROCm/aiter PR #5675's gfx942 rows of AITER's copy of the kernel are checked against it.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.decode_walk import SEGMENTS, head_bytes, walk_per_position
from gpusizer.core.speed.rates import RATES
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model

us = 1e-6
CDNA3 = RATES[("vendor", "cdna3")]


def test_the_rate_reads_the_measured_row() -> None:
    """PR #5415, batch 1: 32 programs (16 heads x the 2 segments the window meets) each walk 512
    tokens of 1,024 B; less the two kernels' 3 us floors the step charges, 9.7 GB/s a program."""
    walk = (59.87 * us - 2 * CDNA3.kernel_floor) / 512
    assert CDNA3.decode_walk == pytest.approx(1024 / walk)
    assert CDNA3.decode_walk == pytest.approx(9.7e9, rel=0.01)


@pytest.mark.parametrize(
    ("ctx", "gbps"),
    # ROCm/aiter PR #5675, MI325X: AITER's copy of the kernel, 4 KV heads of 512 dims, FP8 cache,
    # batch 1, 64 segments after the fix: the cache's GB/s at 8K and 32K of context
    [(8192, 668.0), (32768, 1251.0)],
)
def test_aiters_gfx942_rows_walk_no_faster(ctx: int, gbps: float) -> None:
    """256 programs of ``ctx / 64`` tokens of 1,024 B: each streams at most the rate taken."""
    seconds = 4 * ctx * 1024 / (gbps * 1e9)
    per_program = ctx / 64 * 1024 / seconds
    assert per_program < CDNA3.decode_walk


def test_only_cdna3_walks() -> None:
    """Measured on gfx942 only (gfx950's own kernels not read)."""
    for key, r in RATES.items():
        assert (r.decode_walk > 0) == (key == ("vendor", "cdna3")), key


def _step(
    gpu: str, model: str, tensor: int, kv: str = "fp8", backend: str | None = "TRITON_ATTN"
) -> StepModel:
    sc: dict[str, Any] = {
        "model": {"preset": model},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": tensor},
        "precision": {"weights": "fp8", "kv_cache": kv},
        "workload": {"kind": "inference", "batch_size": 4},
        "serving": {"attention_backend": backend},
    }
    s = parse_scenario(sc)
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def test_qwen3_235b_at_tp8_walks_27_us_a_layer_at_16500_tokens() -> None:
    """One KV head of 128 dims a GPU, FP8: 256 B a token, 1.65 ns a context token of each
    sequence, 27 us a layer at 16,500 tokens (the Anyscale runs' context)."""
    m = _step("mi325x-256gb", "qwen3-235b-a22b", 8)
    assert head_bytes(m.shape) == 256
    per_token = 256 / CDNA3.decode_walk / SEGMENTS
    assert per_token == pytest.approx(1.65e-9, rel=0.01)
    assert m._walk == pytest.approx(per_token)
    assert m._walk * m.positions(16500) == pytest.approx(94 * 27.2 * us, rel=0.01)


def test_the_walk_is_per_kv_head_not_per_layer() -> None:
    """Llama 3.1 70B on one MI300X keeps 8 KV heads: each head's programs walk in parallel, so
    the floor is one head's 2 x 128 x 2 B (BF16) a token, not the layer's 4,096."""
    m = _step("mi300x-192gb", "llama-3.1-70b", 1, kv="bf16")
    assert m.shape.kv_tok == 4096
    assert head_bytes(m.shape) == 512


def test_a_floor_under_a_long_decode_flat_in_the_batch() -> None:
    """At 16,500 tokens the walk binds for 1 to 4 sequences, and takes the same time for each
    (the sequences walk side by side); at 512 tokens it adds under a microsecond a layer, less
    than the 3 us kernel floor each attention kernel is charged already."""
    m = _step("mi325x-256gb", "qwen3-235b-a22b", 8)
    bare = copy.copy(m)
    bare._walk = 0.0
    for n in (1, 4):
        ctx = n * m.positions(16500)
        step, before = m._gpu(n, ctx, 0, 0, 0, 0, None)[0], bare._gpu(n, ctx, 0, 0, 0, 0, None)[0]
        assert step - before > 0.5 * m._walk * m.positions(16500)
    short = 4 * m.positions(512)
    extra = m._gpu(4, short, 0, 0, 0, 0, None)[0] - bare._gpu(4, short, 0, 0, 0, 0, None)[0]
    assert 0 <= extra < 94 * 1 * us


@pytest.mark.parametrize(
    ("gpu", "model"), [("h100-sxm-80gb", "qwen3-235b-a22b"), ("mi300x-192gb", "deepseek-v3")]
)
def test_no_walk_off_cdna3_or_for_mla(gpu: str, model: str) -> None:
    m = _step(gpu, model, 8)
    assert m._walk == 0.0
    assert walk_per_position(m.shape, CDNA3, mla=True) == 0.0


def test_only_a_stated_triton_backend_walks() -> None:
    """The floor is the Triton kernel's: unstated (AITER's and V0's HIP kernels split the context
    their own ways, unmeasured here), the step reads no walk."""
    m, bare = (
        _step("mi325x-256gb", "qwen3-235b-a22b", 8),
        _step("mi325x-256gb", "qwen3-235b-a22b", 8, backend=None),
    )
    assert m._walk > 0 and bare._walk == 0.0
    assert bare.rates.decode_walk == 0.0
    ctx = 4 * bare.positions(16500)
    assert bare._gpu(4, ctx, 0, 0, 0, 0, None) != m._gpu(4, ctx, 0, 0, 0, 0, None)
