"""Typed text a field cannot read: the field keeps its last good value while the text stays on
screen with the reason (``textError``), until the text is fixed or discarded."""

from __future__ import annotations

from typing import Any


class TextErrorMixin:
    """Put before the Qt base of a typed field. The field declares ``textError = Signal(str)``,
    sets ``self.error = ""`` and shows its value again in ``_show`` (which clears the error)."""

    error: str
    textError: Any  # the widget class's Signal(str): "" once the text is readable again
    valueChanged: Any  # the widget class's Signal(object)
    _value: Any

    def _show(self) -> None:
        raise NotImplementedError

    def discard_text(self) -> None:
        """Drop unreadable typed text and its message; the field shows its value again."""
        if self.error:
            self._show()

    def _hold(self, value: Any, changed: bool) -> None:
        """Hold and show ``value``, emitting valueChanged when it ``changed``. An unchanged value
        set while the typed text is unreadable leaves that text (what the user is fixing) on
        screen; a readable text clears the error before it is held."""
        if not changed and self.error:
            return
        self._value = value
        self._show()
        if changed:
            self.valueChanged.emit(value)

    def _set_error(self, message: str) -> None:
        if message != self.error:
            self.error = message
            self.textError.emit(message)
