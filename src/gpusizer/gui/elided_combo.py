"""A combo box whose shown choice is cut with an ellipsis where the field is too narrow, and
whose tooltip then starts with the whole choice.

Qt's combo box clips its text at the field's edge with no mark: at 1024 px the GPU field
showed "Apple M3 Ultra 512GB (80-core GPU)" for "Apple M3 Ultra 512GB (80-core GPU) — 384.0
GiB usable", a cut a user cannot see. ``QFontMetrics.elidedText`` marks it; the hover shows
the whole choice over the field's own help (Qt documentation, QComboBox::paintEvent and
QStyle::CE_ComboBoxLabel: the label is drawn in the SC_ComboBoxEditField rectangle).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QHelpEvent, QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QToolTip


class ElidedComboBox(QComboBox):
    """Draws its current text elided at the right to fit; a tooltip names the whole text."""

    def _label_width(self) -> int:
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, opt, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        icon = opt.iconSize.width() + 4 if not opt.currentIcon.isNull() else 0
        return max(field.width() - icon, 0)

    def shown_text(self) -> str:
        """The current text as drawn: whole, or cut with "…" to the field's width."""
        right = Qt.TextElideMode.ElideRight
        return self.fontMetrics().elidedText(self.currentText(), right, self._label_width())

    def is_elided(self) -> bool:
        return self.shown_text() != self.currentText()

    def full_tooltip(self) -> str:
        """The hover text: the whole choice first where it is cut, then the field's help."""
        own = self.toolTip()
        if not self.is_elided():
            return own
        return f"{self.currentText()}\n\n{own}" if own else self.currentText()

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.isEditable():
            super().paintEvent(event)
            return
        painter = QStylePainter(self)
        opt = QStyleOptionComboBox()
        self.initStyleOption(opt)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, opt)
        opt.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, opt)

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ToolTip and isinstance(e, QHelpEvent) and self.is_elided():
            QToolTip.showText(e.globalPos(), self.full_tooltip(), self)
            return True
        return super().event(e)
