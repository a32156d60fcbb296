"""``serving.attention_backend`` in the window (docs/scenario-format.md, vLLM's attention
backend): the Serving panel's "Attention backend" row shows for vLLM, writes the field, and a
hostile value is refused beside it with the core's one-line message naming the field; the file
and CLI refusals are in tests/cli/test_attention_backend_field.py."""

from __future__ import annotations

from typing import Any

from .helpers import set_scenario
from .test_hostile_rl_gui import refused
from .test_hostile_round44_gui import NOT_IDS

VLLM_MI325X: dict[str, Any] = {
    "model": {"preset": "qwen3-235b-a22b"},
    "framework": "vllm",
    "workload": {"kind": "inference", "batch_size": 4, "prompt_tokens": 16000, "generated_tokens": 1024},
    "hardware": {"gpu": "mi325x-256gb", "gpus_per_node": 8},
    "parallelism": {"tensor": 8},
    "precision": {"weights": "fp8", "kv_cache": "fp8"},
}
PATH, WIDGET = "serving.attention_backend", "combo_serving_attention_backend"


def test_the_row_sets_the_field_and_refuses_hostile_values(window) -> None:
    set_scenario(window, VLLM_MI325X)
    window.state.edit(PATH, "TRITON_ATTN", immediate=True)
    assert window.state.error is None
    assert window.state.value(PATH) == "TRITON_ATTN"
    for value in (*NOT_IDS, "triton", "TRITON", "rocm_aiter_fa"):
        refused(window, PATH, value, WIDGET)
    window.state.edit(PATH, None, immediate=True)
    assert window.state.error is None
