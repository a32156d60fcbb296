"""The Training panel: techniques where users look for them, each with a tooltip saying what it
saves; a recipe's defaults come with its framework; host RAM is shown when used."""

from __future__ import annotations

from .helpers import find, row_visible, set_scenario

TECHNIQUES = (
    "combo_loss",
    "spin_loss_chunks",
    "check_compile_loss",
    "check_compile",
    "checks_fused_kernels",
    "spin_lora_dropout",
    "check_kbit_prepare",
    "check_optimizer_in_backward",
    "combo_activation_offload",
    "spin_host_memory",
)


def _kind(window, kind: str) -> None:
    combo = find(window, "combo_workload_kind")
    combo.setCurrentIndex(combo.findData(kind))


def test_panel_follows_the_kind(window):
    _kind(window, "qlora")
    for name in ("combo_loss", "spin_lora_dropout", "check_kbit_prepare"):
        assert row_visible(find(window, name)), name
    _kind(window, "lora")  # LoRA over an 8-bit base takes PEFT's fp32 cast too (core/memory/peft.py)
    assert row_visible(find(window, "check_kbit_prepare"))
    _kind(window, "full_finetune")
    assert row_visible(find(window, "combo_loss"))
    assert not row_visible(find(window, "spin_lora_dropout"))
    assert not row_visible(find(window, "check_kbit_prepare"))
    _kind(window, "inference")
    assert not row_visible(find(window, "combo_loss"))


def test_every_technique_says_what_it_saves(window):
    for name in TECHNIQUES:
        tip = find(window, name).toolTip()
        assert len(tip) > 40, name


def test_chunked_loss_lowers_the_peak(window):
    _kind(window, "full_finetune")
    before = window.state.estimate.memory.total
    loss = find(window, "combo_loss")
    loss.setCurrentIndex(loss.findData("chunked"))
    assert window.state.scenario.workload.loss == "chunked"
    assert window.state.estimate.memory.total < before
    assert any("chunked cross-entropy" in a for a in window.state.estimate.assumptions)


def test_offload_needs_full_recompute_and_says_so(window):
    _kind(window, "lora")
    offload = find(window, "combo_activation_offload")
    offload.setCurrentIndex(offload.findData("checkpoints"))
    window.state.flush()
    assert window.state.error.field == "parallelism.activation_offload"
    assert find(window, "error_combo_activation_offload").isVisible()
    recompute = find(window, "combo_recompute")
    recompute.setCurrentIndex(recompute.findData("full"))
    window.state.flush()
    assert window.state.error is None
    assert window.state.estimate.memory.host_memory > 0
    assert "Host RAM used" in find(window, "label_host_memory").text()


def test_choosing_torchtune_brings_its_recipe_defaults(window):
    _kind(window, "lora")
    fw = find(window, "combo_framework")
    fw.setCurrentIndex(fw.findData("torchtune"))
    s = window.state.scenario
    assert s.framework == "torchtune"
    assert (s.precision.adapters, s.precision.optimizer_states) == ("bf16", "bf16")
    assert s.workload.loss == "linear_chunked" and s.parallelism.recompute == "full"
    assert find(window, "combo_loss").currentData() == "linear_chunked"


def test_training_mfu_comes_from_the_layout_unless_set(window):
    # compute.mfu empty = the step model's; a number overrides it
    _kind(window, "pretraining")
    fw = find(window, "combo_framework")
    fw.setCurrentIndex(fw.findData("torchtitan"))
    mfu = find(window, "spin_mfu")
    assert window.state.scenario.compute.mfu is None and mfu.text() == "from the layout"
    step = window.state.estimate.compute
    assert 0 < step.mfu < 1 and step.tokens_per_second_per_gpu > 0
    mfu.setValue(0.5)
    window.state.flush()
    assert window.state.scenario.compute.mfu == 0.5
    assert window.state.estimate.compute.mfu == 0.5


def test_ticking_fused_kernels_lowers_the_peak(window):
    # Liger's RMSNorm and SwiGLU keep fewer tensors per layer (core/registry/fused_kernels.py)
    _kind(window, "full_finetune")
    before = window.state.estimate.memory.total
    kernels = find(window, "checks_fused_kernels")
    kernels.boxes["rmsnorm"].setChecked(True)
    kernels.boxes["swiglu"].setChecked(True)
    assert window.state.value("workload.fused_kernels") == ("rmsnorm", "swiglu")
    assert window.state.estimate.memory.total < before


def test_the_context_field_names_its_algorithm_per_framework(window):
    # core/model/context_algorithm.py: FSDP's own context is ring attention; DeepSpeed's and verl's
    # FSDP workers' (RL) Ulysses (verl/models/transformers/monkey_patch.py)
    _kind(window, "full_finetune")
    fw = find(window, "combo_framework")
    fw.setCurrentIndex(fw.findData("fsdp"))
    assert "ring attention" in find(window, "spin_context_parallel").toolTip()
    fw.setCurrentIndex(fw.findData("deepspeed"))
    assert "Under DeepSpeed: Ulysses" in find(window, "spin_context_parallel").toolTip()
    set_scenario(window, {**RL_VERL, "framework": "fsdp"})
    assert "Under verl on PyTorch FSDP: Ulysses" in find(window, "spin_context_parallel").toolTip()


RL_VERL = {
    "model": {"preset": "qwen2.5-0.5b"},
    "workload": {"kind": "rl"},
    "rl": {"framework": "verl"},
}
