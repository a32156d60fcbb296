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
