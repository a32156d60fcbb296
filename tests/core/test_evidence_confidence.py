"""A scenario's regime, band and confidence (core/evidence) as the report carries them."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.evidence import ranges
from gpusizer.core.evidence import regimes as regime_module
from gpusizer.core.evidence.bands import band

LORA_8B = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}
VLLM_8B = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "vllm"}


def _report(**blocks: Any) -> dict[str, Any]:
    return estimate_report({**VLLM_8B, **blocks})


def test_a_replayed_case_is_measured_and_carries_its_band() -> None:
    rep = _report()
    ev = rep["evidence"]
    assert ev["regime"] == "memory/engine-pools/serving" and ev["confidence"] == "measured"
    b = band(ev["regime"])
    assert b.p10 is not None and b.p90 is not None
    lo, hi = rep["per_gpu"]["total_range"]
    # a ratio r = estimate / published puts the published value at estimate / r
    assert lo == round(rep["per_gpu"]["total"] / b.p90) and hi == round(rep["per_gpu"]["total"] / b.p10)
    sv = rep["serving"]
    sb = band(ev["speed"]["regime"])
    assert sv["ttft_seconds_range"] == pytest.approx(
        [sv["ttft_seconds"] * sb.p10, sv["ttft_seconds"] * sb.p90]
    )
    tps = sv["tokens_per_second_per_user"]
    assert sv["tokens_per_second_per_user_range"] == pytest.approx([tps / sb.p90, tps / sb.p10])


def test_an_engine_on_a_vendor_never_measured_is_extrapolated_with_its_reason() -> None:
    # SGLang's published speeds are NVIDIA's and AMD's (the fourth blind round's MI325X / MI355X
    # MoE runs, speed-figures-blind4.json), none Intel's
    rep = _report(hardware={"gpu": "arc-pro-b60-24gb"}, framework="sglang")
    sp = rep["evidence"]["speed"]
    assert sp["regime"] == "speed/sglang/intel/batch-one" and sp["confidence"] == "extrapolated"
    assert "never measured on Intel GPUs (measured on AMD, NVIDIA)" in sp["reason"]
    assert sp["band"] is None
    assert rep["serving"]["tokens_per_second_range"] is None
    assert rep["evidence"]["confidence"] == "validated"  # the memory regime has its figures


@pytest.mark.parametrize("gpu", ["gaudi-3-128gb"])
def test_training_on_a_vendor_no_replayed_training_speed_ran_on_is_extrapolated(gpu: str) -> None:
    # no replayed training speed ran on Intel GPUs (AMD's did until the six Primus-Megatron runs
    # of speed-figures-training-amd.json, docs/evidence/speed.md's AMD training section); the
    # band of the training regime stays, the confidence follows what was replayed
    rep = estimate_report({**LORA_8B, "hardware": {"gpu": gpu}})
    sp = rep["evidence"]["speed"]
    assert sp["regime"] == "speed/training/dense" and sp["confidence"] == "extrapolated"
    assert "training never measured on" in sp["reason"] and sp["band"] is not None
    nvidia = estimate_report({**LORA_8B, "hardware": {"gpu": "h100-sxm-80gb"}})["evidence"]["speed"]
    assert nvidia["confidence"] in ("measured", "validated")


def test_training_on_an_instinct_gpu_no_dense_run_replayed_on_names_the_gpu() -> None:
    # AMD's replayed training speeds ran on the MI325X and the MI355X (dense and MoE): an AMD GPU
    # is no longer an unmeasured vendor, and a dense step on an Instinct part no dense figure ran
    # on (the MI300X) is extrapolated for its GPU; on the MI325X and MI355X the band stands
    sp = estimate_report({**LORA_8B, "hardware": {"gpu": "mi300x-192gb"}})["evidence"]["speed"]
    assert sp["regime"] == "speed/training/dense" and sp["confidence"] == "extrapolated"
    assert sp["reason"].startswith("no replayed speed figure on Instinct") and sp["band"] is not None
    for gpu in ("mi325x-256gb", "mi355x-288gb"):
        ran = estimate_report({**LORA_8B, "hardware": {"gpu": gpu}})["evidence"]["speed"]
        assert ran["confidence"] in ("measured", "validated"), gpu


def test_a_regime_below_five_figures_says_so_instead_of_a_band() -> None:
    rep = estimate_report(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}, "framework": "megatron"}
    )
    ev = rep["evidence"]
    assert ev["regime"] == "memory/megatron/adapter" and ev["confidence"] == "extrapolated"
    assert "fewer than 5, no band" in ev["reason"] and rep["per_gpu"]["total_range"] is None


def test_a_framework_with_no_replayed_run_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(regime_module.FAMILIES, "deepspeed")
    monkeypatch.setattr(ranges, "_SEEN", {})  # the evidence kept per regime key
    rep = estimate_report(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}, "framework": "deepspeed"}
    )
    assert rep["evidence"]["confidence"] == "none" and "DeepSpeed" in rep["evidence"]["reason"]


def test_training_time_carries_the_training_band() -> None:
    rep = estimate_report(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "pretraining", "training_tokens": 1e9}}
    )
    b = band("speed/training/dense")
    t = rep["compute"]["time_seconds"]
    assert rep["compute"]["time_seconds_range"] == pytest.approx([t * b.p10, t * b.p90])


def test_a_release_older_than_its_regimes_figures_is_extrapolated() -> None:
    # speed/vllm/nvidia/batch-one was replayed on 0.11.0 and later; 0.8.5's step costs are not
    rep = _report(serving={"engine_version": "0.8.5"})
    sp = rep["evidence"]["speed"]
    assert (
        sp["confidence"] == "extrapolated"
        and "0.8.5 is older than every replayed speed figure" in sp["reason"]
    )
    assert _report(serving={"engine_version": "0.11.0"})["evidence"]["speed"]["confidence"] != "extrapolated"


def test_a_small_regime_states_the_parent_band_it_takes() -> None:
    # vLLM at large batch on NVIDIA has 11 published figures, too few for a split-conformal band
    # of its own: it takes the large-batch band of all engines on NVIDIA and says so (SGLang's,
    # the example here before, has its own band since its 42 figures, docs/evidence/speed.md, the
    # section on SGLang's two regimes; TensorRT-LLM at batch one before that, since its 39)
    sp = _report(
        hardware={"gpu": "h100-sxm-80gb"},
        serving={"concurrency": 32, "load": "steady"},
    )["evidence"]["speed"]
    b = band(sp["regime"])
    assert sp["regime"] == "speed/vllm/nvidia/large-batch" and sp["figures"] == b.figures < 12
    assert sp["pooled_from"] == {
        "regime": "speed/*/nvidia/large-batch",
        "label": "all engines' speed on NVIDIA, large batch",
        "figures": b.pooled_figures,
    }
    assert sp["band"] == [b.p10, b.p90] and b.pooled_figures >= 12
    assert sp["reason"].startswith(
        f"band of all engines' speed on NVIDIA, large batch: {b.pooled_figures} figures; "
        f"vLLM speed on NVIDIA, large batch has {b.figures}"
    )
    trt = _report(framework="tensorrt-llm", hardware={"gpu": "h100-sxm-80gb"})["evidence"]["speed"]
    assert trt["regime"] == "speed/tensorrt-llm/nvidia/batch-one" and trt["pooled_from"] is None
    assert _report()["evidence"]["pooled_from"] is None  # 71 engine-pool figures: its own band
