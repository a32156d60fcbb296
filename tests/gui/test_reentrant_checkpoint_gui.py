"""``parallelism.reentrant_checkpoint`` in the Parallelism panel ("Reentrant checkpoint (FSDP1
LoRA)", below Recompute; docs/scenario-format.md, core/memory/fsdp1_reentrant.py): shown for
training, live under FSDP1 at ZeRO-3 with full recompute on an adapter workload, ticking it
sets the field (the peak it moves is tests/core/test_fsdp1_reentrant.py's); greyed elsewhere with the
reason in its tooltip, and enabled while ticked so it can be unticked.

The case: fms-acceleration@733992a's Llama 3 8B LoRA on 2 A100s with the Liger kernels
(tests/core/data/training-peaks-blind10.json), whose replay sets the field, here
cleared to start from the box unticked."""

from __future__ import annotations

import copy

from tests.core.test_fsdp1_reentrant import _liger_2

from .helpers import find, mismatches, row_visible, set_scenario

BASE = copy.deepcopy(_liger_2())
BASE["parallelism"]["reentrant_checkpoint"] = False


def test_ticking_the_box_sets_the_field_and_prices_the_gradients(window) -> None:
    set_scenario(window, BASE)
    check = find(window, "check_reentrant_checkpoint")
    assert row_visible(check) and check.isEnabled() and not check.isChecked()
    check.setChecked(True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.parallelism.reentrant_checkpoint is True
    assert "use_reentrant" in check.toolTip()
    assert mismatches(window.binder) == []
    check.setChecked(False)
    window.state.flush()
    assert window.state.scenario.parallelism.reentrant_checkpoint is False


def test_greyed_with_its_reason_where_it_changes_nothing(window) -> None:
    check = find(window, "check_reentrant_checkpoint")
    for changes, words in (
        ({"zero_stage": 2}, "ZeRO stage is below 3"),
        ({"fsdp_version": 2}, "FSDP2"),
        ({"recompute": "selective"}, "recompute is not full"),
    ):
        sc = copy.deepcopy(BASE)
        sc["parallelism"].update(changes)
        set_scenario(window, sc)
        assert not check.isEnabled() and words in check.toolTip(), changes
    full = copy.deepcopy(BASE)
    full["workload"]["kind"] = "full_finetune"
    set_scenario(window, full)
    assert not check.isEnabled() and "base weights" in check.toolTip()
    full["parallelism"]["reentrant_checkpoint"] = True  # ticked: live, so it can be unticked
    set_scenario(window, full)
    assert check.isEnabled() and check.isChecked()


def test_hidden_for_serving(window) -> None:
    from tests.scenarios import VLLM

    set_scenario(window, VLLM)
    assert not row_visible(find(window, "check_reentrant_checkpoint"))
