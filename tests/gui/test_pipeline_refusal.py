"""PP under a framework without a pipeline schedule is refused beside the pipeline field."""

from __future__ import annotations

from .helpers import find


def test_pp_under_the_hf_trainer_is_shown_on_the_pipeline_field(window):
    # the default scenario trains under transformers' Trainer, which has no pipeline schedule
    find(window, "spin_pipeline_parallel").setValue(2)
    window.state.flush()
    assert window.state.error is not None and window.state.error.field == "parallelism.pipeline"
    error = find(window, "error_spin_pipeline_parallel")
    assert error.isVisible() and "deepspeed" in error.text()
    combo = find(window, "combo_framework")
    combo.setCurrentIndex(combo.findData("deepspeed"))  # DeepSpeed's PipelineModule has one
    window.state.flush()
    assert window.state.error is None and not error.isVisible()
