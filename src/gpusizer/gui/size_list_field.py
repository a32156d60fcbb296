"""A field for a list of whole numbers typed comma-separated (``1, 2, 4, 8``), such as the
batch sizes an engine captures CUDA graphs for (``serving.cuda_graph_batch_sizes``).

It binds like any field (gui/binding.py): ``value()`` is a tuple of ints, or None for an empty
field (the engine's default); ``valueChanged(object)`` after a readable edit. Text it cannot
read stays on screen with the reason (``textError``), and the scenario keeps its last value.
Whether each size is in range is the core's to judge: its error shows beside the field too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

from ..core.errors import excerpt
from .text_error import TextErrorMixin


def parse_sizes(text: str) -> tuple[int, ...] | None:
    """``"1, 2,4 8"`` -> (1, 2, 4, 8); blank -> None. ValueError naming the bad item and the
    form expected otherwise (order and repeats are kept: the core sorts them)."""
    items = text.replace(",", " ").replace(";", " ").split()
    if not items:
        return None
    sizes = []
    for item in items:
        if not (item.isascii() and item.isdigit()):  # 0-9 only: no signs, decimals or units
            raise ValueError(
                f"{excerpt(item)} is not a whole number; type batch sizes separated by commas, "
                "e.g. 1, 2, 4, 8, 16 (blank: the engine's default)"
            )
        if len(item) > 18:  # int() refuses very long digit strings with its own message
            raise ValueError(f"{excerpt(item)} is far too large for a batch size")
        sizes.append(int(item))
    return tuple(sizes)


def format_sizes(sizes: Iterable[int] | None) -> str:
    return "" if sizes is None else ", ".join(str(s) for s in sizes)


class SizeListField(TextErrorMixin, QWidget):
    """A line edit (``edit``) holding a tuple of whole numbers; empty is None."""

    valueChanged = Signal(object)
    textError = Signal(str)

    def __init__(self, none_text: str = "engine default", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.none_text = none_text  # the binder shows None (an empty field) only when set
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(none_text)
        self.edit.setClearButtonEnabled(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit)
        self.setFocusProxy(self.edit)
        self._value: tuple[int, ...] | None = None
        self.error = ""
        self.edit.editingFinished.connect(self.interpretText)

    def value(self) -> tuple[int, ...] | None:
        return self._value

    def setValue(self, value: Any) -> None:
        """Show ``value`` (a list or tuple of ints, or None); emits valueChanged when it changed."""
        value = None if value is None else tuple(value)
        self._hold(value, value != self._value)

    def _show(self) -> None:
        self._set_error("")
        text = format_sizes(self._value)
        if self.edit.text() != text:
            self.edit.setText(text)

    def interpretText(self) -> None:
        """Read the typed text (Enter, focus out): a new value, or the reason shown beside."""
        try:
            value = parse_sizes(self.edit.text())
        except ValueError as exc:
            self._set_error(str(exc))
            return
        self._set_error("")
        self._hold(value, value != self._value)
