"""Importing a model in the window: File > Import Model…, and dropping a .gguf or a model
folder. A serving scenario takes the checkpoint's precision in one undo step; a training one
keeps its own; a refused file changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.io.checkpoints import gpt_oss_tensors, tiny_gpt_oss_config, write_model
from tests.io.gguf_files import tiny_llama_gguf

from .helpers import drop_path, find, row_visible


def test_drop_a_gguf_when_serving(window: Any, tmp_path: Path):
    window.state.set_scenario({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}})
    before = window.state.scenario
    drop_path(window, tiny_llama_gguf(tmp_path, "Tiny Llama"))
    s = window.state.scenario
    assert s.model.name == "Tiny Llama" and s.precision.weights == "gguf_q8_0"
    assert s.precision.quantization_rule == "gguf-q8_0"
    assert find(window, "combo_precision_weights").currentData() == "gguf_q8_0"
    note = find(window, "label_checkpoint_precision")
    assert row_visible(note) and "gguf_q8_0" in note.text()
    assert "Tiny Llama" in window.statusBar().currentMessage()
    window.state.undo_stack.undo()  # one step back to the scenario before the import
    assert window.state.scenario == before


def test_drop_a_folder_while_training_keeps_the_precision(window: Any, tmp_path: Path):
    cfg = tiny_gpt_oss_config()
    folder = write_model(tmp_path / "oss", cfg, gpt_oss_tensors(cfg))
    assert window.state.scenario.workload.trains  # the window starts on LoRA
    drop_path(window, folder)
    s = window.state.scenario
    assert s.model.name == "gpt-oss-20b" and s.precision.weights == "bf16"
    assert s.model.checkpoint_precision is not None
    assert "applies when serving" in window.statusBar().currentMessage()
    assert "training loads it dequantised" in find(window, "label_checkpoint_precision").text()


def test_a_bad_gguf_is_refused_and_changes_nothing(
    window: Any, tmp_path: Path, message_boxes: list[tuple[str, str]]
):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\xff" * 20)
    before = window.state.scenario
    window.files.open_any(bad)
    window.files.importer.wait()  # read in a worker thread, refused on the GUI thread
    assert window.state.scenario is before
    assert "bad.gguf" in message_boxes[-1][1]


def test_the_menu_has_the_import(window: Any):
    from PySide6.QtGui import QAction

    action = window.findChild(QAction, "action_import_model")
    assert action is not None and "Model" in action.text()


def test_import_model_starts_in_the_last_folder(window: Any, tmp_path: Path, monkeypatch: Any):
    """File > Import Model… opens where the last file dialog was (gui/dialogs.py), and the
    import's sentence reaches the status bar through the state's notice."""
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QFileDialog

    gguf = tiny_llama_gguf(tmp_path, "Tiny Llama")
    window.prefs.set_last_dir(tmp_path)
    started: list[str] = []

    def choose(_parent: Any, _title: str, folder: str, _filters: str) -> tuple[str, str]:
        started.append(folder)
        return str(gguf), ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", choose)
    window.findChild(QAction, "action_import_model").trigger()
    window.files.importer.wait()
    assert started == [str(tmp_path)]
    assert window.state.scenario.model.name == "Tiny Llama"
    assert "Tiny Llama" in window.statusBar().currentMessage()
