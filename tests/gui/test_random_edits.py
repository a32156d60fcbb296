"""500 random edits across every panel (valid and invalid), with undo/redo, unit and tab
switches in between: nothing may raise (pytest-qt fails the test on an exception in a slot)."""

from __future__ import annotations

import random
from typing import Any

from PySide6.QtWidgets import QAbstractButton, QComboBox, QDoubleSpinBox, QLineEdit, QSpinBox

from gpusizer.core.presets import model_presets
from gpusizer.gui.binding import Binding
from gpusizer.gui.panels.preset_tree import PresetTree
from gpusizer.gui.widgets import MultiCheck

EDITS = 500
SMALL = (1, 2, 3, 4, 6, 8, 16, 64)


def _edit(b: Binding, rng: random.Random) -> None:
    w: Any = b.widget
    if isinstance(w, QSpinBox):
        pick = rng.random()
        value = rng.choice(SMALL) if pick < 0.7 else rng.randint(w.minimum(), min(w.maximum(),
                                                                                 200_000))
        w.setValue(max(w.minimum(), min(w.maximum(), value)))
    elif isinstance(w, QDoubleSpinBox):
        w.setValue(rng.uniform(w.minimum(), min(w.maximum(), 500.0)))
    elif isinstance(w, QComboBox):
        w.setCurrentIndex(rng.randrange(w.count()))
    elif isinstance(w, QAbstractButton):
        w.toggle()
    elif isinstance(w, QLineEdit):
        w.setText(rng.choice(["", "x", "Model ünïcode ✓", "a" * 300]))
        w.editingFinished.emit()
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
    window.state.flush()
    qtbot.wait(40)
    # Whatever happened, the window still shows a valid estimate and can go back to the start.
    while window.state.undo_stack.canUndo():
        window.state.undo_stack.undo()
    assert window.state.error is None
