"""The Serving panel's "Past the model's length" box under Max context: vLLM's
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (``serving.allow_long_context``; core/serving/context_limit.py),
shown for the engines that refuse a longer context without it (vLLM, SGLang, TensorRT-LLM:
core/registry/long_context.py), hidden for the others."""

from __future__ import annotations

from .helpers import error_text, find, set_scenario

QWEN3_VLLM = {
    "model": {"preset": "qwen3-8b"},  # config.json max_position_embeddings 40,960
    "framework": "vllm",
    "workload": {"kind": "inference"},
    "hardware": {"gpu": "h100-sxm-80gb"},
}


def test_the_switch_lets_a_longer_context_through(window) -> None:
    set_scenario(window, QWEN3_VLLM)
    box = find(window, "check_serving_long_context")
    assert box.isVisibleTo(window) and not box.isChecked()
    find(window, "spin_serving_max_context").setValue(131072)
    window.state.flush()
    assert window.state.error is not None and "40,960" in error_text(window, "spin_serving_max_context")
    box.setChecked(True)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.allow_long_context is True
    assert window.state.scenario.serving.max_context == 131072


def test_hidden_for_an_engine_without_the_check(window) -> None:
    set_scenario(window, {**QWEN3_VLLM, "framework": "llama.cpp"})
    assert not find(window, "check_serving_long_context").isVisibleTo(window)


def test_shown_for_sglang_whose_refusal_names_its_switch(window) -> None:
    # sglang python/sglang/srt/configs/model_config.py _derive_context_length (v0.5.4)
    set_scenario(window, {**QWEN3_VLLM, "framework": "sglang"})
    assert find(window, "check_serving_long_context").isVisibleTo(window)
    find(window, "spin_serving_max_context").setValue(131072)
    window.state.flush()
    assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN" in error_text(window, "spin_serving_max_context")
