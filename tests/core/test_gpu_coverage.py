"""A speed band whose figures never ran on the scenario's GPU, nor on its architecture, reads
``extrapolated`` with the reason, the band kept (core/evidence/gpu_coverage.py; the GPUs are
presets/evidence-bands.json's ``gpus``, written by scripts/evidence_bands.py)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.evidence.bands import band
from gpusizer.core.evidence.gpu_coverage import covered
from gpusizer.core.model.presets import gpu_spec


def _speed(gpu: str, framework: str = "vllm", **extra: Any) -> dict[str, Any]:
    s = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference", "batch_size": 1},
        "framework": framework,
        "hardware": {"gpu": gpu},
        **extra,
    }
    ev: dict[str, Any] = estimate_report(s)["evidence"]["speed"]
    return ev


def test_mi250x_reads_extrapolated_inside_the_pooled_amd_batch_one_band() -> None:
    """vLLM at batch one on AMD: 5 figures, all MI300X (CDNA3), pooled with llama.cpp's AMD
    batch-one figures (RX 7900 XTX, RX 9070 XT, Ryzen AI Max): none on an MI250X (CDNA2)."""
    ev = _speed("mi250x-gcd-64gb")
    assert ev["regime"] == "speed/vllm/amd/batch-one"
    assert ev["confidence"] == "extrapolated"
    assert "no replayed speed figure on Instinct MI250X" in ev["reason"]
    assert "all engines' speed on AMD, batch one (21 figures)" in ev["reason"]
    assert "MI300X" in ev["reason"]
    b = band(ev["regime"])
    assert ev["band"] == [b.p10, b.p90] and ev["pooled_from"]["regime"] == "speed/*/amd/batch-one"


def test_mi300x_with_its_own_figures_stays_validated() -> None:
    assert _speed("mi300x-192gb")["confidence"] in ("validated", "measured")


@pytest.mark.parametrize(
    ("gpu", "regime", "expected"),
    [
        ("h100-nvl-94gb", "speed/vllm/nvidia/batch-one", True),  # sm_90, as the H100 SXM's figures
        ("gh200-96gb", "speed/vllm/nvidia/batch-one", True),
        ("l40s-48gb", "speed/vllm/nvidia/batch-one", False),  # sm_89: no vLLM batch-one figure
        ("rtx-4090-24gb", "speed/llama.cpp/nvidia/batch-one", True),
        ("rtx-5090-32gb", "speed/llama.cpp/nvidia/batch-one", False),  # sm_120 never replayed there
        ("apple-m3-ultra-256gb", "speed/llama.cpp/apple/batch-one", True),  # the 512 GB M3 Ultra's chip
        ("mi325x-256gb", "speed/vllm/amd/burst", False),  # no architecture stated: the chip itself
    ],
)
def test_a_gpu_is_covered_by_itself_its_compute_capability_or_its_chip(
    gpu: str, regime: str, expected: bool
) -> None:
    assert covered(band(regime), gpu_spec(gpu)) is expected


def test_a_band_naming_no_gpu_covers_every_gpu() -> None:
    """A memory regime (its figures carry no GPU) or an older file: as before."""
    assert covered(band("memory/engine-pools/serving"), gpu_spec("mi250x-gcd-64gb"))


def test_a_replayed_case_stays_measured() -> None:
    assert _speed("h100-sxm-80gb")["confidence"] in ("measured", "validated")
