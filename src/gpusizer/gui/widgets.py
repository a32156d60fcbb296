"""Small widgets the panels are built from: a form with an error line under each field,
combo boxes that ignore the wheel unless focused (number fields: quantity_field.py), a row of
check boxes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from .binding import Binder
from .elided_combo import ElidedComboBox
from .glossary import tooltip_for
from .style import set_role
from .wheel import NoWheelMixin


class ComboBox(NoWheelMixin, ElidedComboBox):
    """Choice field; the wheel changes it only once focused; a choice too long for the field
    is cut with "…" and named in full by the tooltip (gui/elided_combo.py)."""


class DoubleSpinBox(NoWheelMixin, QDoubleSpinBox):
    """Decimal field for a view setting; the wheel changes it only once focused."""


def float_spin(lo: float, hi: float, decimals: int = 2, suffix: str = "", special: str = "") -> DoubleSpinBox:
    """A decimal spin box for a setting of a view (the Hardware tab's margin), not for a
    scenario field: those use QuantityField, which holds any value the core accepts.
    ``special`` is shown at ``lo``."""
    w = DoubleSpinBox()
    w.setRange(lo, hi)
    w.setDecimals(decimals)
    w.setSuffix(suffix)
    w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    w.setGroupSeparatorShown(True)
    w.setAccelerated(True)
    if special:
        w.setSpecialValueText(special)
    return w


def combo(items: Iterable[tuple[str, Any]]) -> ComboBox:
    """A combo box of (label, data) items."""
    w = ComboBox()
    w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    # Long item labels must not widen the left column: the popup shows them in full.
    w.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    w.setMinimumContentsLength(12)
    for label, data in items:
        w.addItem(label, data)
    fit_popup(w)
    return w


def fit_popup(combo: QComboBox) -> None:
    """Make the dropdown list wide enough for its longest entry."""
    metrics = combo.view().fontMetrics()
    widest = max((metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count())), default=0)
    combo.view().setMinimumWidth(widest + 48)  # room for the scroll bar and the margins


class MultiCheck(QWidget):
    """A grid of check boxes whose value is the tuple of checked ids, in the given order."""

    valueChanged = Signal(object)

    def __init__(
        self,
        ids: Sequence[str],
        columns: int = 4,
        parent: QWidget | None = None,
        tips: Mapping[str, str] | None = None,
    ):
        """``tips``: each box's own tooltip (what a short id stands for); a box without one
        shows the field's (gui/glossary.py, set by the binder on the grid)."""
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(6)
        self.boxes: dict[str, QCheckBox] = {}
        for i, id_ in enumerate(ids):
            box = QCheckBox(id_)
            box.setObjectName(f"check_target_{id_}")
            if tips and id_ in tips:
                box.setToolTip(tips[id_])
            box.toggled.connect(lambda _c: self.valueChanged.emit(self.value()))
            grid.addWidget(box, i // columns, i % columns)
            self.boxes[id_] = box

    def value(self) -> tuple[str, ...]:
        return tuple(i for i, b in self.boxes.items() if b.isChecked())

    def setValue(self, value: Sequence[str]) -> None:
        for id_, box in self.boxes.items():
            box.blockSignals(True)
            box.setChecked(id_ in value)
            box.blockSignals(False)


class Form:
    """A titled group of labelled fields, each with a (hidden) error line under it."""

    def __init__(
        self, binder: Binder, title: str, parent: QWidget | None = None, framed: bool = True
    ) -> None:
        """``framed`` False: a plain widget, no frame or title (a collapsible section's fields,
        gui/collapsible.py), its rows starting where the enclosing form's do."""
        self.binder = binder
        self.box: QWidget = QGroupBox(title, parent) if framed else QWidget(parent)
        set_role(self.box, "card")
        # A bold title; rows get the normal weight back explicitly (fonts are inherited).
        bold = QFont(self.box.font())
        bold.setBold(True)
        self.box.setFont(bold)
        self._normal = QFont(bold)
        self._normal.setBold(False)
        self.layout = QFormLayout(self.box)
        self.layout.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.layout.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.layout.setHorizontalSpacing(10)
        self.layout.setVerticalSpacing(6)
        self.rows: dict[str, QWidget] = {}
        self.labels: dict[str, QLabel] = {}

    def add(
        self, label: str, widget: QWidget, path: str | None = None, name: str = "", key: str = "", **bind: Any
    ) -> QWidget:
        """Add a row; bind it to ``path`` when given. ``key`` names the row for show/enable
        (default: the path)."""
        if name:
            widget.setObjectName(name)
        field = QWidget()
        col = QVBoxLayout(field)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(2)
        col.addWidget(widget)
        error = QLabel()
        error.setTextFormat(Qt.TextFormat.PlainText)  # messages quote what was typed
        error.setObjectName("error_" + (name or key or str(path)))
        set_role(error, "error")
        error.setWordWrap(True)
        error.hide()
        col.addWidget(error)
        caption = QLabel(label)
        caption.setToolTip(tooltip_for(path or ""))
        caption.setFont(self._normal)
        field.setFont(self._normal)
        self.layout.addRow(caption, field)
        key = key or path or name
        self.rows[key], self.labels[key] = field, caption
        if path:
            shown = label or (widget.text() if isinstance(widget, QAbstractButton) else "")
            self.binder.bind(widget, path, error_label=error, label=shown.rstrip(":"), **bind)
        return widget

    def add_widget(self, widget: QWidget, key: str) -> QWidget:
        """A full-width row (a label, a list...)."""
        widget.setFont(self._normal)
        self.layout.addRow(widget)
        self.rows[key] = widget
        return widget

    def show(self, key: str, visible: bool) -> None:
        """Show or hide a row (label included)."""
        self.layout.setRowVisible(self.rows[key], visible)

    def enable(self, key: str, enabled: bool) -> None:
        self.rows[key].setEnabled(enabled)
        if key in self.labels:
            self.labels[key].setEnabled(enabled)


def align_captions(forms: Sequence[Form]) -> None:
    """One caption width for every form, so fields line up from panel to panel."""
    captions = [c for f in forms for c in f.labels.values()]
    width = max((c.sizeHint().width() for c in captions), default=0)
    for c in captions:
        c.setMinimumWidth(width)
