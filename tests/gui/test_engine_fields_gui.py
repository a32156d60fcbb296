"""Scenario fields the window gained in one pass (docs/scenario-format.md): ``rl.off_policy_steps``,
``rl.overlap`` and ``rl.rollout.weights`` in the RL roles panel, ``serving.async_output`` and
``serving.cuda_graph_batch_sizes`` in the Serving panel. Each round-trips its field, is disabled
where the engine or placement does not read it, and bad input shows beside it while the
scenario keeps its last valid value."""

from __future__ import annotations

from typing import Any

from gpusizer.gui.size_list_field import parse_sizes
from tests.scenarios import RL_SPLIT as SPLIT
from tests.scenarios import VLLM

from .helpers import error_text, find, mismatches, set_scenario

SPLIT_RL: dict[str, Any] = SPLIT["rl"]
ROLLOUT: dict[str, Any] = SPLIT_RL["rollout"]


def _type(field: Any, text: str) -> None:
    """Type into a field's line edit and press Enter (focus out reads it the same way)."""
    edit = field.edit if hasattr(field, "edit") else field.lineEdit()
    edit.setText(text)
    field.interpretText()
    field.window().state.flush()


def test_off_policy_steps_round_trip_and_apply_to_overlapping_split_pools_only(window) -> None:
    set_scenario(window, {**SPLIT, "rl": {**SPLIT_RL, "off_policy_steps": 3}})
    spin = find(window, "spin_rl_off_policy_steps")
    assert spin.value() == 3 and spin.isEnabled()  # the scenario's value shown
    spin.setValue(8)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.rl.off_policy_steps == 8
    _type(spin, "65")  # NeMo RL's ages 1-64 (core/model/rl_spec.py)
    message = error_text(window, "spin_rl_off_policy_steps")
    assert "1" in message and "64" in message
    assert window.state.scenario.rl.off_policy_steps == 8  # unchanged
    overlap = find(window, "combo_rl_overlap")
    assert overlap.currentData() is None and overlap.isVisibleTo(window)
    overlap.setCurrentIndex(overlap.findData(False))
    assert window.state.scenario.rl.overlap is False
    assert not spin.isEnabled()  # the pools take turns: one policy
    overlap.setCurrentIndex(overlap.findData(True))
    assert window.state.scenario.rl.overlap is True and spin.isEnabled()
    set_scenario(window, {**SPLIT, "rl": {**SPLIT_RL, "overlap": False}})
    assert overlap.currentData() is False and not spin.isEnabled()
    set_scenario(window, {**SPLIT, "rl": {}})
    assert not spin.isEnabled() and not overlap.isVisibleTo(window)  # colocated: one policy
    assert "max_trajectory_age_steps" in spin.toolTip()


def test_rollout_weights_round_trip_and_a_bad_id_shows_beside_it(window) -> None:
    set_scenario(window, {**SPLIT, "rl": {**SPLIT_RL, "rollout": {**ROLLOUT, "weights": "fp8"}}})
    box = find(window, "combo_rl_rollout_weights")
    assert box.currentData() == "fp8" and box.isEnabled()
    box.setCurrentIndex(0)  # the first item: null
    assert window.state.scenario.rl.rollout.weights is None  # the policy's 16-bit weights
    box.setCurrentIndex(box.findData("nvfp4"))
    assert window.state.scenario.rl.rollout.weights == "nvfp4"
    window.state.edit("rl.rollout.weights", "fp7", immediate=True)  # as from another tool
    window.state.flush()
    assert "must be one of" in error_text(window, "combo_rl_rollout_weights")
    assert window.state.scenario.rl.rollout.weights == "nvfp4"
    assert "fp8.py" in box.toolTip()


def test_async_output_only_on_vllm_v0(window) -> None:
    set_scenario(window, VLLM)
    box = find(window, "combo_serving_async_output")
    assert box.isVisibleTo(window) and not box.isEnabled()  # the current release is V1
    assert box.currentData() is None
    set_scenario(window, {**VLLM, "serving": {"engine_version": "0.6.4", "async_output": False}})
    assert box.isEnabled() and box.currentData() is False
    box.setCurrentIndex(0)  # engine default
    assert window.state.scenario.serving.async_output is None
    box.setCurrentIndex(box.findData(False))
    assert window.state.scenario.serving.async_output is False
    assert mismatches(window.binder) == []
    versions = find(window, "combo_serving_engine_version")
    versions.setCurrentIndex(versions.findData("0.8.0"))  # V1: no such switch
    window.state.flush()
    assert "--disable-async-output-proc" in error_text(window, "combo_serving_async_output")
    assert window.state.scenario.serving.engine_version == "0.6.4"  # the last valid scenario
    assert box.isEnabled()  # holding a value: it can be set back where the error shows
    box.setCurrentIndex(0)  # engine default
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.engine_version == "0.8.0"
    assert not box.isEnabled()
    set_scenario(window, {**VLLM, "framework": "sglang"})
    assert not box.isVisibleTo(window) and not box.isEnabled()
    assert "RFC #6913" in box.toolTip()


def test_cuda_graph_sizes_round_trip_refuse_bad_text_and_need_graphs(window) -> None:
    set_scenario(
        window, {**VLLM, "framework": "tensorrt-llm", "serving": {"cuda_graph_batch_sizes": [1, 2, 4]}}
    )
    field = find(window, "edit_serving_cuda_graph_batch_sizes")
    name = "edit_serving_cuda_graph_batch_sizes"
    assert field.edit.text() == "1, 2, 4" and field.isEnabled()
    _type(field, "8, 1,2 4 16")
    assert window.state.scenario.serving.cuda_graph_batch_sizes == (8, 1, 2, 4, 16)
    _type(field, "1, 2, x")
    assert "'x' is not a whole number" in error_text(window, name)
    assert window.state.scenario.serving.cuda_graph_batch_sizes == (8, 1, 2, 4, 16)  # unchanged
    _type(field, "0, 4")  # the core's range: at least 1
    assert "greater than or equal to 1" in error_text(window, name)
    assert window.state.scenario.serving.cuda_graph_batch_sizes == (8, 1, 2, 4, 16)
    _type(field, "")
    assert window.state.error is None and window.state.scenario.serving.cuda_graph_batch_sizes is None
    assert error_text(window, name) == ""
    window.state.edit("serving.cuda_graphs", False, immediate=True)
    window.state.flush()
    assert not field.isEnabled()  # eager steps: no graphs to pad to
    set_scenario(window, {**VLLM, "framework": "mlx", "hardware": {"gpu": "apple-m4-max-128gb"}})
    assert not field.isEnabled()  # mlx-lm captures no CUDA graphs
    assert "enable_padding" in field.toolTip()


def test_parse_sizes() -> None:
    assert parse_sizes(" 1,2 ; 4 ") == (1, 2, 4) and parse_sizes("  ") is None
    for bad in ("1.5", "-1", "²", "4k", "1" * 40):
        try:
            parse_sizes(bad)
        except ValueError as exc:
            assert "batch size" in str(exc) or "whole number" in str(exc)
        else:
            raise AssertionError(bad)


def test_lora_active_round_trips_and_refuses_more_than_served(window) -> None:
    """``serving.lora.active`` was already in the panel ("Adapters in use"): shown once
    adapters are served, and more in use than served is refused beside it."""
    set_scenario(window, VLLM)
    spin = find(window, "spin_serving_lora_active")
    assert not spin.isVisibleTo(window)  # no adapters served
    set_scenario(window, {**VLLM, "serving": {"lora": {"adapters": 4, "active": 2}}})
    assert spin.isVisibleTo(window) and spin.value() == 2
    spin.setValue(8)
    window.state.flush()
    assert "serving.lora.active" in str(window.state.error) and error_text(window, "spin_serving_lora_active")
    assert window.state.scenario.serving.lora.active == 2  # unchanged
    spin.setValue(None)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.lora.active is None
