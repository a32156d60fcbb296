"""PP under a framework without a pipeline schedule is refused beside the pipeline field."""

from __future__ import annotations

from .helpers import find


def test_pp_under_fsdp_is_shown_on_the_pipeline_field(window):
    # under FSDP, which has no pipeline schedule (the HF Trainer trains a device_map model's
    # stages one after another: core/memory/device_map.py)
    combo = find(window, "combo_framework")
    combo.setCurrentIndex(combo.findData("fsdp"))
    find(window, "spin_pipeline_parallel").setValue(2)
    window.state.flush()
    assert window.state.error is not None and window.state.error.field == "parallelism.pipeline"
    error = find(window, "error_spin_pipeline_parallel")
    assert error.isVisible() and "deepspeed" in error.text()
    combo.setCurrentIndex(combo.findData("deepspeed"))  # DeepSpeed's PipelineModule has one
    window.state.flush()
    assert window.state.error is None and not error.isVisible()


def test_pp_under_the_hf_trainer_is_device_map(window):
    # the default scenario trains under transformers' Trainer: PP 2 is a device_map model
    # trained stage after stage (core/memory/device_map.py), accepted with DP 1 and ZeRO 0
    find(window, "spin_pipeline_parallel").setValue(2)
    window.state.flush()
    assert window.state.error is None
    assert not find(window, "error_spin_pipeline_parallel").isVisible()
    find(window, "spin_data_parallel").setValue(2)  # DDP beside device_map: named on its field
    window.state.flush()
    assert window.state.error is not None and window.state.error.field == "parallelism.data"
    assert "device_map" in window.state.error.message
