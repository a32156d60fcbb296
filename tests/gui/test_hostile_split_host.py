"""Hostile input in the window for the host CPU, the prefill pool's own layout and batch, and
Megatron's fused MoE permutation (``hardware.host_cpu``, ``serving.disaggregated.prefill_*``,
``rl.policy.moe_permute_fusion``): an edit the core refuses leaves the scenario as it was and
its message shows beside the field; a file holding such a value is refused whole.

Before, ``prefill_attention_data`` and ``prefill_expert`` had no widget: a model switch that
made them invalid (a dense model) was refused with no field to change in the window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.scenarios import MOE_SPLIT, RL_MOE

from .helpers import error_text, find, mismatches, set_scenario

HOSTILE_INTS: tuple[Any, ...] = (
    0,
    -1,
    1.5,
    "1e999",
    "nan",
    float("nan"),
    float("inf"),
    True,
    10**30,
    "\u2460",
    [],
    {},
)
# (field, widget beside which the message shows: None where the window has none)
FIELDS = (
    ("serving.disaggregated.prefill_max_sequences", "spin_serving_prefill_batch"),
    ("serving.disaggregated.prefill_attention_data", "spin_serving_prefill_attention_data"),
    ("serving.disaggregated.prefill_expert", "spin_serving_prefill_expert"),
)


def _refused(window: Any, path: str, value: Any, widget: str | None) -> None:
    before = window.state.scenario
    window.state.edit(path, value, immediate=True)
    err = window.state.error
    assert err is not None and err.field == path, (path, value, err)
    assert window.state.scenario is before  # the last valid scenario stays
    if widget is not None:
        assert err.message in error_text(window, widget), (path, value)
    window.state.edit(path, None if path != "rl.policy.moe_permute_fusion" else False, immediate=True)
    assert window.state.error is None


@pytest.mark.parametrize(("path", "widget"), FIELDS)
def test_hostile_prefill_values_are_refused_beside_the_field(window, path: str, widget: str) -> None:
    set_scenario(window, MOE_SPLIT)
    for value in HOSTILE_INTS:
        _refused(window, path, value, widget)
    assert mismatches(window.binder) == []


def test_hostile_host_cpus_are_refused_beside_the_combo(window) -> None:
    set_scenario(window, MOE_SPLIT)
    hosts: tuple[Any, ...] = ("epyc", "X86", "x86 ", "gr\u0430ce", "", 1, 2.75, True, [], {"id": "grace"})
    for value in hosts:
        _refused(window, "hardware.host_cpu", value, "combo_host_cpu")
    window.state.edit("hardware.host_cpu", 1, immediate=True)
    assert "must be one of x86, grace" in error_text(window, "combo_host_cpu")  # names the ids


def test_grace_with_an_amd_gpu_is_refused_and_the_host_combo_fixes_it(window) -> None:
    set_scenario(window, {**MOE_SPLIT, "hardware": {"gpu": "h100-sxm-80gb", "host_cpu": "grace"}})
    window.state.edit("hardware.gpu", "mi300x-192gb", immediate=True)
    err = window.state.error
    assert err is not None and err.field == "hardware.host_cpu" and "AMD" in err.message
    assert "AMD" in error_text(window, "combo_host_cpu")
    window.state.edit("hardware.host_cpu", None, immediate=True)
    assert window.state.error is None and window.state.scenario.hardware.gpu == "mi300x-192gb"


def test_a_dense_model_switch_names_the_prefill_field_and_it_can_be_cleared(window) -> None:
    set_scenario(
        window,
        {
            **MOE_SPLIT,
            "serving": {
                "disaggregated": {**MOE_SPLIT["serving"]["disaggregated"], "prefill_attention_data": 2}
            },
        },
    )
    spin = find(window, "spin_serving_prefill_attention_data")
    assert spin.isVisibleTo(window) and spin.value() == 2
    window.state.edit("model", {"preset": "llama-3.1-8b"}, immediate=True)  # the preset tree's edit
    err = window.state.error
    assert err is not None and err.field == "serving.disaggregated.prefill_attention_data"
    assert "MoE" in error_text(window, "spin_serving_prefill_attention_data")
    spin.setValue(None)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.model.preset == "llama-3.1-8b"


def test_the_prefill_fields_hide_and_stay_inert_without_a_prefill_pool(window) -> None:
    """Kept while the split is off (as the prefix cache's hit rate is): turning the pool off is
    never refused for them, and the answer is the one without them."""
    split = {**MOE_SPLIT["serving"]["disaggregated"], "prefill_attention_data": 2, "prefill_max_sequences": 1}
    set_scenario(window, {**MOE_SPLIT, "serving": {"disaggregated": split}})
    window.state.edit_many(
        {"serving.disaggregated.prefill_gpus": None, "serving.disaggregated.decode_gpus": None}
    )
    assert window.state.error is None
    assert not find(window, "spin_serving_prefill_attention_data").isVisibleTo(window)
    assert window.state.estimate.serving is not None
    assert window.state.estimate.serving.disaggregated_prefill_gpus == 0


def test_hostile_moe_permute_fusion_is_refused_and_the_state_stays(window) -> None:
    set_scenario(window, RL_MOE)
    values: tuple[Any, ...] = ("true", 1, 0, None, "yes", [], 1.0)
    for value in values:
        _refused(window, "rl.policy.moe_permute_fusion", value, None)
        window.state.edit("rl.policy.moe_permute_fusion", value, immediate=True)
        assert "rl.policy.moe_permute_fusion" in window.statusBar().currentMessage()
        window.state.edit("rl.policy.moe_permute_fusion", False, immediate=True)


@pytest.mark.parametrize(
    ("block", "field", "value"),
    [
        ("hardware", "host_cpu", 1),
        ("hardware", "host_cpu", "epyc"),
        ("disaggregated", "prefill_max_sequences", 0),
        ("disaggregated", "prefill_attention_data", 3),
        ("disaggregated", "prefill_expert", "1e999"),
    ],
)
def test_a_file_with_a_hostile_value_is_refused_whole(
    window, tmp_path: Path, message_boxes: list[tuple[str, str]], block: str, field: str, value: Any
) -> None:
    data = json.loads(json.dumps(MOE_SPLIT))
    (data["hardware"] if block == "hardware" else data["serving"]["disaggregated"])[field] = value
    path = tmp_path / "bad.gpusizer.json"
    path.write_text(json.dumps(data))
    before = window.state.scenario
    assert not window.files.open_path(path)
    assert window.state.scenario is before and window.state.error is None
    assert len(message_boxes) == 1 and field in message_boxes[0][1]
