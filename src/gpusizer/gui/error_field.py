"""A refused scenario's field as the window shows it: the banner above the charts names the
field by the label beside it ("Tensor (TP)"), not the file's path ("parallelism.tensor", kept
in the banner's tooltip and the status bar, where a file's editor reads it), and the left
column scrolls to the field whose message stands beside it: a model change that made the
tensor degree invalid showed the banner while the field and its red message were two
screens down the form."""

from __future__ import annotations

from PySide6.QtWidgets import QScrollArea, QWidget

from ..core.errors import ScenarioError
from .binding import Binder


def banner_words(error: ScenarioError, labels: dict[str, str]) -> str:
    """``Tensor (TP): must divide attention_heads (32); ...``: the label users see where the
    field has one (``ScenarioState.labels``), else the error as it reads."""
    label = labels.get(error.field, "")
    return f"{label}: {error.message}" if label and error.message else str(error)


def reveal(binder: Binder, error: ScenarioError, window: QWidget) -> None:
    """Scroll the panels' column to the widget that shows ``error`` (nothing where it is in
    view already, hidden, or not in that column)."""
    binding = binder.binding_for(error.field)
    column = window.findChild(QScrollArea, "left_scroll")
    inner = column.widget() if column is not None else None
    if binding is None or column is None or inner is None:
        return
    widget = binding.widget
    if widget.isVisibleTo(inner) and inner.isAncestorOf(widget):
        column.ensureWidgetVisible(widget, 0, 60)  # its message sits under it
