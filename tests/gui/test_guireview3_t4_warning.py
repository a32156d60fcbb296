"""FP8 weights on a T4 (vLLM >= 0.14 loads them through Marlin): the Precision panel's warning
names the rate the times read. A T4 (Turing, sm75) has no BF16 either, so 16-bit matmuls are
timed at its FP16 rate (core/speed/roofline.py ``peak_tflops``; core/sizing/advise_fields.py
``compute_notes``: "no BF16 tensor cores on ...: 16-bit matmuls timed in fp16", as vLLM's
``--dtype auto`` picks float16 there). Before, the warning said "matmuls run in BF16 (the times
assume BF16)" on a card that has no BF16."""

from __future__ import annotations

from gpusizer.core.model.presets import gpu_spec
from gpusizer.gui.panels.precision_panel import tensor_core_warning

from .helpers import find, set_scenario

T4_FP8 = {
    "model": {"preset": "llama-3.2-3b"},
    "framework": "vllm",
    "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
    "precision": {"weights": "fp8"},
    "hardware": {"gpu": "t4-16gb", "gpus_per_node": 1},
}


def test_t4_warning_names_fp16(window) -> None:
    set_scenario(window, T4_FP8)
    warning = find(window, "label_tensor_core_warning")
    assert warning.isVisibleTo(window)
    text = warning.text()
    assert "no FP8 tensor cores" in text
    assert "matmuls run in FP16 (the times assume FP16)" in text
    assert "BF16)" not in text


def test_a_gpu_with_bf16_keeps_bf16() -> None:
    """An RTX 3090 (Ampere) has BF16 and no FP8: the warning names BF16 as before."""
    text = tensor_core_warning("fp8", "bf16", gpu_spec("rtx-3090-24gb"))
    assert "matmuls run in BF16 (the times assume BF16)" in text
    assert "FP16" not in text
    assert "FP16 (the times assume FP16)" in tensor_core_warning("fp8", "fp16", gpu_spec("t4-16gb"))
