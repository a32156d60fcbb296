"""The FSDP1 ``no_sync()`` box (``parallelism.fsdp_no_sync``) says why it is off: below ZeRO-3
nothing is sharded for ``no_sync()`` to keep whole (core/memory/fsdp_no_sync.py), and its
tooltip ends with that reason (gui/why_disabled.py), as the replicated mixers' box does."""

from __future__ import annotations

from tests.core.hostile_inputs import at
from tests.core.test_replicated_mixers import DENSE_TRAIN

from .helpers import find, set_scenario


def test_below_zero_3_the_box_is_off_with_its_reason(window) -> None:
    set_scenario(window, at(DENSE_TRAIN, "parallelism.zero_stage", 2))
    check = find(window, "check_fsdp_no_sync")
    assert not check.isEnabled()
    assert "Not available: ZeRO stage is below 3" in check.toolTip()


def test_at_zero_3_the_box_is_live_and_its_tooltip_plain(window) -> None:
    set_scenario(window, at(DENSE_TRAIN, "parallelism.zero_stage", 3))
    check = find(window, "check_fsdp_no_sync")
    assert check.isEnabled() and "Not available" not in check.toolTip()
