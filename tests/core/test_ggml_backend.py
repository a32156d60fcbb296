"""``serving.ggml_backend``: llama.cpp's backend, its default by GPU vendor, the rates it takes
(core/speed/rates_era.py) and the errors for a backend that cannot run the scenario. The
published Vulkan figures replay in tests/core/test_speed_figures_vendors.py."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.speed.rates import RATES
from gpusizer.core.speed.rates_era import BACKEND_RATES, achieved_by, default_backend


def _llama(gpu: str, framework: str = "llama.cpp", **serving: Any) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": framework,
        "hardware": {"gpu": gpu},
        "precision": {"weights": "gguf_q4_k_m" if framework == "llama.cpp" else "bf16"},
        "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 128},
        "serving": {"max_context": 4096, "max_sequences": 1, **serving},
    }


def test_the_default_backend_is_the_vendors_own() -> None:
    vendors = ("NVIDIA", "AMD", "Apple", "Intel", "Qualcomm")
    assert [default_backend(v) for v in vendors] == ["cuda", "rocm", "metal", "sycl", "vulkan"]
    xtx = gpu_spec("rx-7900-xtx-24gb")
    # the vendor's backend named or left null: the same rates (the HIP-measured rdna3 entry)
    assert achieved_by(xtx, "ggml", "", "rocm") is RATES[("ggml", "rdna3")]
    a = estimate(_llama("rx-7900-xtx-24gb")).serving
    b = estimate(_llama("rx-7900-xtx-24gb", ggml_backend="rocm")).serving
    assert a is not None and b is not None and a.ttft_seconds == b.ttft_seconds


def test_vulkan_takes_its_own_entry_or_the_ggml_fallback() -> None:
    r9070, xtx = gpu_spec("rx-9070-xt-16gb"), gpu_spec("rx-7900-xtx-24gb")
    assert achieved_by(r9070, "ggml", "metal-2025", "vulkan") is BACKEND_RATES[("ggml", "rdna4", "vulkan")]
    # no RDNA3 Vulkan measurement: not the HIP entry's shares, the library's fallback
    assert achieved_by(xtx, "ggml", "", "vulkan") is RATES[("ggml", "")]
    rocm = estimate(_llama("rx-9070-xt-16gb")).serving
    vulkan = estimate(_llama("rx-9070-xt-16gb", ggml_backend="vulkan")).serving
    assert rocm is not None and vulkan is not None and vulkan.tpot_seconds < rocm.tpot_seconds


@pytest.mark.parametrize(
    ("gpu", "framework", "backend", "says"),
    [
        ("h100-sxm-80gb", "llama.cpp", "metal", "choose cuda, vulkan"),
        ("apple-m4-max-128gb", "llama.cpp", "vulkan", "choose metal"),
        ("rx-7900-xtx-24gb", "llama.cpp", "cpu", "gpu_layers 0"),
        ("h100-sxm-80gb", "vllm", "cuda", "llama.cpp / Ollama"),
    ],
)
def test_a_backend_that_cannot_run_is_refused(gpu: str, framework: str, backend: str, says: str) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate(_llama(gpu, framework, ggml_backend=backend))
    assert err.value.field == "serving.ggml_backend" and says in str(err.value)


def test_an_unknown_backend_names_the_allowed_ones() -> None:
    with pytest.raises(ScenarioError) as err:
        estimate(_llama("h100-sxm-80gb", ggml_backend="opencl"))
    assert "ggml_backend" in str(err.value) and "vulkan" in str(err.value)


def test_intel_arc_takes_its_sycl_entry_by_series_and_vulkan_the_fallback() -> None:
    """Battlemage (B580, Pro B60) is Xe2 and takes the SYCL shares measured on a B580 (IPEX-LLM
    build); Alchemist (A770) and Vulkan on Arc have no figure and take the ggml fallback."""
    b580, b60, a770 = (gpu_spec(g) for g in ("arc-b580-12gb", "arc-pro-b60-24gb", "arc-a770-16gb"))
    xe2 = BACKEND_RATES[("ggml", "xe2", "sycl")]
    assert achieved_by(b580, "ggml", "", "sycl") is xe2 and achieved_by(b60, "ggml", "", "sycl") is xe2
    assert achieved_by(a770, "ggml", "", "sycl") is RATES[("ggml", "")]
    assert achieved_by(b580, "ggml", "", "vulkan") is RATES[("ggml", "")]
    assert achieved_by(gpu_spec("gaudi-3-128gb"), "ggml", "", "sycl") is RATES[("ggml", "")]
