"""The "Recurrent mixers whole on each TP rank" check box (``parallelism.replicated_mixers``) as a
reader sees it. Before: on a dense model (Llama 3.1 8B, screenshot of the Parallelism panel) and
on a hybrid model at TP 1 the box was greyed (or live at TP 1, where it prices nothing:
core/speed/train_mixers.py adds (TP - 1) x the mixers' work) and its tooltip did not say why.
Now it is enabled only for a hybrid model split by TP (or while ticked, so it can be unticked),
and a disabled box's tooltip ends with the reason (gui/why_disabled.py)."""

from __future__ import annotations

from tests.core.hostile_inputs import at
from tests.core.test_replicated_mixers import DENSE_TRAIN, HYBRID

from .helpers import find, mismatches, set_scenario

PATH = "parallelism.replicated_mixers"


def _row(window):
    return find(window, "check_replicated_mixers")


def test_a_dense_model_says_why_the_box_is_off(window) -> None:
    set_scenario(window, DENSE_TRAIN)
    check = _row(window)
    assert check.isVisibleTo(window) and not check.isEnabled()
    tip = check.toolTip()
    assert "Miles" in tip  # the definition stays first (gui/glossary.py)
    assert "Not available: the model has no recurrent mixers" in tip
    assert mismatches(window.binder) == []


def test_a_hybrid_model_at_tp_1_has_nothing_to_replicate(window) -> None:
    set_scenario(window, at(HYBRID, "parallelism.tensor", 1))
    check = _row(window)
    assert not check.isEnabled()
    assert "Not available: tensor parallel (TP) is 1" in check.toolTip()
    # TP raised in the panel: the box comes alive and its tooltip loses the reason
    find(window, "spin_tensor_parallel").setValue(4)
    window.state.flush()
    assert window.state.scenario.parallelism.tensor == 4
    assert check.isEnabled() and "Not available" not in check.toolTip()


def test_a_ticked_box_stays_enabled_to_be_unticked(window) -> None:
    # a file may hold the field ticked at TP 1 (the core accepts it; it prices nothing there)
    set_scenario(window, at(at(HYBRID, "parallelism.tensor", 1), PATH, True))
    check = _row(window)
    assert check.isEnabled() and check.isChecked()
    assert "Not available" not in check.toolTip()
    undo_before = window.state.undo_stack.count()
    check.setChecked(False)
    window.state.flush()
    assert window.state.scenario.parallelism.replicated_mixers is False
    assert not check.isEnabled()  # now off at TP 1: greyed, the reason in the tooltip
    assert "Not available: tensor parallel (TP) is 1" in check.toolTip()
    assert window.state.undo_stack.count() == undo_before + 1  # one edit, the tooltips none


def test_the_hybrid_case_at_tp_4_reads_as_before(window) -> None:
    set_scenario(window, HYBRID)
    check = _row(window)
    assert check.isEnabled() and not check.isChecked()
    assert "Not available" not in check.toolTip() and "Miles" in check.toolTip()
