"""The one binding helper: a widget <-> a dotted scenario path in :class:`ScenarioState`.

``binder.bind(spin, "parallelism.tensor")`` pushes the widget's edits into the state and the
state's changes back into the widget (signals blocked, so a refresh is not an edit). Errors
(:class:`ScenarioError`, whose ``field`` is a dotted path) are shown beside the bound widget.
Widgets other than spin boxes, combo boxes, check boxes and line edits bind when they offer
``valueChanged``, ``value()`` and ``setValue()``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

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


def _combo_set(combo: QComboBox, value: Any) -> None:
    index = combo.findData(value)
    if index >= 0:
        combo.setCurrentIndex(index)


def _adapter(widget: Any) -> tuple[Any, Callable[[], Any], Callable[[Any], None], bool]:
    """(signal, getter, setter, immediate) for a widget; bursts (spin boxes) are throttled."""
    if isinstance(widget, (QSpinBox, QDoubleSpinBox)):
        return widget.valueChanged, widget.value, widget.setValue, False
    if isinstance(widget, QComboBox):
        return (widget.currentIndexChanged, widget.currentData,
                lambda v: _combo_set(widget, v), True)
    if isinstance(widget, QAbstractButton):
        return widget.toggled, widget.isChecked, widget.setChecked, True
    if isinstance(widget, QLineEdit):
        return widget.editingFinished, widget.text, widget.setText, True
    return widget.valueChanged, widget.value, widget.setValue, not getattr(widget, "burst", False)


def _identity(value: Any) -> Any:
    return value


class Binder:
    """Keeps every binding of one window; maps error fields to the widget that shows them."""

    def __init__(self, state: ScenarioState) -> None:
        self.state = state
        self.bindings: list[Binding] = []
        state.scenarioChanged.connect(lambda _s: self.refresh())
        state.errorChanged.connect(self.show_error)

    def bind(self, widget: QWidget, path: str, *, to_state: Convert | None = None,
             from_state: Convert | None = None,
             extra: Callable[[Any], dict[str, Any]] | None = None,
             error_label: QLabel | None = None) -> Binding:
        """Bind ``widget`` to ``path``. ``to_state``/``from_state`` convert values (GiB <->
        bytes, 0 <-> None); ``extra(value)`` adds edits that go with this one."""
        signal, getter, setter, immediate = _adapter(widget)
        b = Binding(widget, path, to_state or _identity, from_state or _identity, getter,
                    setter, error_label)
        self.bindings.append(b)
        if not widget.toolTip():
            widget.setToolTip(tooltip_for(path))

        def pushed(*_args: Any) -> None:
            value = b.to_state(b.getter())
            edits = {path: value, **(extra(value) if extra else {})}
            for p, v in edits.items():
                self.state.edit(p, v)
            if immediate:
                self.state.flush()

        signal.connect(pushed)
        self._pull(b)
        return b

    def _pull(self, b: Binding) -> None:
        value = b.from_state(self.state.value(b.path))
        if value is None:
            return
        blocked = b.widget.blockSignals(True)
        try:
            b.setter(value)
        finally:
            b.widget.blockSignals(blocked)

    def refresh(self) -> None:
        """Show the state's values in every widget (after a load, an undo, a valid edit)."""
        for b in self.bindings:
            self._pull(b)

    def binding_for(self, field: str) -> Binding | None:
        """The binding that shows errors of ``field``: exact, else the closest enclosing path,
        else the first bound field inside it."""
        exact = [b for b in self.bindings if b.path == field]
        if exact:
            return exact[0]
        outer = [b for b in self.bindings if field.startswith(b.path + ".")]
        if outer:
            return max(outer, key=lambda b: len(b.path))
        inner = [b for b in self.bindings if field and b.path.startswith(field + ".")]
        return inner[0] if inner else None

    def show_error(self, error: Any) -> None:
        """Mark the field of ``error`` (a ScenarioError or None) and clear the others."""
        target = self.binding_for(error.field) if error is not None else None
        for b in self.bindings:
            bad = b is target
            if b.error_label is not None:
                b.error_label.setText(error.message if bad else "")
                b.error_label.setVisible(bad)
            set_invalid(b.widget, bad)
