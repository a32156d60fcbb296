"""Fields that ignore the mouse wheel until focused: scrolling the left column must not change
the value under the mouse pointer."""

from __future__ import annotations

from PySide6.QtGui import QWheelEvent


class NoWheelMixin:
    """Put first in the bases of a Qt input widget."""

    def wheelEvent(self, event: QWheelEvent) -> None:
        if self.hasFocus():  # type: ignore[attr-defined]
            super().wheelEvent(event)  # type: ignore[misc]
        else:
            event.ignore()
