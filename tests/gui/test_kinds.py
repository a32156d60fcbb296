"""Switching the kind of work: each kind keeps its own framework and layout,
what does not apply is reset, the status bar says so; the roofline follows the kind."""

from __future__ import annotations

from .helpers import find, set_widget


def _kind(window, kind: str) -> None:
    combo = find(window, "combo_workload_kind")
    combo.setCurrentIndex(combo.findData(kind))
    window.state.flush()


_set = set_widget


def test_serving_with_vllm_to_full_finetune_trains_and_says_so(window):
    _kind(window, "inference")
    _set(window, "combo_framework", "vllm")
    assert window.state.scenario.framework == "vllm"
    _kind(window, "full_finetune")
    s = window.state.scenario
    assert s.workload.kind == "full_finetune" and s.framework == "huggingface"
    assert window.state.error is None  # the charts are not greyed out
    assert not window.tabs._veil.isVisible()
    message = window.statusBar().currentMessage()
    assert "vLLM → Hugging Face transformers" in message
    # And back: serving gets vLLM again, its own setting.
    _kind(window, "inference")
    assert window.state.scenario.framework == "vllm"
    assert "settings are back" in window.statusBar().currentMessage()


def test_training_layout_does_not_carry_into_serving(window):
    _kind(window, "full_finetune")
    _set(window, "spin_data_parallel", 7)
    _set(window, "combo_zero_stage", 3)
    assert window.state.estimate.gpus == 7
    _kind(window, "inference")
    p = window.state.scenario.parallelism
    assert (p.data, p.zero_stage) == (1, 0)
    assert window.state.estimate.gpus == 1
    message = window.statusBar().currentMessage()
    assert "DP 7 → 1" in message and "ZeRO 3 → 0" in message
    assert find(window, "spin_data_parallel").value() == 1  # the form shows it too
    _kind(window, "full_finetune")  # the training layout comes back with training
    p = window.state.scenario.parallelism
    assert (p.data, p.zero_stage) == (7, 3)
    # One undo step per switch, named after the field.
    assert window.state.undo_stack.undoText() == "Change Kind"


def test_roofline_in_training_shows_the_training_shape(window):
    _kind(window, "inference")
    _set(window, "spin_batch_size", 8)
    _set(window, "spin_prompt_tokens", 7168)
    _kind(window, "full_finetune")
    window.tabs.select("roofline")
    chart = window.tabs.current_chart()
    title = chart._title_text
    s = window.state.scenario.workload
    assert "7,168" not in title and "batch 8" not in title
    assert f"micro-batch {s.micro_batch_size} x {s.sequence_length:,}" in title
