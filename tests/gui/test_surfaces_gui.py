"""Every recent field in the window (docs/evidence/surfaces.md, "Every recent field in every
surface"). SGLang's default MoE tiles (``serving.moe_default_config``) had no widget: the Serving
panel's "MoE tile config" row shows it for an engine with SGLang releases on a MoE model (or a
value held), round-trips the field and says it in the speed assumptions. Hostile values of the
recent fields, typed in turn, are refused beside their widgets with the last valid scenario kept
(tests/gui/hostile_fields.py); a file holding one is refused whole. The API and CLI side is
tests/cli/test_surfaces_hostile.py."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_surfaces_hostile import GPT2_EAGER, LORA, MOE, SGLANG_MOE, TREE, ZERO3
from tests.core.hostile_inputs import at
from tests.core.test_rl_one_copy import _grpo
from tests.scenarios import RL_SPLIT, VLLM

from .helpers import find, mismatches, row_visible, set_scenario
from .hostile_fields import each_refused_beside
from .test_rl_knobs_gui import COLOCATED

TILES = "combo_serving_moe_default_config"
BOOLS: tuple[Any, ...] = ("yes", "true", 1, 0, math.nan, [], {})
COUNTS: tuple[Any, ...] = (0, -1, 1.5, "8", True, math.nan, 10**30)
SHARED_START = _grpo("llama-3.1-8b", False, gpu="rtx-4090-24gb")  # a colocated LoRA GRPO on vLLM
TRL = {**RL_SPLIT, "rl": {"framework": "trl"}}  # the sleep level shows for TRL's rollout


def test_the_moe_tile_row_shows_for_sglang_on_a_moe_model(window) -> None:
    box = find(window, TILES)
    for hidden in (VLLM, MOE, {**VLLM, "framework": "sglang"}):  # vLLM, or a dense model
        set_scenario(window, hidden)
        assert not row_visible(box), hidden
    set_scenario(window, SGLANG_MOE)
    assert row_visible(box) and box.currentData() is None
    assert [box.itemData(i) for i in range(box.count())] == [None, True, False]
    assert "get_default_config" in box.toolTip() and "Using default MoE kernel config" in box.toolTip()
    box.setCurrentIndex(box.findData(True))
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.moe_default_config is True
    set_scenario(window, {**MOE, "serving": {"moe_default_config": False}})  # held: shown to clear
    assert row_visible(box) and box.currentData() is False
    assert mismatches(window.binder) == []


def test_the_default_tiles_are_said_in_the_speed_assumptions(window) -> None:
    # the step prices SGLang's get_default_config tiles for 16-bit experts on Hopper at EP 1
    # (core/speed/sglang_moe_tiles.py); the line names the field and the tiles (exact)
    set_scenario(window, SGLANG_MOE)
    assert not any("moe_default_config" in a for a in window.state.estimate.assumptions)
    find(window, TILES).setCurrentIndex(find(window, TILES).findData(True))
    window.state.flush()
    (line,) = [a for a in window.state.estimate.assumptions if "moe_default_config" in a]
    assert "BLOCK_SIZE_M 16 x N 32 up to 128 tokens a call, 64 x 64 above" in line


@pytest.mark.parametrize(
    ("start", "path", "widget", "values"),
    [
        (SGLANG_MOE, "serving.moe_default_config", TILES, BOOLS),
        (LORA, "workload.loss", "combo_loss", ("LSE_FP32_SHIFTED_INPLACE", "unsloth", None, 1, [])),
        (ZERO3, "parallelism.zero_sub_group_size", "spin_zero_sub_group_size", COUNTS),
        (MOE, "serving.moe_backend", "combo_serving_moe_backend", ("TRITON", "cutlass", 1, "")),
        (TREE, "serving.speculative.topk", "spin_serving_speculative_topk", (*COUNTS, 17)),
        (TREE, "serving.speculative.num_draft_tokens", "spin_serving_speculative_num_draft_tokens", COUNTS),
        (COLOCATED, "rl.reference.offload_per_forward", "check_rl_reference_offload_per_forward", BOOLS),
        (SHARED_START, "rl.rollout.shared_weights", "check_rl_rollout_shared_weights", (*BOOLS, None)),
        (TRL, "rl.rollout.sleep_level", "combo_rl_sleep", (3, -1, "1", True, 1.5, None)),
        (COLOCATED, "rl.policy.hf_layer_ops", "combo_rl_policy_hf_layer_ops", ("HF-FSDP1", "x", 1, [])),
        (
            COLOCATED,
            "rl.policy.log_prob_micro_batch_size",
            "spin_rl_policy_log_prob_micro_batch_size",
            COUNTS,
        ),
        (RL_SPLIT, "rl.sync_transport", "combo_rl_sync_transport", ("NCCL", "x", 1, True)),
    ],
    ids=lambda v: v if isinstance(v, str) and "." in v else "",
)
def test_a_hostile_value_of_a_recent_field_is_refused_beside_it(window, start, path, widget, values) -> None:
    each_refused_beside(window, start, path, widget, values)


@pytest.mark.parametrize(
    ("start", "path", "value"),
    [
        (SGLANG_MOE, "serving.moe_default_config", "yes"),
        (LORA, "workload.loss", "lse_fp32_shifted"),
        (GPT2_EAGER, "model.attention_dropout", 1.0),
        (RL_SPLIT, "rl.rollout.sleep_level", 3),
    ],
)
def test_a_file_with_a_hostile_recent_field_is_refused_whole(
    window, message_boxes, tmp_path: Path, start: dict[str, Any], path: str, value: Any
) -> None:
    set_scenario(window, VLLM)
    before = window.state.scenario
    file = tmp_path / "bad.gpusizer.json"
    file.write_text(json.dumps(at(start, path, value)), encoding="utf-8")
    assert not window.files.open_path(file, ask=False)
    assert window.state.scenario is before  # nothing of the file taken
    assert len(message_boxes) == 1 and path in message_boxes[0][1], message_boxes


def test_the_arrows_of_a_field_holding_a_refused_value_do_nothing(qtbot) -> None:
    """A scenario edit of ``"8"`` (or true, NaN, a list) is shown as it is until fixed; before,
    every repaint compared it with the field's bounds and raised TypeError in the event loop."""
    from PySide6.QtWidgets import QAbstractSpinBox

    from gpusizer.gui.quantity_field import QuantityField

    field = QuantityField("count", "parallelism.zero_sub_group_size", none_text="not priced")
    qtbot.addWidget(field)
    held: Any
    for held in ("8", True, math.nan, []):
        field.setValue(held)
        assert field.stepEnabled() == QAbstractSpinBox.StepEnabledFlag.StepNone, held
        field.stepBy(1)
        assert field.value() is held, held
    field.setValue(10**9)
    assert field.stepEnabled() & QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
