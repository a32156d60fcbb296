"""The mouse wheel and the framework list: scrolling the form never changes a field that does not
have the keyboard focus, and a framework that does not run the workload kind can be reached
neither by wheel nor by keyboard; the core refuses it for every surface alike."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario

from .helpers import find


def _wheel(widget: Any, steps: int = -1) -> None:
    """A real wheel event (one notch per step, down for negative) at the widget's centre."""
    centre = QPointF(widget.rect().center())
    glob = QPointF(widget.mapToGlobal(QPoint(int(centre.x()), int(centre.y()))))
    for _ in range(abs(steps)):
        event = QWheelEvent(
            centre,
            glob,
            QPoint(0, 0),
            QPoint(0, 120 if steps > 0 else -120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(widget, event)


def _inference_on_llama_cpp(window: Any) -> Any:
    window.state.set_scenario(
        parse_scenario(
            {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "llama.cpp"}
        )
    )
    window.state.flush()
    return find(window, "combo_framework")


def test_wheel_over_an_unfocused_combo_leaves_it(window, qtbot):
    combo = _inference_on_llama_cpp(window)
    window.setFocus()
    assert not combo.hasFocus()
    _wheel(combo, -3)
    window.state.flush()
    assert window.state.scenario.framework == "llama.cpp"


def test_wheel_on_a_focused_combo_skips_frameworks_that_cannot_serve(window, qtbot):
    combo = _inference_on_llama_cpp(window)
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus, timeout=1000)
    seen = set()
    for steps in (-1, -1, -1, 1, 1, 1, 1, 1, 1):
        _wheel(combo, steps)
        window.state.flush()
        seen.add(combo.currentData())
    from gpusizer.core.registry.frameworks import FRAMEWORKS

    assert len(seen) > 1 and all(FRAMEWORKS[f].serves for f in seen), seen
    assert window.state.error is None


@pytest.mark.parametrize(
    ("kind", "framework"), [("inference", "axolotl"), ("inference", "torchtune"), ("lora", "vllm")]
)
def test_core_refuses_a_framework_that_does_not_run_the_kind(kind, framework):
    with pytest.raises(ScenarioError) as err:
        parse_scenario(
            {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": kind}, "framework": framework}
        )
    assert err.value.field == "framework"
    assert framework in str(err.value)


def test_a_click_on_blank_space_keeps_the_place_in_the_form(window, qtbot):
    """Clicking the form's margin or a caption, then Tab, goes on from the field that had the
    focus: it never jumps back to the first field at the top of the form."""
    from PySide6.QtTest import QTest

    field = find(window, "combo_framework")
    window.left.ensureWidgetVisible(field)
    column = find(window, "left_column")
    bar = window.left.verticalScrollBar()
    y = field.mapTo(column, QPoint(0, field.height() // 2)).y()
    for x in (3, 60):  # the column's margin, the field's caption
        field.setFocus()
        qtbot.waitUntil(field.hasFocus, timeout=1000)
        top = bar.value()
        target = column.childAt(QPoint(x, y)) or column
        local = target.mapFrom(column, QPoint(x, y)) if target is not column else QPoint(x, y)
        QTest.mouseClick(target, Qt.MouseButton.LeftButton, pos=local)
        QTest.keyClick(QApplication.focusWidget() or window, Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        assert now is not None and now.objectName() != "edit_scenario_name", (x, now)
        assert bar.value() >= top > 0
