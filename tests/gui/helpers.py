"""Small helpers shared by the GUI tests."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget


def find(window: Any, name: str) -> Any:
    """The child widget with this object name (fails loudly when missing)."""
    w = window.findChild(QWidget, name)
    assert w is not None, f"no widget named {name}"
    return w


def row_visible(widget: QWidget) -> bool:
    """Whether a form field is shown (its row container is not hidden)."""
    w: QWidget | None = widget
    while w is not None and w.objectName() != "left_column":
        if w.isHidden():
            return False
        w = w.parentWidget()
    return True
