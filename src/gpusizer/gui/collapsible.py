"""A collapsible group of fields inside a panel: a header button with an arrow and, below it, a
frameless :class:`~gpusizer.gui.widgets.Form` hidden while collapsed. Panels keep the fields a
reader needs in their own form and an engine's or framework's knobs in sections, closed at
start. A refusal of a field inside a closed section opens it, so the error shows beside its
field as everywhere else."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSizePolicy, QToolButton, QVBoxLayout, QWidget

from .binding import Binder
from .widgets import Form


class Section:
    """``widget`` holds the header (``button``, object name ``toggle_<key>``) and ``form``."""

    def __init__(self, binder: Binder, title: str, key: str) -> None:
        self.title = title
        self.widget = QWidget()
        self.widget.setObjectName("section_" + key)
        col = QVBoxLayout(self.widget)
        col.setContentsMargins(0, 2, 0, 0)
        col.setSpacing(2)
        self.button = QToolButton()
        self.button.setObjectName("toggle_" + key)
        self.button.setCheckable(True)
        self.button.setAutoRaise(True)
        self.button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.button.toggled.connect(self.set_open)
        col.addWidget(self.button)
        self.form = Form(binder, "", framed=False)
        self.form.box.setObjectName("body_" + key)
        self.form.layout.setContentsMargins(0, 0, 0, 6)
        col.addWidget(self.form.box)
        self.set_note("")
        self.set_open(False)
        binder.state.errorChanged.connect(self._open_at_error)

    def set_open(self, opened: bool) -> None:
        """Show or hide the fields (the header stays)."""
        if self.button.isChecked() != opened:
            self.button.setChecked(opened)  # comes back here through toggled
            return
        self.button.setArrowType(Qt.ArrowType.DownArrow if opened else Qt.ArrowType.RightArrow)
        # the header was the one control of the RL panel without a tooltip
        verb = "Hide" if opened else "Show"
        self.button.setToolTip(f"{verb} the {self.title.lower()} (a refused field opens its group)")
        self.form.box.setVisible(opened)

    @property
    def is_open(self) -> bool:
        return self.button.isChecked()

    def set_note(self, note: str) -> None:
        """The header's title with a short note after it (what a framework release sets)."""
        self.button.setText(f"{self.title} \u00b7 {note}" if note else self.title)

    def holds(self, widget: QWidget | None) -> bool:
        """Whether ``widget`` is one of this section's fields."""
        return widget is not None and self.form.box.isAncestorOf(widget)

    def _open_at_error(self, error: Any) -> None:
        b = self.form.binder.binding_for(error.field) if error is not None else None
        if b is not None and self.holds(b.widget):
            self.set_open(True)
