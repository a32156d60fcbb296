"""My calibration in the window: the ratios of the user's own runs (io/calibration.py), kept like
My prices in ``calibration.json`` beside the settings file (``GPUSIZER_USER_CALIBRATION`` names
another; the window sets it for the API it calls), read at start (a malformed file: a message in
the status bar, the estimates uncalibrated, never a crash), added by File > Check Against My Run
("Keep as my calibration") and removed per GPU x engine by File > Remove My Calibration."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QMessageBox, QWidget

from ..core.errors import ScenarioError
from ..io.calibration import ENV, entry, load, remove, save
from .settings import Prefs, settings_dir

# The entries the window read last (the Hardware tab notes its calibrated rows from them)
MINE: dict[str, Any] = {}


def calibration_path(prefs: Prefs) -> Path:
    """``GPUSIZER_USER_CALIBRATION``, else ``calibration.json`` beside the INI."""
    path = os.environ.get(ENV)
    return Path(path) if path else settings_dir(prefs.qs) / "calibration.json"


def load_mine(prefs: Prefs) -> tuple[dict[str, Any], str]:
    """(the entries by ``gpu|engine``, a problem to show or "")."""
    entries, problems = load(calibration_path(prefs))
    MINE.clear()
    MINE.update(entries)
    return entries, "; ".join(problems)


def keep(prefs: Prefs, result: dict[str, Any], source: str) -> str:
    """Keep a check's ratios for its GPU x engine; what to tell the user."""
    path = calibration_path(prefs)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        save(path, entry(result, source))
    except OSError as exc:
        return f"Calibration not kept: cannot write {path.name} ({exc.strerror or exc})"
    except ScenarioError as exc:  # a damaged file is never overwritten
        return f"Calibration not kept: {exc.message}"
    return f"Calibration for {result['scenario']['hardware']['gpu']} x {result['engine']} kept in {path.name}"


def forget_dialog(parent: QWidget, prefs: Prefs, gpu: str, engine: str) -> bool:
    """Remove the calibration of the window's GPU x engine, after asking; True when removed."""
    entries, _ = load_mine(prefs)
    if f"{gpu}|{engine}" not in entries:
        QMessageBox.information(parent, "My calibration", f"No calibration of {gpu} with {engine} is kept.")
        return False
    answer = QMessageBox.question(
        parent, "My calibration", f"Remove the calibration of {gpu} with {engine} from your runs?"
    )
    if answer != QMessageBox.StandardButton.Yes:
        return False
    try:
        return remove(calibration_path(prefs), gpu, engine)
    except OSError as exc:
        QMessageBox.warning(parent, "My calibration", f"Cannot write the file: {exc.strerror or exc}")
        return False
