"""``parallelism.fsdp_no_sync`` in the Parallelism panel ("Accumulate under FSDP1 no_sync", beside
the ZeRO stage; docs/scenario-format.md): shown for training, enabled at ZeRO-3 (or while the box
is ticked), round-tripping the field; below ZeRO-3 the core's refusal shows beside it while the
scenario keeps its last valid value."""

from __future__ import annotations

import copy

from tests.core.test_fsdp_no_sync import FSDP_7B

from .helpers import error_text, find, mismatches, set_scenario
from .hostile_fields import each_refused_beside

ZERO3 = copy.deepcopy(FSDP_7B["recipe_scenario"])
ZERO3["parallelism"]["fsdp_no_sync"] = False
ONE_GPU = {k: v for k, v in ZERO3.items() if k != "parallelism"}


def test_fsdp_no_sync_row(window) -> None:
    set_scenario(window, ONE_GPU)
    check = find(window, "check_fsdp_no_sync")
    assert check.isVisibleTo(window) and not check.isEnabled()
    set_scenario(window, ZERO3)
    assert check.isEnabled() and not check.isChecked()
    check.setChecked(True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.parallelism.fsdp_no_sync is True
    assert "no_sync" in check.toolTip()
    assert mismatches(window.binder) == []


def test_a_refused_value_shows_beside_the_row(window) -> None:
    set_scenario(window, ONE_GPU)
    window.state.edit("parallelism.fsdp_no_sync", True, immediate=True)
    window.state.flush()
    assert "zero_stage 3" in error_text(window, "check_fsdp_no_sync")
    assert window.state.scenario.parallelism.fsdp_no_sync is False


def test_hostile_values_are_refused_beside_the_box(window) -> None:
    # a string, a number, null: each refused beside the box, the last valid scenario kept
    each_refused_beside(window, ZERO3, "parallelism.fsdp_no_sync", "check_fsdp_no_sync", ("yes", 1, None))
