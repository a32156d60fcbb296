"""BF16 activations and KV cache on a GPU without BF16 tensor cores (T4, Turing; V100, Volta):
timed at the FP16 rate (core/speed/roofline.py ``peak_tflops``; vLLM refuses bfloat16 below
compute capability 8.0). Before, both combos offered "BF16 — 16 bits" silently while only the
weights' warning named FP16; now the items (the weights' too) say "timed as FP16 on this
GPU", with the reason in their tooltip (gui/panels/dtype_rate_items.py), and lose it again on
a GPU with BF16."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from .helpers import find, set_scenario

NOTE = "BF16 — 16 bits — timed as FP16 on this GPU"


def _serve(gpu: str) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.2-3b"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
        "precision": {"weights": "fp16", "activations": "fp16", "kv_cache": "fp16"},
        "hardware": {"gpu": gpu, "gpus_per_node": 1},
    }


def _item(box: Any, dtype: str) -> tuple[str, Any]:
    row = box.findData(dtype)
    return box.itemText(row), box.itemData(row, Qt.ItemDataRole.ToolTipRole)


def test_t4_and_v100_bf16_items_say_fp16(window) -> None:
    for gpu in ("t4-16gb", "v100-sxm2-32gb"):
        set_scenario(window, _serve(gpu))
        for name in ("combo_precision_activations", "combo_precision_kv_cache", "combo_precision_weights"):
            text, tip = _item(find(window, name), "bf16")
            assert text == NOTE, (gpu, name, text)
            assert "has no BF16 tensor cores" in tip and "FP16 rate" in tip
            # FP16 itself, and FP32, have their own rates: unmarked
            assert _item(find(window, name), "fp16")[0] == "FP16 — 16 bits"


def test_a_gpu_with_bf16_offers_it_plain(window) -> None:
    set_scenario(window, _serve("t4-16gb"))
    set_scenario(window, _serve("h100-sxm-80gb"))  # the marks go with the GPU
    for name in ("combo_precision_activations", "combo_precision_kv_cache", "combo_precision_weights"):
        text, tip = _item(find(window, name), "bf16")
        assert text == "BF16 — 16 bits" and not tip
