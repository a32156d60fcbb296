"""A layout Unsloth cannot run is refused beside its field in the window
(core/pipeline/validate_ddp.py): Unsloth's multi-GPU training is DDP, "one copy of the model on
each GPU device" (https://unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp)."""

from __future__ import annotations

from .helpers import find


def test_zero_3_under_unsloth_is_shown_on_the_zero_field(window):
    combo = find(window, "combo_framework")
    combo.setCurrentIndex(combo.findData("unsloth"))
    zero = find(window, "combo_zero_stage")
    zero.setCurrentIndex(zero.findData(3))
    window.state.flush()
    assert window.state.error is not None and window.state.error.field == "parallelism.zero_stage"
    error = find(window, "error_combo_zero_stage")
    assert error.isVisible() and "DDP" in error.text()
    zero.setCurrentIndex(zero.findData(0))  # DDP's own stage: accepted
    window.state.flush()
    assert window.state.error is None and not error.isVisible()


def test_tp_under_unsloth_is_shown_on_the_tensor_field(window):
    combo = find(window, "combo_framework")
    combo.setCurrentIndex(combo.findData("unsloth"))
    find(window, "spin_tensor_parallel").setValue(2)
    window.state.flush()
    assert window.state.error is not None and window.state.error.field == "parallelism.tensor"
    assert find(window, "error_spin_tensor_parallel").isVisible()
