"""Benchmarks never wait on a dialog: a window closed after edits would ask (modally) whether
to save them, and a benchmark run has no one to answer (tests/gui/conftest.py does the same)."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _answer_dialogs(monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtWidgets import QMessageBox

    def answer(button: QMessageBox.StandardButton) -> Any:
        return lambda *_a, **_k: button

    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Discard))
    for name in ("warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, name, answer(QMessageBox.StandardButton.Ok))
