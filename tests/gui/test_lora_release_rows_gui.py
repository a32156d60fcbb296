"""The Workload panel's rows for ``workload.transformers_version``, ``workload.lora_target_
parameters`` and ``workload.unsloth_version`` (gui/panels/lora_release_rows.py): shown for
LoRA/QLoRA where they change the experts' adapters, each edit reaching the answer, hostile input
refused beside the control.

Figures are the core's own (tests/core/test_lora_gpt_oss_params.py, tests/core/
test_lora_moe_release.py, tests/core/test_unsloth_release.py: gpt-oss-20b at r 8 adds 24 x 8 x
460,800 expert adapters from Unsloth 2026.7.2 on a 4-bit base): the GUI tests check that each
control reaches the scenario and the answer."""

from __future__ import annotations

from typing import Any

from gpusizer.core.memory.lora import scenario_lora
from gpusizer.core.pipeline.estimate import estimate

from .helpers import error_text, find, mismatches, refuse_edit, row_visible, set_scenario

ALL = ["q", "k", "v", "o", "gate", "up", "down"]
OSS: dict[str, Any] = {
    "model": {"preset": "gpt-oss-20b"},
    "framework": "unsloth",
    "workload": {"kind": "qlora", "lora_rank": 8, "lora_targets": ALL, "sequence_length": 1024},
}
HF_OSS: dict[str, Any] = {**OSS, "framework": "huggingface", "workload": {**OSS["workload"], "kind": "lora"}}
QWEN_MOE: dict[str, Any] = {**HF_OSS, "model": {"preset": "qwen3-30b-a3b"}}
DENSE: dict[str, Any] = {**HF_OSS, "model": {"preset": "llama-3.1-8b"}}
ROWS = ("combo_transformers_version", "edit_lora_target_parameters", "combo_unsloth_version")


def _shown(window: Any) -> tuple[bool, ...]:
    return tuple(row_visible(find(window, n)) for n in ROWS)


def test_rows_show_where_they_change_the_experts(window) -> None:
    set_scenario(window, DENSE)
    assert _shown(window) == (False, False, False)  # a dense model: no experts
    set_scenario(window, QWEN_MOE)
    assert _shown(window) == (True, False, False)  # fused from transformers 5
    set_scenario(window, HF_OSS)
    assert _shown(window) == (True, True, False)  # 3-D experts: target_parameters
    set_scenario(window, OSS)
    assert _shown(window) == (True, True, True)
    set_scenario(window, {**OSS, "workload": {"kind": "full_finetune", "sequence_length": 1024}})
    assert _shown(window) == (False, False, False)  # full fine-tune: no adapters
    assert "PR #6936" in find(window, "combo_unsloth_version").toolTip()


def test_unsloth_release_reaches_the_adapters(window) -> None:
    set_scenario(window, OSS)
    before = window.state.estimate.memory.total
    box = find(window, "combo_unsloth_version")
    box.setCurrentIndex(box.findData("2026.7.2"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.workload.unsloth_version == "2026.7.2"
    assert scenario_lora(window.state.scenario).total == 24 * 8 * (20_736 + 460_800)
    assert window.state.estimate.memory.total == estimate(window.state.scenario).memory.total > before
    assert mismatches(window.binder) == []
    box.setCurrentIndex(box.findData(None))
    window.state.flush()
    assert window.state.estimate.memory.total == before


def test_target_parameters_typed_reach_the_adapters(window) -> None:
    set_scenario(window, HF_OSS)
    edit = find(window, "edit_lora_target_parameters")
    edit.setText("7.mlp.experts.gate_up_proj, 7.mlp.experts.down_proj")
    edit.editingFinished.emit()
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.workload.lora_target_parameters == (
        "7.mlp.experts.gate_up_proj",
        "7.mlp.experts.down_proj",
    )
    assert scenario_lora(window.state.scenario).total == 24 * 8 * 20_736 + 8 * 460_800  # one layer
    assert mismatches(window.binder) == []
    edit.setText("")
    edit.editingFinished.emit()
    window.state.flush()
    assert not window.state.scenario.workload.lora_target_parameters


def test_transformers_release_reaches_the_adapters(window) -> None:
    """Qwen3-30B-A3B under PEFT: from 5.0 gate_up_proj at 2r (core/memory/lora_experts.py)."""
    set_scenario(window, QWEN_MOE)
    before = scenario_lora(window.state.scenario).total
    box = find(window, "combo_transformers_version")
    box.setCurrentIndex(box.findData("5.1.0"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.workload.transformers_version == "5.1.0"
    assert scenario_lora(window.state.scenario).total != before


def test_hostile_input_refused_beside_the_control(window) -> None:
    refuse_edit(window, OSS, "workload.unsloth_version", "latest")
    assert "Unsloth release" in error_text(window, "combo_unsloth_version")
    refuse_edit(window, QWEN_MOE, "workload.transformers_version", "five")
    assert "transformers release" in error_text(window, "combo_transformers_version")
    refuse_edit(window, HF_OSS, "workload.lora_target_parameters", ("7.self_attn.q_proj",))
    assert "target_parameters" in error_text(window, "edit_lora_target_parameters")
    refuse_edit(window, HF_OSS, "workload.lora_target_parameters", ("24.mlp.experts.down_proj",))
    assert "layer 24" in error_text(window, "edit_lora_target_parameters")


def test_switching_away_from_unsloth_clears_its_release(window) -> None:
    set_scenario(window, {**OSS, "workload": {**OSS["workload"], "unsloth_version": "2026.7.2"}})
    box = find(window, "combo_framework")
    box.setCurrentIndex(box.findData("huggingface"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.workload.unsloth_version is None
