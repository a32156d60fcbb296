"""``parallelism.zero_sub_group_size`` in the Parallelism panel ("ZeRO-3 sub-group", beside the
ZeRO stage; docs/scenario-format.md): a parameters field ("1B"), empty for "not priced",
round-tripping the field; a refused value shows beside it while the scenario keeps its last
valid value."""

from __future__ import annotations

import copy

from tests.core.test_zero3_sub_group import BASELINE

from .helpers import error_text, find, mismatches, set_scenario
from .hostile_fields import each_refused_beside

ZERO3 = copy.deepcopy(BASELINE["recipe_scenario"])
# strings ("1e9") and non-integers are refused by the core: tests/core/test_zero3_sub_group.py


def test_zero_sub_group_row(window) -> None:
    set_scenario(window, ZERO3)
    field = find(window, "spin_zero_sub_group_size")
    assert field.isVisibleTo(window)
    window.state.edit("parallelism.zero_sub_group_size", None, immediate=True)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.parallelism.zero_sub_group_size is None
    window.state.edit("parallelism.zero_sub_group_size", 10**9, immediate=True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.parallelism.zero_sub_group_size == 10**9
    assert mismatches(window.binder) == []


def test_a_refused_value_shows_beside_the_row(window) -> None:
    sc = copy.deepcopy(ZERO3)
    sc["parallelism"]["zero_sub_group_size"] = None
    sc["parallelism"]["zero_stage"] = 2
    set_scenario(window, sc)
    window.state.edit("parallelism.zero_sub_group_size", 10**9, immediate=True)
    window.state.flush()
    assert "zero_stage 3" in error_text(window, "spin_zero_sub_group_size")
    assert window.state.scenario.parallelism.zero_sub_group_size is None


def test_hostile_values_are_refused_beside_the_field(window) -> None:
    path, widget = "parallelism.zero_sub_group_size", "spin_zero_sub_group_size"
    each_refused_beside(window, ZERO3, path, widget, (0, -5, 10**14))
