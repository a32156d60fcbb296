"""Every ``rl.*`` field has a widget in the RL panel (docs/scenario-format.md "RL post-training"):
the common ones in the panel's own form, the engine's and framework's knobs in the collapsible
"Policy training details", "Rollout engine details" and "Between phases" groups
(gui/panels/rl_sections.py). Each widget round-trips to the scenario and back, a null field
shows what null resolves to, a framework's filled knobs show their values (a user edit wins),
and a refusal opens its group and shows beside its field."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox

from gpusizer.core.model.rl_spec import RLSpec
from gpusizer.core.pipeline.scenario import scenario_dict
from gpusizer.gui.panels import RLPanel

from .helpers import error_text, find, set_scenario

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md"
COLOCATED: dict[str, Any] = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
    "rl": {"rollout": {"prompts_per_step": 64, "tensor": 2}},
}
# (object name, rl field, a value the colocated scenario accepts other than its default)
KNOBS = (
    ("spin_rl_policy_epochs", "rl.policy.epochs", 2),
    ("spin_rl_policy_mini_batch_size", "rl.policy.mini_batch_size", 128),
    ("spin_rl_policy_micro_batch_size", "rl.policy.micro_batch_size", 2),
    ("spin_rl_policy_log_prob_micro_batch_size", "rl.policy.log_prob_micro_batch_size", 8),
    ("spin_rl_prompt_cap", "rl.prompt_cap", 1024),
    ("combo_rl_policy_micro_batch_unit", "rl.policy.micro_batch_unit", "response"),
    ("check_rl_policy_sequence_packing", "rl.policy.sequence_packing", False),
    ("combo_rl_policy_expert_routing", "rl.policy.expert_routing", "balanced"),
    ("check_rl_policy_prefetch_gathers", "rl.policy.prefetch_gathers", False),
    ("check_rl_policy_offload_per_call", "rl.policy.offload_per_call", True),
    ("combo_rl_policy_hf_layer_ops", "rl.policy.hf_layer_ops", "hf-fsdp1"),
    ("combo_rl_policy_kind", "rl.policy.kind", "lora"),
    ("combo_rl_reference_enabled", "rl.reference.enabled", False),
    ("check_rl_reference_offload", "rl.reference.offload", True),
    ("check_rl_reference_offload_per_forward", "rl.reference.offload_per_forward", True),
    ("spin_rl_rollout_response_spread", "rl.rollout.response_spread", 0.5),
    ("spin_rl_rollout_memory_fraction", "rl.rollout.memory_fraction", 0.6),
    ("spin_rl_rollout_max_sequences", "rl.rollout.max_sequences", 256),
    ("combo_rl_rollout_cuda_graphs", "rl.rollout.cuda_graphs", False),
    ("combo_rl_rollout_moe_backend", "rl.rollout.moe_backend", "triton"),
    ("combo_rl_rollout_serves_adapter", "rl.rollout.serves_adapter", False),
    ("check_rl_rollout_async_engine", "rl.rollout.async_engine", True),
    ("check_rl_rollout_detokenize_in_step", "rl.rollout.detokenize_in_step", True),
    ("check_rl_rollout_returns_logprobs", "rl.rollout.returns_logprobs", True),
    ("check_rl_rollout_copies_logprobs", "rl.rollout.copies_logprobs", True),
    ("combo_rl_rollout_speculative_method", "rl.rollout.speculative.method", "ngram"),
    ("check_rl_offload_states", "rl.offload_states", False),
    ("combo_rl_offload_memory", "rl.offload_memory", "pageable"),
    ("spin_rl_host_link_gb_per_s", "rl.host_link_gb_per_s", 32.0),
    ("combo_rl_rollout_engine", "rl.rollout.engine", "sglang"),
)


def _panel(window: Any) -> RLPanel:
    return next(p for p in window.panels if isinstance(p, RLPanel))


def _leaves(model: type[BaseModel], prefix: str) -> list[str]:
    """The dotted paths of a spec's leaf fields, sub-blocks (optional ones too) walked."""
    out: list[str] = []
    for name, info in model.model_fields.items():
        path = f"{prefix}.{name}"
        members = (
            typing.get_args(info.annotation)
            if typing.get_origin(info.annotation)
            in (
                typing.Union,
                types.UnionType,
            )
            else (info.annotation,)
        )
        blocks = [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]
        out += _leaves(blocks[0], path) if blocks else [path]
    return out


def _documented() -> set[str]:
    """The ``rl.*`` fields of the scenario table under "RL post-training" (its first table)."""
    text = DOCS.read_text(encoding="utf-8")
    table = text[text.index("### RL post-training") :].split("\n\n")
    rows = next(block for block in table if block.lstrip().startswith("| Field"))
    return {m for line in rows.splitlines() for m in re.findall(r"`(rl\.[a-z_.]+)`", line.split("|")[1])}


def test_every_rl_field_has_a_widget(window) -> None:
    """The spec's leaves and the contract's rows alike: a bound widget each (a draft model,
    refused in the rollout, shows its error beside the method)."""
    bound = {b.path for b in window.binder.bindings} | set(window.binder.shown_at)
    fields = set(_leaves(RLSpec, "rl"))
    assert fields - bound == set()
    documented = _documented() - {"rl.rollout.speculative"}  # a block: its fields are leaves above
    assert documented and documented - bound == set()


def _set(widget: Any, value: Any) -> None:
    """Edit as a user does."""
    if isinstance(widget, QComboBox):
        widget.setCurrentIndex(widget.findData(value))
    elif isinstance(widget, QAbstractButton):
        widget.setChecked(value)
    else:
        widget.setValue(value)


def _shown(widget: Any) -> Any:
    if isinstance(widget, QComboBox):
        return widget.currentData()
    if isinstance(widget, QAbstractButton):
        return widget.isChecked()
    return widget.value()


@pytest.mark.parametrize(("name", "path", "value"), KNOBS, ids=[k[0] for k in KNOBS])
def test_each_knob_round_trips_through_the_scenario(window, name, path, value) -> None:
    set_scenario(window, COLOCATED)
    widget = find(window, name)
    before = window.state.value(path)
    _set(widget, value)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.value(path) == value
    saved = scenario_dict(window.state.scenario)
    set_scenario(window, COLOCATED)  # back to the default: the widget follows
    assert _shown(widget) == before
    set_scenario(window, saved)  # and the saved scenario brings the value back
    assert _shown(widget) == value and window.state.value(path) == value


def test_null_fields_show_what_null_resolves_to(window) -> None:
    """The defaults' sources: core/pipeline/rl_roles.py COLOCATED_MEMORY_FRACTION (0.5, verl's
    examples), core/model/rl_spec.py VERL_MAX_SEQUENCES (1,024, verl rollout.yaml), vLLM's
    gpu_memory_utilization 0.92 (core/registry/engine_releases.py) and PCIe Gen5 x16's 64 GB/s
    per direction on an H100 (core/speed/host_link.py)."""
    set_scenario(window, COLOCATED)
    text = {
        n: find(window, n).specialValueText()
        for n in (
            "spin_rl_rollout_memory_fraction",
            "spin_rl_rollout_max_sequences",
            "spin_rl_policy_mini_batch_size",
            "spin_rl_policy_micro_batch_size",
            "spin_rl_host_link_gb_per_s",
        )
    }
    assert text == {
        "spin_rl_rollout_memory_fraction": "default: 0.5 (colocated)",
        "spin_rl_rollout_max_sequences": "default: 1,024 (verl)",
        "spin_rl_policy_mini_batch_size": "all the step's responses (512)",  # 64 prompts x 8
        "spin_rl_policy_micro_batch_size": "the workload's micro-batch (1)",
        "spin_rl_host_link_gb_per_s": "default: 64 GB/s (H100 SXM 80GB)",
    }
    graphs, reference = (
        find(window, "combo_rl_rollout_cuda_graphs"),
        find(window, "combo_rl_reference_enabled"),
    )
    assert graphs.currentData() is None and graphs.currentText().endswith("default (on)")
    assert reference.currentText() == "the algorithm's (on)"  # GRPO runs a reference
    set_scenario(
        window,
        {
            **COLOCATED,
            "rl": {"algorithm": "dapo", "placement": "split", "rollout": {"prompts_per_step": 64, "gpus": 8}},
        },
    )
    assert reference.currentText() == "the algorithm's (off)"  # DAPO drops the KL term
    fraction = find(window, "spin_rl_rollout_memory_fraction").specialValueText()
    assert fraction == "vLLM default: 0.92"  # split: the engine's own
    # vLLM's AsyncLLM (rl.rollout.async_engine): SchedulerConfig's 128 from vLLM 0.9.2, the
    # engine context's default (core/registry/vllm_engine_context.py)
    rollout = {**COLOCATED["rl"]["rollout"], "async_engine": True}
    set_scenario(window, {**COLOCATED, "rl": {**COLOCATED["rl"], "rollout": rollout}})
    seqs = find(window, "spin_rl_rollout_max_sequences").specialValueText()
    assert seqs == "default: 128 (vLLM async engine)"


def test_a_framework_fills_the_knobs_and_a_user_edit_wins(window) -> None:
    """verl 0.7.0 (core/registry/rl_framework_releases_verl.py): rollout.yaml max_num_seqs 1024,
    gpu_memory_utilization 0.5, sleep level 2, max_num_batched_tokens 8192."""
    set_scenario(window, {**COLOCATED, "rl": {**COLOCATED["rl"], "framework": "verl"}})
    panel = _panel(window)
    seqs = find(window, "spin_rl_rollout_max_sequences")
    assert seqs.value() == 1024 and find(window, "spin_rl_rollout_memory_fraction").value() == 0.5
    assert find(window, "combo_rl_sleep").currentData() == 2
    assert find(window, "spin_rl_max_batched_tokens").value() == 8192
    header = panel.knobs.rollout_section.button
    count = int(re.search(r"(\d+) set by verl 0\.7\.0", header.text()).group(1))  # type: ignore[union-attr]
    assert "Set by verl 0.7.0's defaults." in seqs.toolTip()
    seqs.setValue(512)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.rl.rollout.max_sequences == 512
    assert "Set by verl" not in seqs.toolTip()
    assert f"{count - 1} set by verl 0.7.0" in header.text()
    assert "rl.rollout.max_sequences" in window.state.estimate.rl["framework"]["as_set"]


def test_a_refusal_opens_its_group_beside_its_field(window, qtbot) -> None:
    set_scenario(window, COLOCATED)
    panel = _panel(window)
    assert not any(s.is_open for s in panel.knobs.sections)  # closed at start
    # a draft model is not offered in the rollout (core/pipeline/rl_check.py)
    window.state.edit("rl.rollout.speculative.method", "draft_model", immediate=True)
    assert window.state.error is not None and window.state.error.field == "rl.rollout.speculative.method"
    assert panel.knobs.rollout_section.is_open
    assert "draft model is not offered" in error_text(window, "combo_rl_rollout_speculative_method")
    find(window, "combo_rl_rollout_speculative_method").setCurrentIndex(0)  # off: fixed where shown
    assert window.state.error is None and error_text(window, "combo_rl_rollout_speculative_method") == ""
    panel.knobs.policy_section.set_open(True)
    epochs = find(window, "spin_rl_policy_epochs")  # typed out of range: refused as typed
    epochs.setFocus()
    epochs.lineEdit().selectAll()
    qtbot.keyClicks(epochs, "0")
    qtbot.keyClick(epochs, Qt.Key.Key_Return)
    assert "at least 1" in error_text(window, "spin_rl_policy_epochs")
    assert window.state.scenario.rl.policy.epochs == 1


def test_a_lora_policy_shows_the_adapter_rows(window) -> None:
    """rl.policy.kind lora: the Workload panel's LoRA rank and targets (the rollout serves the
    adapter at that rank on those targets, core/pipeline/rl_roles.py), and the adapter's row in
    the rollout group, whose null is yes for a LoRA policy."""
    set_scenario(window, COLOCATED)
    _panel(window).knobs.rollout_section.set_open(True)
    rank, adapter = find(window, "spin_lora_rank"), find(window, "combo_rl_rollout_serves_adapter")
    assert not rank.isVisibleTo(window) and not adapter.isVisibleTo(window)
    _set(find(window, "combo_rl_policy_kind"), "lora")
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert rank.isVisibleTo(window) and find(window, "checks_lora_targets").isVisibleTo(window)
    assert adapter.isVisibleTo(window) and adapter.currentText() == "default (yes)"


def test_the_open_groups_do_not_widen_the_left_column(window) -> None:
    """Open, the groups' rows fit the column the other panels set (no field cut at the right:
    short check-box labels, the groups' captions aligned with the panel's)."""
    set_scenario(window, {**COLOCATED, "rl": {**COLOCATED["rl"], "framework": "nemo_rl"}})
    panel = _panel(window)
    for section in panel.knobs.sections:
        section.set_open(True)
    assert panel.box.minimumSizeHint().width() <= window.left.viewport().width()
    captions = [c for f in panel.forms for c in f.labels.values()]
    assert len({c.minimumWidth() for c in captions}) == 1  # one caption column
