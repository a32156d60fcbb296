"""``parallelism.overlap_comm`` in the Parallelism panel ("Overlap comm", beside the ZeRO stage;
docs/scenario-format.md): shown for training, enabled under a framework whose ZeRO reduces in
every backward (DeepSpeed: ``FrameworkProfile.reduce_every_backward``) or while a value is held,
round-tripping null / true / false; a value the core refuses shows the error beside it while the
scenario keeps its last valid value."""

from __future__ import annotations

from typing import Any

from .helpers import error_text, find, mismatches, set_scenario

DS: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "deepspeed",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {
        "kind": "pretraining",
        "sequence_length": 4096,
        "micro_batch_size": 1,
        "global_batch_size": 64,
    },
    "parallelism": {"data": 8, "zero_stage": 2},
}


def test_the_row_sits_by_the_zero_stage_and_round_trips(window) -> None:
    set_scenario(window, DS)
    box = find(window, "combo_overlap_comm")
    assert box.isVisibleTo(window) and box.isEnabled()
    assert [box.itemData(i) for i in range(box.count())] == [None, True, False]
    assert box.currentData() is None and "overlap_comm" in box.toolTip()
    box.setCurrentIndex(box.findData(True))
    window.state.flush()
    assert window.state.error is None and window.state.scenario.parallelism.overlap_comm is True
    box.setCurrentIndex(box.findData(False))
    window.state.flush()
    assert window.state.scenario.parallelism.overlap_comm is False
    assert mismatches(window.binder) == []


def test_disabled_where_the_framework_reduces_once_a_step(window) -> None:
    set_scenario(window, {**DS, "framework": "megatron"})
    box = find(window, "combo_overlap_comm")
    assert box.isVisibleTo(window) and not box.isEnabled()
    set_scenario(window, {**DS, "framework": "megatron", "parallelism": {"data": 8, "overlap_comm": True}})
    assert box.isEnabled()  # a held value stays editable, so that it can be undone


def test_a_refused_value_shows_beside_the_row(window) -> None:
    set_scenario(window, DS)
    window.state.edit("parallelism.overlap_comm", "yes", immediate=True)
    window.state.flush()
    assert "boolean" in error_text(window, "combo_overlap_comm")
    assert window.state.scenario.parallelism.overlap_comm is None
