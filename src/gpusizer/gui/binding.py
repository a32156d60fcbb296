"""The one binding helper: a widget <-> a dotted scenario path in :class:`ScenarioState`.

``binder.bind(spin, "parallelism.tensor")`` pushes the widget's edits into the state and the
state's changes back into the widget (signals blocked, so a refresh is not an edit). Errors
(:class:`ScenarioError`, whose ``field`` is a dotted path) are shown beside the bound widget.
Widgets other than spin boxes, combo boxes, check boxes and line edits bind when they offer
``valueChanged``, ``value()`` and ``setValue()``. Null is shown as the widget's own null choice
(:func:`shows_none`: a combo box's item whose data is None, a special value text), so an item
may carry None as its data: no converter is needed for "engine default".
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from .glossary import tooltip_for
from .state import ScenarioState
from .style import set_invalid

Convert = Callable[[Any], Any]
log = logging.getLogger(__name__)


@dataclass
class Binding:
    """One widget bound to one path, with its converters and its error label."""

    widget: QWidget
    path: str
    to_state: Convert
    from_state: Convert
    getter: Callable[[], Any]
    setter: Callable[[Any], None]
    error_label: QLabel | None = None
    text_error: str = ""  # the widget cannot read what was typed (before any edit)


def _none_index(combo: QComboBox) -> int:
    """The item that stands for null (its data is None: "engine default"), or -1. Looked up by
    identity, not with ``findData``, whose QVariant comparison differs between Qt releases;
    separators (no data either, and never selectable) are not it."""
    model = combo.model()
    for i in range(combo.count()):
        if combo.itemData(i) is None and model.flags(model.index(i, 0)) & Qt.ItemFlag.ItemIsSelectable:
            return i
    return -1


def shows_none(widget: QWidget) -> bool:
    """Whether ``widget`` has a way to show null: a combo box with an item whose data is None,
    a spin box with a special value text (Qt shows it at the minimum), or a field with a
    ``none_text`` (QuantityField, SizeListField). Other widgets keep what they show."""
    if isinstance(widget, QComboBox):
        return _none_index(widget) >= 0
    if isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        return bool(widget.specialValueText())
    return bool(getattr(widget, "none_text", ""))


def _combo_set(combo: QComboBox, value: Any) -> None:
    """Select ``value`` (None: the item whose data is None); one the list does not hold (a user
    GPU from another machine, an id of a newer version) is added, so the field never shows
    another value."""
    index = _none_index(combo) if value is None else combo.findData(value)
    if index < 0:
        combo.addItem(str(value), value)
        index = combo.count() - 1
    combo.setCurrentIndex(index)


def _line_set(edit: QLineEdit, value: Any) -> None:
    text = plain_text(value)
    if edit.text() != text:  # an equal text would still move the cursor
        edit.setText(text)
        if not edit.hasFocus():
            edit.setCursorPosition(0)  # a long name shows its start, not its end


def as_rich(text: str) -> str:
    """Text shown literally where Qt would guess rich text (message boxes, tooltips): escaped
    and wrapped, so a name like ``<img src=...>`` from a shared file is shown, not loaded."""
    body = html.escape(plain_text(text), quote=False).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{body}</p>"


def plain_text(value: Any) -> str:
    """A string Qt can show as it is: lone surrogates (from an escaped ``\\ud800`` in a
    file), which Qt would silently drop, become U+FFFD."""
    text = str(value)
    return (
        text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        if any("\ud800" <= ch <= "\udfff" for ch in text)
        else text
    )


def _spin_get(spin: QSpinBox | QDoubleSpinBox) -> Any:
    """The spin box's value; None at its minimum while it shows a special value text there."""
    value = spin.value()
    return None if spin.specialValueText() and value == spin.minimum() else value


def _spin_set(spin: Any, value: Any) -> None:  # QSpinBox | QDoubleSpinBox: an int or a float
    spin.setValue(spin.minimum() if value is None else value)


def _adapter(widget: Any) -> tuple[Any, Callable[[], Any], Callable[[Any], None], bool]:
    """(signal, getter, setter, immediate) for a widget; bursts (spin boxes) are throttled.
    Every setter takes None where the widget can show it (:func:`shows_none`)."""
    if isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        return widget.valueChanged, lambda: _spin_get(widget), lambda v: _spin_set(widget, v), False
    if isinstance(widget, QComboBox):
        return (widget.currentIndexChanged, widget.currentData, lambda v: _combo_set(widget, v), True)
    if isinstance(widget, QAbstractButton):
        return widget.toggled, widget.isChecked, widget.setChecked, True
    if isinstance(widget, QLineEdit):
        return widget.editingFinished, widget.text, lambda v: _line_set(widget, v), True
    return widget.valueChanged, widget.value, widget.setValue, not getattr(widget, "burst", False)


def _identity(value: Any) -> Any:
    return value


class Binder:
    """Keeps every binding of one window; maps error fields to the widget that shows them."""

    def __init__(self, state: ScenarioState) -> None:
        self.state = state
        self.bindings: list[Binding] = []
        # fields with no widget of their own -> the bound field their errors show beside (the
        # draft model of speculative decoding, set in the file: beside the method)
        self.shown_at: dict[str, str] = {}
        self._error: Any = None
        # After every attempt, valid or not: a pending edit of a block (MoE on) must reach
        # the fields inside it too, so the form always shows what the state holds.
        state.changed.connect(self.refresh)
        state.errorChanged.connect(self.show_error)
        state.replaced.connect(self.drop_typed)

    def bind(
        self,
        widget: QWidget,
        path: str,
        *,
        to_state: Convert | None = None,
        from_state: Convert | None = None,
        extra: Callable[[Any], dict[str, Any]] | None = None,
        error_label: QLabel | None = None,
        label: str = "",
    ) -> Binding:
        """Bind ``widget`` to ``path``. ``to_state``/``from_state`` convert values (GiB <->
        bytes, 0 <-> None); ``extra(value)`` adds edits that go with this one; ``label`` names
        the field in the undo history."""
        signal, getter, setter, immediate = _adapter(widget)
        b = Binding(widget, path, to_state or _identity, from_state or _identity, getter, setter, error_label)
        self.bindings.append(b)
        if label:
            self.state.labels.setdefault(path, label)
        tip = tooltip_for(path)
        if tip and widget.toolTip() and tip not in widget.toolTip():
            widget.setToolTip(f"{tip} {widget.toolTip()}")
        elif not widget.toolTip():
            widget.setToolTip(tip)
        text_error = getattr(widget, "textError", None)
        if text_error is not None:
            text_error.connect(lambda message: self._text_error(b, message))

        def pushed(*_args: Any) -> None:
            value = b.to_state(b.getter())
            edits = {path: value, **(extra(value) if extra else {})}
            for p, v in edits.items():
                self.state.edit(p, v)
            if immediate:
                self.state.flush()

        signal.connect(pushed)
        try:
            self._pull(b)
        except Exception:  # a value this widget cannot show must not stop the window
            log.exception("cannot show %s", path)
        return b

    def _pull(self, b: Binding) -> None:
        """Show the state's value in ``b``'s widget, signals blocked (a refresh is not an edit).
        Null selects the widget's own null choice (:func:`shows_none`), so Undo, an opened file
        or a new scenario that leaves the field out brings back "engine default"; a widget
        with no such choice keeps what it shows (a hidden custom-architecture field)."""
        value = b.from_state(self.state.value(b.path))
        if value is None and not shows_none(b.widget):
            return
        blocked = b.widget.blockSignals(True)
        try:
            b.setter(value)
        finally:
            b.widget.blockSignals(blocked)

    def refresh(self) -> None:
        """Show the state's values in every widget (after a load, an undo, a valid edit).
        One widget that cannot show its value must not stop the others from refreshing."""
        for b in self.bindings:
            try:
                self._pull(b)
            except Exception:  # a value a widget cannot hold: logged, the rest still refresh
                log.exception("cannot show %s", b.path)

    def drop_typed(self, *_loaded: bool) -> None:
        """A whole scenario replaces the form (New, Open, an import, Undo): text that could
        not be read belongs to the old one, so its red message goes with it."""
        for b in self.bindings:
            if b.text_error:
                b.text_error = ""
                discard = getattr(b.widget, "discard_text", None)
                if callable(discard):
                    discard()
        self.show_error(None)

    def _text_error(self, b: Binding, message: str) -> None:
        b.text_error = message
        self.show_error(self._error)

    def binding_for(self, field: str) -> Binding | None:
        """The binding that shows errors of ``field``: exact, else the closest enclosing path,
        else the first bound field inside it; a field of :attr:`shown_at` at its widget."""
        field = next((t for p, t in self.shown_at.items() if field == p or field.startswith(p + ".")), field)
        exact = [b for b in self.bindings if b.path == field]
        if exact:
            return exact[0]
        outer = [b for b in self.bindings if field.startswith(b.path + ".")]
        if outer:
            return max(outer, key=lambda b: len(b.path))
        inner = [b for b in self.bindings if field and b.path.startswith(field + ".")]
        return inner[0] if inner else None

    def show_error(self, error: Any) -> None:
        """Mark the field of ``error`` (a ScenarioError or None) and every field whose text
        cannot be read; clear the others."""
        self._error = error
        target = self.binding_for(error.field) if error is not None else None
        for b in self.bindings:
            message = b.text_error or (error.message if b is target else "")
            if b.error_label is not None:
                b.error_label.setText(message)
                b.error_label.setVisible(bool(message))
            set_invalid(b.widget, bool(message))
