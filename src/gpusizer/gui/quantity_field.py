"""A number field that reads what people type (``1T``, ``32k``, ``2 TB``: io/quantities.py),
holds any value the core accepts (Python ints of any size, not Qt's 32-bit ones), and steps
within the core's own limits (gui/limits.py).

Text it cannot read stays on screen, marked invalid with the parser's message (``textError``);
the field keeps its last good value until the text is fixed. A value from the scenario is
always shown as it is, never clamped to a range.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QValidator
from PySide6.QtWidgets import QAbstractSpinBox, QWidget

from ..core.errors import ScenarioError
from ..io.quantities import KINDS, compact_quantity, describe, format_quantity, parse_quantity
from .limits import Limits, field_limits
from .text_error import TextErrorMixin
from .wheel import NoWheelMixin

Number = int | float


_SINGULAR = {"tokens": "token", "GPUs": "GPU", "days": "day"}  # a bound of one, in words


def _ends_with_unit(text: str, unit: str) -> bool:
    """``text`` ends with the field's ``unit`` as a word of its own (``2.5 s``, ``2.5s``), not
    as the end of one: "lots" in a seconds field was read as "lot" and refused as "lot"."""
    if not unit or not text.lower().endswith(unit.lower()):
        return False
    before = text[: -len(unit)]
    return not before or not (before[-1].isalpha() and unit[0].isalpha())


class QuantityField(TextErrorMixin, NoWheelMixin, QAbstractSpinBox):
    """``value()`` is an int or float in the scenario's own unit (tokens, bytes, a fraction),
    or None for the ``none_text`` choice ("auto"). ``valueChanged(object)`` after a change
    (typed, stepped or set); ``textError(str)`` with the message while the text is unreadable
    ("" once it is fixed)."""

    valueChanged = Signal(object)
    textError = Signal(str)
    burst = True  # held arrows: the state throttles the edits

    def __init__(
        self,
        kind: str,
        path: str = "",
        *,
        step: Number = 1,
        unit: str = "",
        none_text: str = "",
        minimum: Number | None = None,
        maximum: Number | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.kind, self.path, self.step, self.unit = kind, path, step, unit
        self.none_text = none_text
        core = field_limits(path) if path else Limits()
        self.limits = Limits(
            core.lo if minimum is None else minimum,
            core.hi if maximum is None else maximum,
            core.lo_open and minimum is None,
            core.hi_open and maximum is None,
            core.optional or bool(none_text),
        )
        self._value: Number | None = None
        self._shown = ""
        self.error = ""
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccelerated(True)
        self.setKeyboardTracking(False)
        self.setCorrectionMode(QAbstractSpinBox.CorrectionMode.CorrectToPreviousValue)
        self.setToolTip(describe(kind))
        # Focus out reaches us through the line edit; Return and Enter do not (keyPressEvent).
        self.lineEdit().editingFinished.connect(self.interpretText)

    # -- value -------------------------------------------------------------------------------
    def value(self) -> Number | None:
        return self._value

    def setValue(self, value: Any) -> None:
        """Show ``value`` as it is (no clamping); emits valueChanged when it changed."""
        self._hold(value, self._differs(value))

    def _differs(self, value: Number | None) -> bool:
        """A change of value or of type: 1 -> 1.0 is shown and emitted."""
        return value != self._value or type(value) is not type(self._value)

    def setSpecialValueText(self, text: str) -> None:  # QAbstractSpinBox's name
        """The text shown for None (a default resolved elsewhere: "vLLM default: 0.92")."""
        self.none_text = text
        if self._value is None and not self.error:
            self._show()

    def specialValueText(self) -> str:  # QAbstractSpinBox's name
        return self.none_text

    def text_for(self, value: Number | None) -> str:
        if value is None:
            return self.none_text
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return str(value)  # a refused value held as it is ("8", true, a list): not a quantity
        text = format_quantity(value, self.kind)
        return f"{text} {self.unit}" if self.unit and not text.endswith(self.unit) else text

    def limit_text(self, value: Number) -> str:
        """A bound as this field writes quantities (``64M tokens``, not ``6.71089e+07``)."""
        if self.kind == "percent":
            return format_quantity(value, self.kind)
        text = compact_quantity(value, self.kind)
        unit = _SINGULAR.get(self.unit, self.unit) if value == 1 else self.unit  # "at least 1 token"
        return f"{text} {unit}" if unit and not text.endswith(unit) else text

    def _show(self) -> None:
        self._shown = self.text_for(self._value)
        self._set_error("")
        self.lineEdit().setText(self._shown)

    # -- typing --------------------------------------------------------------------------------
    def parse(self, text: str) -> Number | None:
        """The value of ``text`` in this field; ScenarioError naming the field otherwise."""
        raw = text.strip()
        if self.none_text and raw.lower() in ("", self.none_text.lower()):
            return None
        if _ends_with_unit(raw, self.unit):
            raw = raw[: -len(self.unit)].strip()
        value = parse_quantity(raw, self.kind, self.path or self.objectName())
        if not self.limits.contains(value):
            bounds = self.limits.text(self.limit_text)
            raise ScenarioError(self.path, f"must be {bounds}; got {text.strip()!r}")
        return value

    def interpretText(self) -> None:
        """Read the typed text (Enter, focus out): a new value, or an error shown beside."""
        text = self.lineEdit().text()
        if text == self._shown and not self.error:
            return  # not edited: re-reading a rounded display must not change the value
        try:
            value = self.parse(text)
        except ScenarioError as exc:
            self._set_error(exc.message)
            return
        self._set_error("")
        self._hold(value, self._differs(value))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter commits what was typed, as in every spin box: QAbstractSpinBox handles Return
        itself (its private interpret, not this class's interpretText) and never lets the line
        edit emit editingFinished, so the value would wait for the focus to leave."""
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.interpretText()
        super().keyPressEvent(event)

    def validate(self, text: str, pos: int) -> QValidator.State:  # type: ignore[override]
        # PySide6 accepts a bare state; its stub wants (state, text, pos).
        return QValidator.State.Acceptable  # anything may be typed; interpretText judges it

    def fixup(self, text: str) -> str:
        return text

    # -- stepping ------------------------------------------------------------------------------
    def _bounded(self, value: Number) -> Number:
        lo, hi = self.limits.lo, self.limits.hi
        if lo is not None and (value < lo or (self.limits.lo_open and value <= lo)):
            value = lo + (self.step if self.limits.lo_open else 0)
        if hi is not None and value > hi:
            value = hi
        return value

    def _steppable(self) -> bool:
        """Whether the arrows may step from what the field holds: no unread text, and a number
        or None. A value the core refused (``"8"``, ``true``, NaN, a list from a scenario edit)
        is shown as it is until it is fixed; the arrows cannot add to it (comparing it with the
        bounds raised TypeError on every repaint)."""
        v = self._value
        number = isinstance(v, (int, float)) and not isinstance(v, bool) and v == v
        return not self.error and (v is None or number)

    def stepBy(self, steps: int) -> None:
        if not self._steppable():
            return
        start = self._value
        lo = self.limits.lo
        if (
            start is not None
            and steps < 0
            and self.none_text
            and lo is not None
            and start + steps * self.step < lo + (self.step if self.limits.lo_open else 0)
        ):
            self.setValue(None)  # below the smallest value: the "auto" choice
            return
        if start is None and steps < 0:
            return
        if start is None:
            target: Number = self._bounded(self.limits.lo if self.limits.lo is not None else 0)
        else:
            target = self._bounded(start + steps * self.step)
            if isinstance(target, float):
                target = round(target, 12)  # 0.41, not 0.41000000000000003
        if not KINDS[self.kind].integer and isinstance(target, int) and self.kind != "count":
            target = float(target)
        if target != start:
            self.setValue(target)

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        flags = QAbstractSpinBox.StepEnabledFlag.StepNone
        if self.isReadOnly() or not self._steppable():
            return flags
        v, lo, hi = self._value, self.limits.lo, self.limits.hi
        if v is None or hi is None or v < hi:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepUpEnabled
        down = v is not None and (lo is None or v > lo or bool(self.none_text))
        if down:
            flags |= QAbstractSpinBox.StepEnabledFlag.StepDownEnabled
        return flags
