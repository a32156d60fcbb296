"""The Parallelism panel's "Accumulate under FSDP1 no_sync" box shows the stack's default
(core/registry/no_sync.py, core/memory/no_sync_default.py): a transformers Trainer scenario at
ZeRO-3 with accumulation that leaves the field out opens ticked, the box's tooltip naming the
stack (its text stays short: a longer one widened the panel and the window's least width, which
tests/gui/test_app.py and test_hardware_tab.py's 1280x720 checks caught); a stack without such a
rule (torchtune) names none and opens unticked."""

from __future__ import annotations

from tests.core.test_no_sync_stacks import FULL

from .helpers import find, mismatches, set_scenario


def test_the_box_shows_the_stacks_default(window) -> None:
    set_scenario(window, FULL)
    check = find(window, "check_fsdp_no_sync")
    assert window.state.scenario.parallelism.fsdp_no_sync is True
    assert check.isEnabled() and check.isChecked()
    assert "On by default under transformers' Trainer" in check.toolTip()
    assert check.text() == "Accumulate under FSDP1 no_sync"
    assert mismatches(window.binder) == []
    set_scenario(window, {**FULL, "framework": "torchtune"})
    assert not check.isChecked()
    assert check.text() == "Accumulate under FSDP1 no_sync" and "On by default" not in check.toolTip()
