"""Unified-memory GPUs: capacity is the GPU's share of system RAM, and the scenario's
``hardware.gpu_memory_fraction`` replaces the device's default (core/unified.py)."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.model.specs import GPUSpec
from gpusizer.core.model.unified import effective_gpu
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.sizing import solver

GiB = 2**30


def _scenario(gpu: Any, fraction: float | None = None) -> dict[str, Any]:
    hw: dict[str, Any] = {"gpu": gpu, "gpus_per_node": 1}
    if fraction is not None:
        hw["gpu_memory_fraction"] = fraction
    return {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "hardware": hw}


def test_capacity_is_the_share_of_ram() -> None:
    # macOS lets the GPU wire 3/4 of RAM on Macs with 36 GB or more (llama.cpp logs: 64 GB ->
    # 49152 MiB, ggml-org/llama.cpp#1870; 96 GB -> 73728 MB, #3213): 128 GiB -> 96 GiB.
    m = gpu_spec("apple-m4-max-128gb")
    assert m.unified_memory and m.memory_bytes == 128 * GiB
    assert m.capacity_bytes == 96 * GiB
    assert gpu_spec("apple-m3-ultra-512gb").capacity_bytes == 384 * GiB
    # AMD Variable Graphics Memory: 96 GB of 128 for the GPU (amd.com blog, 2025-07-29).
    assert gpu_spec("ryzen-ai-max-395-128gb").capacity_bytes == 96 * GiB


def test_measured_total_wins_over_a_default_fraction() -> None:
    # DGX Spark has no fixed split: the OS-visible total (MemTotal 127600748 kB) is the cap.
    d = gpu_spec("dgx-spark-128gb")
    assert d.gpu_memory_fraction is None
    assert d.capacity_bytes == 127600748 * 1024


def test_discrete_gpu_ignores_a_fraction() -> None:
    h = gpu_spec("h100-sxm-80gb")
    assert effective_gpu(h, 0.5) is h
    inline = GPUSpec(memory_bytes=24 * GiB, gpu_memory_fraction=0.5)  # not unified: ignored
    assert inline.capacity_bytes == 24 * GiB


def test_scenario_override_sets_the_estimate_capacity() -> None:
    """Raising macOS's limit (sudo sysctl iogpu.wired_limit_mb) to 7/8 of 512 GB, as Dave2D
    did to run DeepSeek R1 at 448 GB (wccftech, 2025-03)."""
    base = estimate(_scenario("apple-m3-ultra-512gb"))
    raised = estimate(_scenario("apple-m3-ultra-512gb", 0.875))
    assert base.capacity_bytes == 384 * GiB
    assert raised.capacity_bytes == 448 * GiB
    assert raised.memory.total == base.memory.total  # only the capacity moves
    assert raised.headroom_bytes - base.headroom_bytes == 64 * GiB
    assert any("87.5%" in a or "88%" in a for a in raised.assumptions)
    rep = gpusizer.estimate_report(_scenario("apple-m3-ultra-512gb", 0.875))
    assert rep["gpu"]["memory_bytes"] == 448 * GiB
    assert rep["scenario"]["hardware"]["gpu_memory_fraction"] == 0.875


def test_override_replaces_a_measured_total() -> None:
    est = estimate(_scenario("dgx-spark-128gb", 0.5))
    assert est.capacity_bytes == 64 * GiB


def test_override_on_a_discrete_gpu_is_ignored_and_said() -> None:
    est = estimate(_scenario("h100-sxm-80gb", 0.5))
    assert est.capacity_bytes == gpu_spec("h100-sxm-80gb").capacity_bytes
    assert any("gpu_memory_fraction ignored" in a for a in est.assumptions)
    plain = estimate(_scenario("h100-sxm-80gb"))
    assert not any("unified" in a or "fraction" in a for a in plain.assumptions)


@pytest.mark.parametrize("bad", [0, -0.1, 1.01, 2, "most"])
def test_fraction_out_of_range_is_a_scenario_error(bad: Any) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate(_scenario("apple-m4-max-128gb", bad))
    assert "hardware.gpu_memory_fraction" in str(err.value)


def test_fraction_of_one_is_allowed() -> None:
    assert estimate(_scenario("apple-m4-max-128gb", 1.0)).capacity_bytes == 128 * GiB


def test_inline_unified_gpu() -> None:
    gpu = {
        "id": "my-apu",
        "memory_bytes": 64 * GiB,
        "unified_memory": True,
        "gpu_memory_fraction": 0.5,
        "dense_tflops": {"bf16": 10.0},
        "hbm_bandwidth_gb_per_s": 200,
    }
    assert estimate(_scenario(gpu)).capacity_bytes == 32 * GiB
    assert estimate(_scenario(gpu, 0.75)).capacity_bytes == 48 * GiB


def test_plan_honours_the_override() -> None:
    """The advisor sizes against the same capacity the estimate uses, and its options put
    the fraction back into the scenario."""
    sc = {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "inference", "prompt_tokens": 4096},
        "precision": {"weights": "bf16", "kv_cache": "bf16"},
        "hardware": {"gpu": "apple-m4-max-128gb", "gpu_memory_fraction": 0.95},
    }
    base = {**sc, "hardware": {"gpu": "apple-m4-max-128gb"}}
    # 70B in bf16 is about 131 GiB: more than one Mac at 96 GiB (0.75), still more at 0.95.
    raised = solver.plan(sc, gpus=["apple-m4-max-128gb"])
    default = solver.plan(base, gpus=["apple-m4-max-128gb"])
    assert raised and default
    assert raised[0]["capacity_bytes"] == int(128 * GiB * 0.95)
    assert default[0]["capacity_bytes"] == 96 * GiB
    assert raised[0]["hardware"]["gpu_memory_fraction"] == 0.95
    put_back = {**sc, "parallelism": raised[0]["parallelism"], "hardware": raised[0]["hardware"]}
    assert gpusizer.estimate_report(put_back)["fits"]
