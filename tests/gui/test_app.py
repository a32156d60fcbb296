"""The app around the window: fonts, --screenshot as a real process, remembered settings,
undo/redo through the Edit menu, the About box, the exception hook, the icon."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from PySide6.QtGui import QAction, QFontInfo, QImage
from PySide6.QtWidgets import QApplication

from gpusizer import __version__
from gpusizer.gui import excepthook
from gpusizer.gui.icon import app_icon
from gpusizer.gui.main_window import MainWindow
from gpusizer.gui.menus import show_about

from .helpers import find


def _run_app(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(env_extra or {})}
    return subprocess.run(
        [sys.executable, "-m", "gpusizer.gui.app", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _is_blank(path) -> bool:
    image = QImage(str(path))
    colors = {image.pixel(x, y) for x in range(0, image.width(), 37) for y in range(0, image.height(), 23)}
    return image.isNull() or len(colors) < 8


def test_fonts_are_present(qapp):
    assert QFontInfo(QApplication.font()).family()


def test_screenshot_exits_zero_and_is_not_blank(tmp_path):
    for i in range(3):  # the teardown crash showed up in about half the runs when it existed
        out = tmp_path / f"shot{i}.png"
        done = _run_app("--screenshot", str(out), env_extra={"GPUSIZER_SETTINGS_DIR": str(tmp_path)})
        assert done.returncode == 0, done.stderr
        assert out.is_file() and not _is_blank(out)
        assert QImage(str(out)).width() == 1440


@pytest.mark.parametrize("tab", ["compare", "sweep"])
def test_screenshot_of_a_scenario_and_tab(tmp_path, tab):
    scenario = tmp_path / "s.gpusizer.json"
    scenario.write_text(
        json.dumps({"model": {"preset": "mixtral-8x7b"}, "workload": {"kind": "inference", "batch_size": 8}})
    )
    out = tmp_path / "shot.png"
    done = _run_app("--screenshot", str(out), "--scenario", str(scenario), "--tab", tab, "--size", "1280x800")
    assert done.returncode == 0, done.stderr
    assert QImage(str(out)).width() == 1280 and not _is_blank(out)


def test_screenshot_with_a_bad_scenario_says_why(tmp_path):
    bad = tmp_path / "bad.gpusizer.json"
    bad.write_text('{"model": {"preset": "no-such-model"}}')
    done = _run_app("--screenshot", str(tmp_path / "x.png"), "--scenario", str(bad))
    assert done.returncode == 2
    assert "model.preset" in done.stderr
    assert not (tmp_path / "x.png").exists()


def test_version_flag():
    done = _run_app("--version")
    assert done.returncode == 0 and __version__ in done.stdout


def test_settings_restore_units_scenario_and_geometry(qtbot):
    first = MainWindow()
    qtbot.addWidget(first)
    first.resize(760, 640)  # the offscreen screen is 800 x 800: stay inside it
    first.show()
    size = first.size()
    find(first, "spin_data_parallel").setValue(8)
    first.state.flush()
    first.set_units("GB")
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    assert second.unit == "GB"
    assert second.state.scenario.parallelism.data == 8
    assert find(second, "spin_data_parallel").value() == 8
    assert second.size() == size
    gb = second.findChild(QAction, "action_units_gb")
    assert gb is not None and gb.isChecked()


def test_damaged_settings_fall_back_to_defaults(qtbot, temp_settings):
    (temp_settings / "gpusizer.ini").write_text('[state]\nlast_scenario="{broken"\n[view]\nunits=parsecs\n')
    w = MainWindow()
    qtbot.addWidget(w)
    assert w.unit == "GiB"
    assert w.state.error is None


def test_undo_redo_through_the_edit_menu(window):
    # tensor, not pipeline, parallelism: the default scenario's Hugging Face trainer has no
    # pipeline schedule, so the core refuses a PP of 2 there (tests/gui/test_pipeline_refusal.py)
    spin = find(window, "spin_tensor_parallel")
    spin.setValue(2)
    window.state.flush()
    spin.setValue(4)
    window.state.flush()
    undo = window.findChild(QAction, "action_undo")
    redo = window.findChild(QAction, "action_redo")
    assert undo.isEnabled()
    undo.trigger()
    assert spin.value() == 2 and window.state.scenario.parallelism.tensor == 2
    undo.trigger()
    assert spin.value() == 1
    redo.trigger()
    redo.trigger()
    assert spin.value() == 4
    assert window.isWindowModified()


def test_standard_shortcuts(window):
    from PySide6.QtGui import QKeySequence

    std = QKeySequence.StandardKey
    for name, key in (
        ("action_open", std.Open),
        ("action_save", std.Save),
        ("action_new", std.New),
        ("action_undo", std.Undo),
    ):
        assert window.findChild(QAction, name).shortcut() == QKeySequence(key), name


def test_about_box_shows_the_version(window, message_boxes):
    show_about(window)
    assert __version__ in message_boxes[-1][1]


def test_excepthook_logs_and_notifies(window, caplog):
    excepthook.install(window.notify)
    try:
        sys.excepthook(ValueError, ValueError("boom"), None)
    finally:
        excepthook.set_notifier(None)
    assert "boom" in window.statusBar().currentMessage()
    assert "unexpected error" in caplog.text


def test_icon_is_packaged(qapp):
    # qapp: a QIcon needs a QGuiApplication; this test may be the first a worker runs.
    icon = app_icon()
    assert not icon.isNull()
    assert {s.width() for s in icon.availableSizes()} >= {16, 32, 256}


def test_screenshot_of_a_scenario_the_estimator_refuses_is_one_line(tmp_path):
    bad = tmp_path / "huge.gpusizer.json"
    bad.write_text(
        '{"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference", '
        '"batch_size": 1' + "0" * 330 + "}}"
    )
    done = _run_app("--screenshot", str(tmp_path / "x.png"), "--scenario", str(bad))
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
