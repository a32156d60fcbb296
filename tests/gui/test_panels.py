"""Widgets and the state: an edit reaches the estimate, a loaded scenario reaches every widget,
fields that do not apply are hidden, invalid input is shown beside its field."""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.scenario import parse_scenario

from .helpers import find, row_visible


def test_spin_box_changes_state_and_estimate(window, qtbot):
    spin = find(window, "spin_data_parallel")
    with qtbot.waitSignal(window.state.estimateChanged, timeout=1000):
        spin.setValue(8)
    assert window.state.scenario.parallelism.data == 8
    assert window.state.estimate.gpus == 8


def test_combo_box_changes_workload_kind(window):
    combo = find(window, "combo_workload_kind")
    combo.setCurrentIndex(combo.findData("inference"))
    assert window.state.scenario.workload.kind == "inference"
    assert window.state.estimate.memory.kv_cache > 0


def test_check_box_and_quantised_weights(window):
    find(window, "combo_workload_kind").setCurrentIndex(
        find(window, "combo_workload_kind").findData("inference")
    )
    before = window.state.estimate.memory.weights
    weights = find(window, "combo_precision_weights")
    weights.setCurrentIndex(weights.findData("awq_int4"))
    assert window.state.scenario.precision.weights == "awq_int4"
    assert window.state.estimate.memory.weights < before / 2
    find(window, "spin_tensor_parallel").setValue(2)
    window.state.flush()
    check = find(window, "check_sequence_parallel")
    assert check.isEnabled()


def test_preset_tree_and_search(window):
    tree = find(window, "tree_model_preset")
    find(window, "edit_model_search").setText("mixtral 8x7")
    visible = [
        tree.topLevelItem(i).child(j).data(0, 256)
        for i in range(tree.topLevelItemCount())
        for j in range(tree.topLevelItem(i).childCount())
        if not tree.topLevelItem(i).child(j).isHidden()
    ]
    assert visible == ["mixtral-8x7b"]
    tree.setValue("mixtral-8x7b")
    tree.valueChanged.emit("mixtral-8x7b")
    assert window.state.scenario.model.preset == "mixtral-8x7b"
    assert window.state.estimate.parameters_active < window.state.estimate.parameters_total
    assert "active" in find(window, "label_model_parameters").text()
    assert find(window, "spin_expert_parallel").isEnabled()


def test_custom_architecture_and_size_only(window):
    source = find(window, "combo_model_source")
    source.setCurrentIndex(source.findData("custom"))
    assert window.state.scenario.model.preset is None
    layers = find(window, "spin_model_layers")
    assert row_visible(layers)
    total = window.state.estimate.parameters_total
    layers.setValue(64)
    window.state.flush()
    assert window.state.estimate.parameters_total > 1.5 * total
    source.setCurrentIndex(source.findData("size"))
    model = window.state.scenario.model
    assert model.layers is None and model.parameters is not None  # sized by its count only
    assert row_visible(find(window, "spin_model_parameters"))
    assert not row_visible(layers)


def test_custom_gpu_fields(window):
    gpu = find(window, "combo_gpu")
    memory = find(window, "spin_gpu_memory")
    assert not row_visible(memory)
    gpu.setCurrentIndex(gpu.findData("custom"))
    assert row_visible(memory)
    memory.setValue(200 * 2**30)
    window.state.flush()
    assert window.state.estimate.capacity_bytes == 200 * 2**30
    gpu.setCurrentIndex(gpu.findData("b200-192gb"))
    assert window.state.scenario.hardware.gpu == "b200-192gb"
    assert not row_visible(memory)


@pytest.mark.parametrize(
    "kind, shown, hidden",
    [
        (
            "inference",
            ["spin_prompt_tokens", "combo_precision_kv_cache"],
            ["spin_sequence_length", "combo_zero_stage", "spin_lora_rank", "combo_precision_optimizer"],
        ),
        (
            "lora",
            ["spin_lora_rank", "checks_lora_targets", "combo_precision_adapters"],
            ["spin_prompt_tokens", "combo_precision_master_weights"],
        ),
        (
            "pretraining",
            ["spin_sequence_length", "combo_zero_stage", "combo_precision_master_weights"],
            ["spin_lora_rank", "spin_batch_size", "combo_precision_kv_cache"],
        ),
    ],
)
def test_fields_follow_the_workload_kind(window, kind, shown, hidden):
    combo = find(window, "combo_workload_kind")
    combo.setCurrentIndex(combo.findData(kind))
    for name in shown:
        assert row_visible(find(window, name)), name
    for name in hidden:
        assert not row_visible(find(window, name)), name


OTHER = {
    "name": "every field changed",
    "model": {"preset": "qwen3-30b-a3b"},
    "workload": {
        "kind": "qlora",
        "sequence_length": 8192,
        "micro_batch_size": 2,
        "global_batch_size": 64,
        "training_tokens": 2e9,
        "lora_rank": 64,
        "lora_targets": ["q", "v"],
        "batch_size": 3,
        "prompt_tokens": 512,
        "generated_tokens": 100,
    },
    "precision": {
        "weights": "nf4",
        "activations": "fp16",
        "gradients": "fp16",
        "master_weights": None,
        "optimizer": "adamw_8bit",
        "optimizer_states": "int8",
        "kv_cache": "fp8",
        "adapters": "bf16",
    },
    "parallelism": {
        "tensor": 2,
        "pipeline": 2,
        "virtual_stages": 2,
        "data": 4,
        "context": 1,
        "expert": 4,
        "zero_stage": 1,  # DeepSpeed's PipelineEngine refuses ZeRO-2/3 with pipeline > 1
        "sequence_parallel": True,
        "recompute": "selective",
        "attention": "eager",
        "offload_optimizer": True,
        "offload_parameters": False,
    },
    "framework": "deepspeed",
    "hardware": {"gpu": "a100-sxm-40gb", "gpus_per_node": 4},
}


def test_loading_a_scenario_updates_every_widget(window):
    window.state.set_scenario(OTHER)
    state = window.state
    for b in window.binder.bindings:
        expected = b.from_state(state.value(b.path))
        if expected is None:
            continue
        got = b.getter()
        if isinstance(expected, float):
            assert got == pytest.approx(expected, rel=1e-3), b.path
        else:
            assert got == expected, b.path
    assert find(window, "spin_tensor_parallel").value() == 2
    assert find(window, "combo_framework").currentData() == "deepspeed"
    assert find(window, "combo_gpu").currentData() == "a100-sxm-40gb"
    master = find(window, "combo_precision_master_weights")
    assert master.currentData() is None and master.currentText() == "None (update in place)"
    assert find(window, "checks_lora_targets").value() == ("q", "v")
    assert find(window, "tree_model_preset").value() == "qwen3-30b-a3b"
    assert find(window, "spin_training_tokens").value() == pytest.approx(2e9)
    assert parse_scenario(OTHER) == state.scenario


def test_invalid_value_shows_reason_and_keeps_estimate(window):
    verdict = find(window, "label_verdict").text()
    est = window.state.estimate
    spin = find(window, "spin_tensor_parallel")
    spin.setValue(3)
    window.state.flush()
    error = find(window, "error_spin_tensor_parallel")
    assert error.isVisible()
    assert "must divide attention_heads" in error.text()
    assert spin.property("invalid") is True
    stale = find(window, "label_stale")
    assert stale.isVisible() and "last valid estimate" in stale.text()
    assert window.state.estimate is est
    assert find(window, "label_verdict").text() == verdict
    spin.setValue(2)
    window.state.flush()
    assert not error.isVisible()
    assert not stale.isVisible()
    assert spin.property("invalid") is False


def test_cross_field_error_is_shown_on_the_named_field(window):
    find(window, "spin_tensor_parallel").setValue(8)
    window.state.flush()
    find(window, "spin_gpus_per_node").setValue(4)  # TP 8 across nodes is not allowed
    window.state.flush()
    assert window.state.error.field == "parallelism.tensor"
    assert find(window, "error_spin_tensor_parallel").isVisible()


def test_units_switch_table_and_summary(window):
    window.set_units("GB")
    assert window.table.horizontalHeaderItem(1).text() == "GB"
    assert " GB of " in find(window, "label_verdict").text()
    window.set_units("GiB")
    assert " GiB of " in find(window, "label_verdict").text()


def test_summary_answers_at_a_glance(window):
    est = window.state.estimate
    verdict = find(window, "label_verdict").text()
    assert ("fits" in verdict) == est.fits
    assert "per GPU" in verdict
    context = find(window, "label_context").text()
    assert "dominated by" in context and "peak in" in context
    assert find(window, "label_assumptions").text().startswith("Assumes:")


def test_every_bound_field_has_a_tooltip(window):
    for b in window.binder.bindings:
        assert b.widget.toolTip(), b.path
