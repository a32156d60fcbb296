"""Prefill attention under vLLM's Triton unified attention on gfx942 (core/speed/triton_prefill.py;
docs/evidence/serving.md, the section on Triton prefill attention on gfx942).

The measured rows: ROCm/aiter PR #5664 (2026-09-18, MI325X, the Triton unified attention at its
``BLOCK_M`` 16 default, FP8 KV): prefill 159 / 160 TFLOP/s at 8K / 32K tokens with 256-dim heads,
79 / 79 / 80 at 2K / 8K / 32K with 512-dim heads. The published figure the rule meets: Anyscale's
MI325X 1P1D (anyscale/pd-amd-blogpost ``results/qwen3_235b/pd_1p1d_isl16k_osl1k_hr0`` at
0b33c9d8; tests/core/data/disagg-anyscale-mi325x.json), whose one prefill instance queues past
1.5 requests/s."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.rates import RATES
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model
from gpusizer.core.speed.triton_prefill import GFX942_TFLOPS_DIMS, prefill_share
from tests.core.disagg_anyscale import DATA
from tests.core.disagg_anyscale import ours as anyscale_ours

CDNA3 = RATES[("vendor", "cdna3")]
BF16 = 1307.4  # MI300X's and MI325X's dense BF16 peak (presets/gpus), TFLOP/s


@pytest.mark.parametrize(
    ("dims", "measured"),
    # PR #5664's rows at BLOCK_M 16 on MI325X: (head dims, the lowest and highest TFLOP/s read)
    [(256, (159.0, 160.0)), (512, (79.0, 80.0))],
)
def test_the_rule_reads_the_measured_rows(dims: int, measured: tuple[float, float]) -> None:
    """40,960 / dims TFLOP/s: each measured row within 1.3 % (the rows' own spread)."""
    got = prefill_share("cdna3", "TRITON_ATTN", BF16, dims, CDNA3.attention) * BF16
    assert measured[0] * 0.999 <= got <= measured[1] * 1.013


def test_the_128_dim_heads_and_the_cap() -> None:
    """320 TFLOP/s at 128 dims (0.245 of the peak); never above the table's 0.5 share (64 dims
    would read 640 of 654: the table's 0.5 holds at 32)."""
    assert prefill_share("cdna3", "TRITON_ATTN", BF16, 128, 0.5) * BF16 == pytest.approx(320.0)
    assert prefill_share("cdna3", "TRITON_ATTN", BF16, 32, 0.5) == 0.5
    assert GFX942_TFLOPS_DIMS == 160.0 * 256


@pytest.mark.parametrize(
    ("family", "backend"),
    [("cdna3", None), ("hopper", "TRITON_ATTN"), ("cdna4", "TRITON_ATTN"), ("ampere-hbm", None)],
)
def test_only_the_stated_triton_kernel_on_cdna3(family: str, backend: str | None) -> None:
    """AITER's attention, gfx950 and every NVIDIA answer keep the table's share (0: none)."""
    assert prefill_share(family, backend, BF16, 128, 0.5) == 0.0


def _step(gpu: str, backend: str | None, flops: float | None = None) -> StepModel:
    sc: dict[str, Any] = {
        "model": {"preset": "qwen3-235b-a22b"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": 8, "expert": 8},
        "precision": {"weights": "fp8", "quantization_rule": "fp8-block", "kv_cache": "fp8"},
        "workload": {"kind": "inference", "batch_size": 4},
        "serving": {"attention_backend": backend, "routing_simulation": "uniform_random"},
    }
    if flops is not None:
        sc["compute"] = {"flops_efficiency": flops}
    s = parse_scenario(sc)
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def _service_seconds(ttft_ms: list[tuple[float, float]]) -> list[float]:
    """The 1P1D prefill instance's seconds a request where it queues, from (rate, mean first
    token ms) over the seven runs: a sweep of 50 requests one every 1 / rate seconds, each
    waiting (S - 1 / rate) more than the one before, so the mean first token exceeds the
    unloaded one (the mean of the 0.5-1.5/s runs) by 24.5 (S - 1 / rate)."""
    idle = sum(t for rate, t in ttft_ms if rate <= 1.5) / 3
    return [(t - idle) / 1e3 / 24.5 + 1 / rate for rate, t in ttft_ms if rate >= 2.5]


def test_the_1p1d_prefill_meets_the_published_service_time() -> None:
    """Published: 0.536-0.542 s a 16,008-token request at 2.5-4/s. Ours, read the same way from
    our first tokens: 0.526-0.527 s, within 3 % of each (0.441-0.445 before the rule, the
    attention at the table's 654 TFLOP/s: 0.82 of the published)."""
    config = DATA["configs"][0]
    runs = config["runs"]
    published = _service_seconds([(r["rate"], r["published_ttft_ms"]) for r in runs])
    assert min(published) == pytest.approx(0.536, abs=0.002)
    assert max(published) == pytest.approx(0.542, abs=0.002)
    ours = _service_seconds([(r["rate"], anyscale_ours(config, r)[0]) for r in runs])
    assert min(ours) == pytest.approx(0.526, abs=0.003) and max(ours) == pytest.approx(0.527, abs=0.003)
    assert all(o == pytest.approx(p, rel=0.03) for o, p in zip(ours, published, strict=True))


def test_decode_and_other_answers_keep_their_price() -> None:
    """The rule prices prompts only: a decode step is the same with and without it where the
    walk is left out; a user's own compute efficiency and an H100 keep the table's attention."""
    triton, plain = _step("mi325x-256gb", "TRITON_ATTN"), _step("mi325x-256gb", None)
    assert triton._dec_f == plain._dec_f
    assert triton._pre_f > 2 * plain._pre_f
    own, own_plain = _step("mi325x-256gb", "TRITON_ATTN", 0.4), _step("mi325x-256gb", None, 0.4)
    assert own._pre_f == own_plain._pre_f
