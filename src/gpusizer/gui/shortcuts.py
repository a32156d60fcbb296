"""The window's shortcuts work wherever the focus is.

A focused text field claims some keys before the window's actions see them: on X11 a line edit
binds Ctrl+E to "end of line" (Qt's KB_X11 key bindings, qplatformtheme.cpp) and every line edit
claims Ctrl+Z / Ctrl+Shift+Z for its own undo, even when it has nothing to undo; the key then
does nothing at all. Qt asks the focused widget first with a ``ShortcutOverride`` event
(QWindowSystemInterface::handleShortcutEvent); this filter answers it for the window when the
key is one of the window's shortcuts, so Export Chart, Undo and the rest always work. A field's
own undo still wins while the field has typing to undo.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QComboBox, QLineEdit, QWidget

_UNDO = QKeySequence.StandardKey.Undo
_REDO = QKeySequence.StandardKey.Redo


def _line_edit(widget: QObject) -> QLineEdit | None:
    """The line edit that edits text in ``widget`` (itself, a spin box's, an editable combo's)."""
    if isinstance(widget, QLineEdit):
        return widget
    if isinstance(widget, (QAbstractSpinBox, QComboBox)):
        return widget.lineEdit()
    return None


def _field_undoes(edit: QLineEdit, key: QKeyEvent) -> bool:
    """Whether Undo/Redo pressed in ``edit`` has typing of the field's own to undo/redo."""
    if key.matches(_UNDO):
        return edit.isUndoAvailable()
    if key.matches(_REDO):
        return edit.isRedoAvailable()
    return False


class WindowShortcuts(QObject):
    """Installed on the application for one window: keys bound to that window's actions go to
    the actions, not to the focused text field."""

    def __init__(self, window: QWidget, listen: bool = True) -> None:
        super().__init__(window)
        self.window = window
        self.listening = False
        if listen:
            self.listen()

    def listen(self) -> None:
        """Start filtering the application's events (once). Every event of the application
        passes through a Python call here, ~5,000 of them before the window's first chart
        (~0.015 s of CPU); the window starts listening when its charts start."""
        app = QApplication.instance()
        if app is not None and not self.listening:
            self.listening = True
            app.installEventFilter(self)

    def keys(self) -> set[QKeySequence]:
        """Every shortcut of the window's actions (read each time: actions come and go)."""
        return {
            key for act in self.window.findChildren(QAction) if act.isEnabled() for key in act.shortcuts()
        }

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        if not isinstance(watched, QWidget) or watched.window() is not self.window:
            return False
        edit = _line_edit(watched)
        if edit is None or _field_undoes(edit, event):
            return False
        pressed = QKeySequence(event.keyCombination())
        if pressed in self.keys():
            event.ignore()  # not the field's: Qt's shortcut map gives it to the action
            return True
        return False
