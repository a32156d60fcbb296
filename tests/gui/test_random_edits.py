"""500 random edits across every panel (valid and invalid), with undo/redo, unit and tab
switches in between: nothing may raise (pytest-qt fails the test on an exception in a slot)."""

from __future__ import annotations

import random
from typing import Any

from PySide6.QtWidgets import QAbstractButton, QComboBox, QLineEdit

from gpusizer.core.model.presets import model_presets
from gpusizer.gui.binding import Binding
from gpusizer.gui.panels.preset_tree import PresetTree
from gpusizer.gui.quantity_field import QuantityField
from gpusizer.gui.size_list_field import SizeListField
from gpusizer.gui.widgets import MultiCheck

from .helpers import mismatches

EDITS = 500
SMALL = (1, 2, 3, 4, 6, 8, 16, 64)
TYPED = (
    "8",
    "32k",
    "1T",
    "1.5e12",
    "2 TB",
    "1,000",
    "lots",
    "",
    "-3",
    "0",
    "40 %",
    "1e400",
    "2147483648",
    "auto",
    "7",
)


def _edit(b: Binding, rng: random.Random) -> None:
    w: Any = b.widget
    if isinstance(w, QuantityField):
        pick = rng.random()
        if pick < 0.4:
            w.lineEdit().setText(rng.choice(TYPED))
            w.interpretText()
        elif pick < 0.7:
            w.stepBy(rng.choice((-3, -1, 1, 2, 10)))
        else:
            w.setValue(rng.choice(SMALL))
    elif isinstance(w, QComboBox):
        w.setCurrentIndex(rng.randrange(w.count()))
    elif isinstance(w, QAbstractButton):
        w.toggle()
    elif isinstance(w, QLineEdit):
        w.setText(rng.choice(["", "x", "Model ünïcode ✓", "a" * 300]))
        w.editingFinished.emit()
    elif isinstance(w, SizeListField):
        w.edit.setText(rng.choice(["", "1, 2, 4", "0", "x", "8 4 2 1", "9" * 30]))
        w.interpretText()
    elif isinstance(w, MultiCheck):
        w.boxes[rng.choice(list(w.boxes))].toggle()
    elif isinstance(w, PresetTree):
        pid = rng.choice(list(model_presets()))
        w.setValue(pid)
        w.valueChanged.emit(pid)


def _other(window: Any, rng: random.Random) -> None:
    action = rng.randrange(5)
    stack = window.state.undo_stack
    if action == 0:
        stack.undo()
    elif action == 1:
        stack.redo()
    elif action == 2:
        window.set_units(rng.choice(["GiB", "GB"]))
    elif action == 3:
        window.tabs.setCurrentIndex(rng.randrange(window.tabs.count()))
    else:
        window.state.flush()


def test_500_random_edits_never_raise(window, qtbot):
    rng = random.Random(20261129)
    bindings = window.binder.bindings
    for i in range(EDITS):
        _edit(rng.choice(bindings), rng)
        if rng.random() < 0.15:
            _other(window, rng)
        if rng.random() < 0.5:
            window.state.flush()
        if i % 25 == 0:
            qtbot.wait(1)  # let queued timers and repaints run too
        state = window.state
        assert state.estimate.scenario == state.scenario
        if i % 5 == 0:
            state.flush()
            assert mismatches(window.binder) == []  # the form shows the scenario
    window.state.flush()
    qtbot.wait(40)
    # Whatever happened, the window still shows a valid estimate and can go back to the start.
    while window.state.undo_stack.canUndo():
        window.state.undo_stack.undo()
    assert window.state.error is None


def test_nothing_but_the_bounded_memos_holds_old_scenarios(window, qtbot):
    """Window memory crept over 5,000 edits with the undo stack cleared.
    What holds on is the estimator's memos (core/memo.py: each cleared whole at its size, so
    memory rises to their high-water mark and stays; 1,303 of 1,306 live scenarios after 600
    edits): once they and the undo stack are cleared, only the window's own few are alive."""
    import gc

    from gpusizer.core import memo
    from gpusizer.core.model.specs import Scenario

    rng = random.Random(24)
    for i in range(150):
        _edit(rng.choice(window.binder.bindings), rng)
        if rng.random() < 0.15:
            _other(window, rng)
        window.state.flush()
        if i % 25 == 0:
            qtbot.wait(1)
    from gpusizer.gui.worker import BackgroundWorker

    for worker in window.findChildren(BackgroundWorker):  # a running search holds its scenarios
        worker.wait()
    qtbot.wait(10)
    window.state.undo_stack.clear()
    memo.clear_all()
    gc.collect()
    assert sum(isinstance(o, Scenario) for o in gc.get_objects()) <= 10
