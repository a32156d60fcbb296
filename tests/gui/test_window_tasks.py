"""The scenario's name follows the scenario until the user names it; unsaved
work asks Save / Discard / Cancel on New, Open and Quit (item 4); dialogs start in the last
folder and pre-select the filter of the suggested suffix (items 3 and 6)."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QFileDialog, QMessageBox

from gpusizer.gui.menus import export_report_dialog

from .helpers import find


def _gpu(window, gid: str) -> None:
    combo = find(window, "combo_gpu")
    combo.setCurrentIndex(combo.findData(gid))
    window.state.flush()


def _preset(window, pid: str) -> None:
    tree = find(window, "tree_model_preset")
    tree.setValue(pid)
    tree.valueChanged.emit(pid)
    window.state.flush()


def test_name_follows_the_scenario_until_edited(window):
    name = find(window, "edit_scenario_name")
    assert window.state.scenario.name == "Llama 3.1 8B, LoRA on one H100 SXM 80GB"
    _preset(window, "qwen3-30b-a3b")
    _gpu(window, "rtx-4090-24gb")
    s = window.state.scenario
    assert s.name == "Qwen3 30B-A3B, LoRA on one GeForce RTX 4090 24GB"
    assert name.text() == s.name and s.name in window.windowTitle()
    assert "H100" not in window.windowTitle()
    name.setText("My 4090 box")
    name.editingFinished.emit()
    _gpu(window, "rtx-3090-24gb")
    assert window.state.scenario.name == "My 4090 box"  # a typed name stays
    assert "My 4090 box" in window.windowTitle()
    name.setText("")
    name.editingFinished.emit()  # emptied: follows the scenario again
    assert "RTX 3090" in window.state.scenario.name


def test_unsaved_changes_ask_and_cancel_keeps_them(window, monkeypatch):
    asked = []

    def answer(button):
        def box(_parent, title, text, *args, **kwargs):
            asked.append(text)
            return button

        return box

    find(window, "spin_tensor_parallel").setValue(2)
    window.state.flush()
    assert window.isWindowModified() and "[*]" in window.windowTitle()
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Cancel))
    assert not window.new_scenario()
    assert window.state.scenario.parallelism.tensor == 2 and asked
    assert not window.close()  # Quit: cancelled too
    assert window.isVisible()
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Discard))
    assert window.new_scenario()
    assert window.state.scenario.parallelism.tensor == 1
    assert not window.isWindowModified()


def test_save_answer_saves_before_open(window, tmp_path, monkeypatch):
    other = tmp_path / "other.gpusizer.json"
    other.write_text(json.dumps({"model": {"preset": "gpt-2"}}), encoding="utf-8")
    find(window, "spin_tensor_parallel").setValue(2)
    window.state.flush()
    target = tmp_path / "mine.gpusizer.json"
    monkeypatch.setattr(QMessageBox, "question", lambda *_a, **_k: QMessageBox.StandardButton.Save)
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *_a, **_k: (str(target), ""))
    assert window.files.open_path(other)
    assert json.loads(target.read_text())["parallelism"]["tensor"] == 2
    assert window.state.scenario.model.preset == "gpt-2"


def test_dialogs_remember_the_folder_and_match_the_filter(window, tmp_path, monkeypatch):
    seen = []

    def save(_parent, _title, start, filters, selected="", *_a):
        seen.append((start, selected))
        return str(tmp_path / "sub" / "r.md"), selected

    (tmp_path / "sub").mkdir()
    monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
    assert export_report_dialog(window)
    assert export_report_dialog(window)
    first, second = seen
    assert first[0].endswith("-report.md") and first[1] == "Markdown report (*.md)"
    assert second[0].startswith(str(tmp_path / "sub"))  # the folder used last time
    assert "llama-3.1-8b-lora-on-one-h100-sxm-80gb" in first[0]


def test_report_has_advice_labels_and_normal_permissions(window, tmp_path):
    import os
    import stat

    find(window, "combo_workload_kind").setCurrentIndex(
        find(window, "combo_workload_kind").findData("inference")
    )
    window.state.flush()
    window.advisor.wait()
    old = os.umask(0o022)
    try:
        assert window.files.export_report(tmp_path / "r.md")
    finally:
        os.umask(old)
    text = (tmp_path / "r.md").read_text()
    assert "GPUs needed" in text
    assert "mfu" not in text.lower().split("## scenario")[0]  # no raw keys in the prose
    assert "Time to first token" in text or "Prefill" in text
    assert stat.S_IMODE((tmp_path / "r.md").stat().st_mode) == 0o644


@pytest.mark.parametrize("answer", ["discard"])
def test_undo_text_uses_the_field_label(window, answer):
    find(window, "combo_workload_kind").setCurrentIndex(
        find(window, "combo_workload_kind").findData("inference")
    )
    window.state.flush()
    find(window, "spin_prompt_tokens").setValue(2048)
    window.state.flush()
    assert window.state.undo_stack.undoText() == "Change Prompt"


def test_preset_click_highlights_the_loaded_row(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    tree = find(window, "tree_model_preset")
    for pid in ("qwen3-8b", "olmoe-1b-7b", "phi-3-mini", "mistral-7b"):
        item = tree._items[pid]
        tree.scrollToItem(item)
        QTest.mouseClick(
            tree.viewport(),
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
            tree.visualItemRect(item).center(),
        )
        window.state.flush()
        assert window.state.scenario.model.preset == pid
        assert [i.data(0, 256) for i in tree.selectedItems()] == [pid]


def test_enter_in_the_preset_search_loads_the_first_match(window, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    search = find(window, "edit_model_search")
    search.setText("mixtral 8x22")
    QTest.keyClick(search, Qt.Key.Key_Return)
    window.state.flush()
    assert window.state.scenario.model.preset == "mixtral-8x22b"


def test_fp8_weights_on_a_gpu_without_fp8_tensor_cores_warn(window):
    warning = find(window, "label_tensor_core_warning")
    weights = find(window, "combo_precision_weights")
    _gpu(window, "rtx-3090-24gb")  # dense_tflops: no fp8 key
    weights.setCurrentIndex(weights.findData("fp8"))
    window.state.flush()
    assert warning.isVisibleTo(window) and "no FP8 tensor cores" in warning.text()
    _gpu(window, "h100-sxm-80gb")  # has FP8
    assert not warning.isVisibleTo(window)
    weights.setCurrentIndex(weights.findData("nvfp4"))
    window.state.flush()
    assert "no FP4 tensor cores" in warning.text()  # Hopper has no FP4 units


def _type(field, text):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    field.setFocus()
    field.lineEdit().selectAll()
    QTest.keyClicks(field.lineEdit(), text)
    QTest.keyClick(field.lineEdit(), Qt.Key.Key_Return)


@pytest.mark.parametrize(
    ("text", "value"),
    [("1T", 1e12), ("1.5e12", 1.5e12), ("500B", 5e11), ("1,000,000", 1e6), ("15.6T tokens", 15.6e12)],
)
def test_typed_training_tokens_are_read_as_written(window, text, value):
    tokens = find(window, "spin_training_tokens")
    _type(tokens, text)
    window.state.flush()
    assert window.state.scenario.workload.training_tokens == value  # not 1 B for "1T"


def test_unreadable_quantity_stays_invalid_and_keeps_the_last_good_value(window):
    tokens = find(window, "spin_training_tokens")
    error = find(window, "error_spin_training_tokens")
    _type(tokens, "1T")
    window.state.flush()
    _type(tokens, "2 TB")  # bytes in a token field
    window.state.flush()
    assert window.state.scenario.workload.training_tokens == 1e12  # the last good value
    assert tokens.lineEdit().text() == "2 TB" and tokens.property("invalid")
    assert error.isVisibleTo(window) and "bytes" in error.text()
    assert "T = 10¹²" in error.text()  # says what the suffixes mean in this field
    find(window, "spin_tensor_parallel").setValue(2)  # another edit keeps the message up
    window.state.flush()
    assert tokens.lineEdit().text() == "2 TB" and error.isVisibleTo(window)
    _type(tokens, "2T")
    window.state.flush()
    assert window.state.scenario.workload.training_tokens == 2e12
    assert not error.isVisibleTo(window) and not tokens.property("invalid")


def test_context_fields_read_k_as_1024(window):
    seq = find(window, "spin_sequence_length")
    _type(seq, "8k")
    window.state.flush()
    assert window.state.scenario.workload.sequence_length == 8192
    assert seq.lineEdit().text() == "8,192 tokens"
