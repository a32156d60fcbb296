"""The speed note's 16-bit matmul share (core/serving/load_text.py ``matmul_share``) never reads above
100 %: GeForce cards whose library accumulates in FP16 are measured against that peak (twice the
catalog's FP32-accumulate figure), and Apple GPUs, whose catalog 16-bit figure is Apple's FP32
rate, state the achieved TFLOPS where llama.cpp's Metal GEMMs run above it (M3 and later issue
FP16 and FP32 in parallel: Apple tech talk 111375, 2023-11). Only the wording moves."""

from __future__ import annotations

import json
import re

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import gpu_presets

_SHARE = re.compile(r"(\d+)% of the (?:16-bit|FP16-accumulate) peak")


def _note(gpu: str, framework: str) -> str:
    rep = estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": framework,
            "workload": {"kind": "inference"},
            "hardware": {"gpu": gpu},
        }
    )
    return json.dumps(rep)


def test_no_share_reads_above_100_percent_on_any_catalog_gpu() -> None:
    seen = 0
    for gpu in gpu_presets():
        for framework in ("llama.cpp", "vllm", "mlx"):
            try:
                text = _note(gpu, framework)
            except ScenarioError:  # the engine does not run on this GPU
                continue
            seen += 1
            shares = [int(m) for m in _SHARE.findall(text)]
            assert all(x <= 100 for x in shares), (gpu, framework, shares)
    assert seen >= 90


@pytest.mark.parametrize(
    ("gpu", "tflops", "peak"),
    [
        # llama.cpp's 2025 Metal share of the M3 family, 0.62 x 1.24 x 1.41 = 1.084 of the
        # FP32-rate figure (core/speed/rates.py, rates_era.py): 28.4 x 1.084 = 30.8
        ("apple-m3-ultra-512gb", "30.8", "28.4"),
        ("apple-m3-ultra-256gb", "23.1", "21.3"),
        ("apple-m4-max-128gb", "19.9", "18.4"),
    ],
)
def test_apple_m3_and_later_state_tflops_above_the_fp32_rate(gpu: str, tflops: str, peak: str) -> None:
    text = _note(gpu, "llama.cpp")
    assert f"{tflops} TFLOPS of 16-bit matmuls, above the catalog's {peak} TFLOPS peak" in text
    assert "M3 and later issue FP16 and FP32 in parallel" in text
    assert not _SHARE.search(text)
    assert "80% of the 16-bit peak" in _note(gpu, "mlx")  # MLX stays below the figure


def test_geforce_fp16_accumulate_is_measured_against_its_own_peak() -> None:
    """RTX 4080: ggml multiplies F16 with FP16 accumulation, twice the catalog's figure."""
    text = _note("rtx-4080-16gb", "llama.cpp")
    assert "of the FP16-accumulate peak" in text
