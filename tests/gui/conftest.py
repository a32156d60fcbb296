"""GUI test fixtures: settings in a temporary folder, message boxes recorded instead of shown."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from gpusizer.gui.settings import SETTINGS_ENV


@pytest.fixture(autouse=True)
def temp_settings(tmp_path, monkeypatch) -> Any:
    """Every test gets its own settings folder: the user's settings are never touched."""
    folder = tmp_path / "settings"
    folder.mkdir()
    monkeypatch.setenv(SETTINGS_ENV, str(folder))
    return folder


def _core_busy_threads() -> list[str]:
    """Names of the window's background threads (``gpusizer-*``, gui/worker.py) now running the
    estimator's code (a frame under ``gpusizer/core``), not waiting idle for a job."""
    import sys
    import threading

    frames = sys._current_frames()
    busy = []
    for thread in threading.enumerate():
        frame = frames.get(thread.ident or -1)
        if not thread.name.startswith("gpusizer") or frame is None:
            continue
        while frame is not None:
            if "gpusizer/core" in frame.f_code.co_filename.replace("\\", "/"):
                busy.append(thread.name)
                break
            frame = frame.f_back
    return busy


@pytest.fixture(autouse=True)
def quiet_after() -> Iterator[None]:
    """After each test, wait (up to 120 s) until no background job of a closed window still runs
    the estimator: a cancelled search stops at its next look at its token, but an abandoned one
    (a window closed mid-compare) held the GIL into the next tests of the same pytest-xdist
    worker, whose window set-ups took 20 s and whose 60 s waits ran out."""
    import time

    yield
    deadline = time.monotonic() + 120.0
    while _core_busy_threads() and time.monotonic() < deadline:
        time.sleep(0.05)


@pytest.fixture(autouse=True)
def patient_waits(monkeypatch) -> None:
    """The window waits 0.2 s for an estimate before it goes on without it (gui/estimator.py);
    on a loaded test machine a 1 ms estimate can take longer, and a test that edits and then
    looks would see the edit still pending. Tests wait as long as it takes, unless they ask
    for the real waits (tests/gui/test_hostile_round4.py)."""
    from gpusizer.gui import estimator, fit_models
    from gpusizer.gui.charts import background

    for module in (estimator, fit_models, background):
        monkeypatch.setattr(module, "WAIT_S", 60.0)


@pytest.fixture(autouse=True)
def message_boxes(monkeypatch) -> list[tuple[str, str]]:
    """Modal boxes would block a test: record (kind, text) and answer with the default."""
    shown: list[tuple[str, str]] = []

    def record(kind: str, answer: Any) -> Any:
        def box(_parent: Any, title: str, text: str, *_a: Any, **_k: Any) -> Any:
            shown.append((kind, f"{title}: {text}"))
            return answer

        return box

    monkeypatch.setattr(QMessageBox, "warning", record("warning", QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "critical", record("critical", QMessageBox.StandardButton.Ok))
    monkeypatch.setattr(QMessageBox, "information", record("information", QMessageBox.StandardButton.Ok))
    # Unsaved changes: discard them unless a test answers otherwise.
    monkeypatch.setattr(QMessageBox, "question", record("question", QMessageBox.StandardButton.Discard))
    monkeypatch.setattr(QMessageBox, "about", record("about", None))
    return shown


@pytest.fixture
def window(qtbot) -> Iterator[Any]:
    """A shown main window that neither reads nor writes remembered state."""
    from gpusizer.gui.main_window import MainWindow

    w = MainWindow(restore=False)
    w.state.merge_ms = 0  # every edit is its own undo step in tests
    qtbot.addWidget(w)
    w.resize(1440, 900)
    w.show()
    qtbot.waitExposed(w)
    yield w
