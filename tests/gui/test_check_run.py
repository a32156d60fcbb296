"""File > Check Against My Run (gui/check_run.py): the window's GPU and model stand in for what
a log does not name; a file it cannot place says why."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMenu

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.check_run import check_report
from gpusizer.gui.main_window import MainWindow

LOGS = Path(__file__).parents[1] / "io" / "data" / "run-logs"


def test_the_windows_gpu_and_model_fill_what_the_log_does_not_name() -> None:
    s = parse_scenario({"model": {"preset": "llama-2-7b"}, "hardware": {"gpu": "rtx-4060-ti-16gb"}})
    text, ok = check_report(str(LOGS / "llama-cpp-llama2-7b-f16-v100.log"), s)
    assert ok and "GPU KV MiB" in text and "How sure:" in text


def test_a_file_it_cannot_place_says_why() -> None:
    s = parse_scenario({"model": {"preset": "llama-2-7b"}})
    text, ok = check_report(str(LOGS / "README.md"), s)
    assert not ok and "cannot place this file" in text


def test_the_file_menu_has_the_action(qtbot) -> None:
    w = MainWindow(restore=False)
    qtbot.addWidget(w)
    menu = w.menuBar().actions()[0].menu()
    assert isinstance(menu, QMenu)
    names = {a.objectName() for a in menu.actions()}
    assert "action_check_run" in names
