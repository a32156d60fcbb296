"""Scenario panel: the scenario's name, which follows the scenario until the user types one."""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit

from ..binding import Binder
from .base import Panel


class ScenarioPanel(Panel):
    """The name shown in the title bar, the saved file's suggested name and the reports."""

    title = "Scenario"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        self.name = QLineEdit()
        self.name.setPlaceholderText("named after the model, the work and the GPUs")
        self.name.setToolTip(
            "Follows the scenario (model, kind of work, GPUs) until you type "
            "a name of your own; empty it to follow the scenario again."
        )
        self.form.add("Name", self.name, "name", name="edit_scenario_name")
