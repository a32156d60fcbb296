"""gpt-oss-120b's MXFP4 experts on Hopper under vLLM 0.10-0.11: which kernel the release runs
and what the step model reads for it (docs/evidence/speed.md, the section on gpt-oss's MXFP4
experts on Hopper under vLLM 0.10-0.11; nothing modelled).

vLLM 0.10.1-0.11.0 run gpt-oss's experts on Hopper through Marlin (mxfp4.py: Triton only where
``has_triton_kernels()``, which the PyPI wheels lacked; the stored later mxfp4.py, vllm@007d5005,
adds an SM90 FlashInfer BF16 path behind VLLM_USE_FLASHINFER_MOE_MXFP4_BF16, off by default),
0.11.1 on through OpenAI's Triton kernels
(core/registry/engine_releases.py ``mxfp4_moe``). The step prices Marlin by the grouped-GEMM
rates and Triton by aiconfigurator's measured module. vLLM PR #27523 timed both kernels end to
end on one SM90 GPU (``vllm bench latency``, 8 x 32 tokens in, 128 out): Marlin 1.17 s, Triton
1.58 s (tests/core/data/gpt-oss-hopper-marlin.json). Both arms read 0.80-0.83 on an H100, and
the Triton arm reads 1.30x the Marlin arm against the published 1.35x: the Marlin lane is not
what makes the fourth blind P/D round's times per token fast (0.49-1.08)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engine_releases import VLLM
from gpusizer.core.registry.engines import release
from gpusizer.core.serving.moe_layout import measured_moe_kernel, mxfp4_layout
from gpusizer.core.speed.moe_measured import VLLM_OAI_TRITON_MXFP4

DATA = json.loads((Path(__file__).parent / "data" / "gpt-oss-hopper-marlin.json").read_text())
BLIND4 = json.loads((Path(__file__).parent / "data" / "disagg-blind4.json").read_text())["runs"]
PIN = 0.02  # a ratio's pin: a model change that moves one by more updates the record
TOL = 0.25  # the serving-speed evidence bar
# memory-only settings that let one H100 start (the estimator refuses the KV cache at the LLM
# class's defaults); the H200 reads the same time with and without them
H100_START = {"max_context": 2048, "max_sequences": 256, "prefill_chunk_tokens": 2048}


def _scenario(version: str, gpu: str, **serving: Any) -> dict[str, Any]:
    """``vllm bench latency``'s defaults (vllm/benchmarks/latency.py): 8 prompts of 32 tokens to
    128 tokens, one GPU."""
    return {
        "model": {"preset": "gpt-oss-120b"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": 1},
        "workload": {"kind": "inference", "prompt_tokens": 32, "generated_tokens": 128, "batch_size": 8},
        "serving": {"concurrency": 8, "engine_version": version, **serving},
    }


def _latency(version: str, gpu: str) -> float:
    extra = H100_START if gpu == "h100-sxm-80gb" else {}
    report = estimate_report(_scenario(version, gpu, **extra))
    assert report["fits"], report["fit_reason"]
    return float(report["serving"]["e2e_seconds"])


@pytest.mark.parametrize("gpu", ["h100-sxm-80gb", "h200-141gb"])
@pytest.mark.parametrize(
    "version, module",
    [
        ("0.10.1", ""),  # Mxfp4MoEMethod._should_use_marlin: SM90 without triton_kernels
        ("0.10.2", ""),  # the same rule (no MoE change between 0.10.1 and 0.10.2)
        ("0.11.0", ""),  # get_mxfp4_backend: MARLIN where has_triton_kernels() is False
        ("0.11.1", VLLM_OAI_TRITON_MXFP4),  # triton_kernels in the build (vllm PR #27370)
    ],
)
def test_hopper_kernel_by_release(version: str, module: str, gpu: str) -> None:
    """0.10.1-0.11.0: the Marlin layout, priced by the grouped-GEMM rates (no measured module);
    0.11.1: OpenAI's Triton kernels, read from the measured module."""
    sc = parse_scenario(_scenario(version, gpu))
    rel, spec = release(VLLM, version), gpu_spec(gpu)
    lay = mxfp4_layout(rel, spec)
    assert lay is not None and lay.id == ("marlin" if module == "" else "triton-hopper")
    assert measured_moe_kernel(sc, rel, spec) == module


@pytest.mark.parametrize("arm", DATA["arms"], ids=lambda a: a["id"])
@pytest.mark.parametrize("gpu", ["h100-sxm-80gb", "h200-141gb"])
def test_pr27523_arms_as_first_replayed(arm: dict[str, Any], gpu: str) -> None:
    """vllm PR #27523's ``vllm bench latency`` average (s) against ours, pinned within 0.02 of
    the first replay; on the H100 both arms within 25 % (0.83 Marlin, 0.80 Triton)."""
    ratio = _latency(arm["engine_version"], gpu) / arm["published_s"]
    assert ratio == pytest.approx(arm["first_replay"][gpu]["ratio"], abs=PIN)
    if gpu == "h100-sxm-80gb":
        assert abs(ratio - 1) <= TOL


def test_triton_over_marlin_as_published() -> None:
    """The published Triton / Marlin latency 1.58155 / 1.17 = 1.35; ours on an H100 1.30 (within
    5 %): the step prices the two kernels' gap as measured."""
    marlin, triton = DATA["arms"]
    published = triton["published_s"] / marlin["published_s"]
    ours = _latency("0.11.1", "h100-sxm-80gb") / _latency("0.11.0", "h100-sxm-80gb")
    assert published == pytest.approx(1.352, abs=0.001)
    assert ours == pytest.approx(published, rel=0.05)


def _tpot(gpu: str, users: int, field: str) -> float:
    """One TP 4 pair's time per token (ms) of the fourth blind P/D round: the published, or ours
    as first replayed."""
    run = next(
        r
        for r in BLIND4
        if r["id"].endswith(f"p1xtp4-d1xtp4-c{users}") and r["gpu"] == gpu and "spread" not in r["id"]
    )
    return run["published_tpot_ms"] if field == "published" else run["first_replay"]["ours_tpot_ms"]


def test_blind4_gap_is_not_bandwidth() -> None:
    """The published TP 4 pairs (vLLM 0.11.0, Marlin) add the same time per user on the H100
    (3.35 TB/s) and the H200 (4.8 TB/s): 0.11 ms a user from 4 to 64 users, where ours adds 0.09
    and 0.06 (the KV reads scale with bandwidth); and the published H200 is only 3 % under the
    H100 at 4 users, ours 10 %. A missing per-user cost that bandwidth does not move, not the
    expert kernel's rate, which bandwidth would."""

    def slope(gpu: str, field: str) -> float:
        return (_tpot(gpu, 64, field) - _tpot(gpu, 4, field)) / 60

    h100, h200 = slope("h100-sxm-80gb", "published"), slope("h200-141gb", "published")
    assert h100 == pytest.approx(0.113, abs=0.005) and h200 == pytest.approx(0.108, abs=0.005)
    assert slope("h100-sxm-80gb", "ours") == pytest.approx(0.091, abs=0.005)
    assert slope("h200-141gb", "ours") == pytest.approx(0.064, abs=0.005)
    assert _tpot("h200-141gb", 4, "published") / _tpot("h100-sxm-80gb", 4, "published") > 0.95
    assert _tpot("h200-141gb", 4, "ours") / _tpot("h100-sxm-80gb", 4, "ours") < 0.92


@pytest.mark.parametrize("run", DATA["a100_tp_sweep"]["runs"], ids=lambda r: f"tp{r['tensor']}")
def test_a100_marlin_tp_sweep_as_first_replayed(run: dict[str, Any]) -> None:
    """vllm#22331: one user of gpt-oss-120b on A100s (vLLM 0.10.1's gptoss image, Marlin experts,
    TRITON_ATTN) at 90 tokens/s on TP 1 and 77-78 on TP 2 and 4. Ours 1.9x fast on TP 1 and
    2.8-3.4x on TP 2-4: the published speed does not rise with the split while ours does (the
    per-step cost section 126.4 of docs/evidence/speed.md reads, not modelled). Pinned within
    0.05 of the first replay (a forum figure with unstated lengths: recorded, not a bar)."""
    sc = {
        "model": {"preset": "gpt-oss-120b"},
        "framework": "vllm",
        "hardware": {"gpu": "a100-sxm-80gb"},
        "parallelism": {"tensor": run["tensor"]},
        "workload": {"kind": "inference", "prompt_tokens": 128, "generated_tokens": 1024, "batch_size": 1},
        "serving": {
            "concurrency": 1,
            "engine_version": "0.10.1",
            "attention_backend": "TRITON_ATTN",
            "max_context": 8192,
        },
    }
    tps = 1 / float(estimate_report(sc)["serving"]["tpot_seconds"])
    assert tps / run["published_tps"] == pytest.approx(run["first_replay"]["ratio"], abs=0.05)
