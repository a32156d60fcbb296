"""File > Check Against My Run: a run's own log or benchmark output beside the estimate of the
run it states (io/run_check.py, what ``gpusizer-cli check`` prints). The window's GPU stands in
for the GPU a log does not name, its model for a model the log does not name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QMessageBox, QWidget

from ..core.errors import ScenarioError
from ..core.readfile import read_text
from ..core.sizing.gpus_needed import gpu_id
from ..io.run_check import check, check_text, preset_for
from ..io.run_log import read_run
from .dialogs import ask_open
from .my_calibration import keep

RUN_FILTER = "Logs and benchmark output (*.log *.txt *.md *.json);;All files (*)"
MAX_LOG_BYTES = 32 * 2**20


def check_result(path: str, scenario: Any) -> tuple[dict[str, Any] | None, str]:
    """(io/run_check.check's result, the comparison) or (None, what was found and what is
    missing)."""
    try:
        run = read_run(read_text(path, "file", MAX_LOG_BYTES).text)
        named = preset_for(str(run.settings.get("model", ""))) if run.settings.get("model") else None
        model = None if named else scenario.model.preset
        result = check(run, gpu=gpu_id(scenario), model=model)
        return result, check_text(result)
    except ScenarioError as exc:
        return None, str(exc)


def check_report(path: str, scenario: Any) -> tuple[str, bool]:
    """(the comparison, True) or (what was found and what is missing, False)."""
    result, text = check_result(path, scenario)
    return text, result is not None


def check_run_dialog(parent: QWidget, files: Any, scenario: Any, on_keep: Any = None) -> None:
    """Ask for the file, then show the comparison (or why it cannot be made); "Keep as my
    calibration" keeps its ratios for its GPU x engine (gui/my_calibration.py), then
    ``on_keep()``."""
    path = ask_open(parent, files.prefs, "Check against my run", RUN_FILTER)
    if not path:
        return
    result, text = check_result(path, scenario)
    ok = result is not None
    box = QMessageBox(
        QMessageBox.Icon.Information if ok else QMessageBox.Icon.Warning, "Your run", "", parent=parent
    )
    box.setText("Your run beside the estimate of the run it states:" if ok else "Cannot check this file.")
    box.setInformativeText(text if not ok else "")
    if ok:
        box.setDetailedText(text)
        box.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    keep_button = box.addButton("Keep as my calibration", QMessageBox.ButtonRole.ActionRole) if ok else None
    box.addButton(QMessageBox.StandardButton.Close)
    box.exec()
    if result is not None and keep_button is not None and box.clickedButton() is keep_button:
        said = keep(files.prefs, result, Path(path).name)
        QMessageBox.information(parent, "My calibration", said)
        if on_keep is not None:
            on_keep()
