"""``serving.frontend`` in the window (docs/scenario-format.md; core/registry/serving_frontends.py):
the Serving panel's "Serving frontend" row shows for vLLM, writes the field, and a hostile value is
refused beside it with the core's one-line message naming the field; the file and CLI refusals are
in tests/cli/test_serving_frontend_field.py."""

from __future__ import annotations

from typing import Any

from .helpers import set_scenario
from .test_hostile_rl_gui import refused
from .test_hostile_round44_gui import NOT_IDS

VLLM: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "vllm",
    "workload": {"kind": "inference", "batch_size": 8, "prompt_tokens": 2048, "generated_tokens": 256},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
PATH, WIDGET = "serving.frontend", "combo_serving_frontend"


def test_the_row_sets_the_field_and_refuses_hostile_values(window) -> None:
    set_scenario(window, VLLM)
    window.state.edit(PATH, "ray_serve_llm", immediate=True)
    assert window.state.error is None
    assert window.state.value(PATH) == "ray_serve_llm"
    for value in (*NOT_IDS, "ray", "RAY_SERVE_LLM", "nginx"):
        refused(window, PATH, value, WIDGET)
    window.state.edit(PATH, None, immediate=True)
    assert window.state.error is None
