"""A layer count that also takes "all" (``serving.cpu_moe_layers``: llama.cpp ``--n-cpu-moe N``
or ``--cpu-moe``, docs/scenario-format.md): a QuantityField whose text "all" holds the string."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QAbstractSpinBox

from .quantity_field import QuantityField

ALL = "all"
ALL_TEXT = "all layers"


class LayersOrAllField(QuantityField):
    """A count field (``kind`` "count") that reads and shows "all"; stepping down from "all"
    leaves it, stepping from a count works as any count field."""

    def text_for(self, value: Any) -> str:
        return ALL_TEXT if value == ALL else super().text_for(value)

    def parse(self, text: str) -> Any:
        if text.strip().lower() in (ALL, ALL_TEXT):
            return ALL
        return super().parse(text)

    def stepBy(self, steps: int) -> None:
        if self._value == ALL:
            return  # "all" has no neighbour: type a count
        super().stepBy(steps)

    def stepEnabled(self) -> QAbstractSpinBox.StepEnabledFlag:
        if self._value == ALL:
            return QAbstractSpinBox.StepEnabledFlag.StepNone
        return super().stepEnabled()
