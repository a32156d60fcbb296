"""File > Check Against My Run: a run's own log or benchmark output beside the estimate of the
run it states (io/run_check.py, what ``gpusizer-cli check`` prints). The window's GPU stands in
for the GPU a log does not name, its model for a model the log does not name."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QMessageBox, QWidget

from ..core.errors import ScenarioError
from ..core.readfile import read_text
from ..core.sizing.gpus_needed import gpu_id
from ..io.run_check import check, check_text, preset_for
from ..io.run_log import read_run
from .dialogs import ask_open

RUN_FILTER = "Logs and benchmark output (*.log *.txt *.md *.json);;All files (*)"
MAX_LOG_BYTES = 32 * 2**20


def check_report(path: str, scenario: Any) -> tuple[str, bool]:
    """(the comparison, True) or (what was found and what is missing, False)."""
    try:
        run = read_run(read_text(path, "file", MAX_LOG_BYTES).text)
        named = preset_for(str(run.settings.get("model", ""))) if run.settings.get("model") else None
        model = None if named else scenario.model.preset
        return check_text(check(run, gpu=gpu_id(scenario), model=model)), True
    except ScenarioError as exc:
        return str(exc), False


def check_run_dialog(parent: QWidget, files: Any, scenario: Any) -> None:
    """Ask for the file, then show the comparison (or why it cannot be made)."""
    path = ask_open(parent, files.prefs, "Check against my run", RUN_FILTER)
    if not path:
        return
    text, ok = check_report(path, scenario)
    box = QMessageBox(
        QMessageBox.Icon.Information if ok else QMessageBox.Icon.Warning, "Your run", "", parent=parent
    )
    box.setText("Your run beside the estimate of the run it states:" if ok else "Cannot check this file.")
    box.setInformativeText(text if not ok else "")
    if ok:
        box.setDetailedText(text)
        box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    box.exec()
