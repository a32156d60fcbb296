"""A clear start where Qt's xcb libraries are missing: one line naming the
packages, exit 1, no QApplication (so no Qt abort and no core dump)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import gpusizer.gui.app as app
import gpusizer.gui.platform_check as platform_check


@pytest.fixture
def x11(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE"):
        monkeypatch.delenv(name, raising=False)

    def no_app():
        raise AssertionError("the QApplication must not be created")

    monkeypatch.setattr(app, "make_app", no_app)


def test_missing_xcb_cursor_is_one_line_and_exit_1(x11, monkeypatch, capsys):
    monkeypatch.setattr(platform_check, "loadable", lambda so: so != "libxcb-cursor.so.0")
    assert app.main([]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "libxcb-cursor.so.0" in err[0] and "sudo apt install libxcb-cursor0" in err[0]


def test_screenshot_under_x11_checks_too(x11, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(
        platform_check, "loadable", lambda so: so not in ("libxcb-icccm.so.4", "libxcb-keysyms.so.1")
    )
    assert app.main(["--screenshot", str(tmp_path / "x.png")]) == 1
    err = capsys.readouterr().err
    assert "libxcb-icccm4 libxcb-keysyms1" in err
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize(
    ("env", "xcb"),
    [
        ({"DISPLAY": ":0"}, True),
        ({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"}, False),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, False),
        ({}, False),
    ],
)
def test_only_an_x11_start_is_checked(monkeypatch, env, xcb):
    monkeypatch.setattr(sys, "platform", "linux")
    assert platform_check.uses_xcb(env) is xcb


def test_check_libraries_lists_every_library():
    proc = subprocess.run(
        [sys.executable, "-m", "gpusizer.gui.app", "--check-libraries"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == len(platform_check.XCB_LIBRARIES)
    assert proc.returncode == (1 if any(line.startswith("MISSING") for line in lines) else 0)


def test_bundle_report_finds_libraries_in_a_folder(tmp_path):
    (tmp_path / "_internal").mkdir()
    (tmp_path / "_internal" / "libxcb-cursor.so.0").write_bytes(b"")
    present, missing = platform_check.bundle_report(tmp_path)
    assert present == ["libxcb-cursor.so.0"] and "libxcb-icccm.so.4" in missing


@pytest.mark.parametrize(
    ("env", "none"),
    [
        ({}, True),
        ({"QT_QPA_PLATFORM": "xcb"}, True),
        ({"QT_QPA_PLATFORM": "wayland"}, True),
        ({"QT_QPA_PLATFORM": "offscreen"}, False),
        ({"DISPLAY": ":0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM": "xcb"}, True),
    ],
)
def test_no_display_is_seen_before_qt_aborts(monkeypatch, env, none):
    monkeypatch.setattr(sys, "platform", "linux")
    assert platform_check.no_display(env) is none


def test_launch_without_a_display_is_one_line_and_exit_1(tmp_path):
    """The README's launch command on a machine with no display: no SIGABRT, no
    core dump, one line saying how to run headless."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["GPUSIZER_SETTINGS_DIR"] = str(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-m", "gpusizer.gui.app"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--screenshot" in lines[0] and "QT_QPA_PLATFORM=offscreen" in lines[0]
