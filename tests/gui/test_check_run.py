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


def test_my_calibration_kept_beside_the_settings_marked_and_removed(
    qtbot, window, temp_settings, monkeypatch
) -> None:
    """A check kept as calibration (beside the INI, like My prices) marks the summary of that
    GPU x engine "calibrated from your run of DATE"; File > Remove My Calibration forgets it."""
    from PySide6.QtWidgets import QMessageBox

    from gpusizer.gui.check_run import check_result
    from gpusizer.gui.my_calibration import calibration_path, keep

    s = parse_scenario(
        {"model": {"preset": "llama-2-7b"}, "workload": {"kind": "inference"}, "framework": "llama.cpp",
         "hardware": {"gpu": "rtx-4060-ti-16gb"}}
    )  # fmt: skip
    result, _ = check_result(str(LOGS / "llama-cpp-llama2-7b-f16-v100.log"), s)
    assert result is not None
    assert "kept in calibration.json" in keep(window.prefs, result, "run.log")
    assert calibration_path(window.prefs).parent == temp_settings
    window.state.set_scenario(s.model_dump(mode="json"), record=False)
    window.reload_calibration()
    assert "calibrated from your run of" in window.summary._how_sure_text
    assert "calibrated from your run of" in window.summary.how_sure.toolTip()
    report = temp_settings / "report.md"  # File > Export Report says so too
    assert window.files.export_report(report)
    assert "calibrated from your run of" in report.read_text()
    window.tabs.select("hardware")  # the tab notes the calibrated GPU's row
    tab = window.tabs.charts["hardware"]
    qtbot.waitUntil(lambda: any(o["gpu"] == "rtx-4060-ti-16gb" for o in tab.options), timeout=30000)
    row = next(o for o in tab.options if o["gpu"] == "rtx-4060-ti-16gb")
    assert any(n.startswith("calibrated from your run of") for n in row["notes"])
    monkeypatch.setattr(QMessageBox, "question", lambda *_a, **_k: QMessageBox.StandardButton.Yes)
    forget = next(
        a
        for a in window.menuBar().actions()[0].menu().actions()
        if a.objectName() == "action_forget_calibration"
    )
    forget.trigger()
    assert "calibrated from" not in window.summary._how_sure_text


def test_a_malformed_calibration_file_is_a_message_at_start(qtbot, temp_settings) -> None:
    (temp_settings / "calibration.json").write_text("{not json")
    w = MainWindow(restore=False)
    qtbot.addWidget(w)
    assert "calibration file calibration.json ignored" in w.statusBar().currentMessage()
    assert w.summary.calibrations == {}
