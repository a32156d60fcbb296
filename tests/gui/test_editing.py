"""The window as people edit it, driven with key events sent to the
widgets themselves: Enter commits, red errors go with their cause, the window's shortcuts work
from a text field, each kind of work keeps its own settings, nothing stale after an import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import QApplication, QFileDialog, QLabel, QLineEdit, QWidget

from gpusizer.gui.menus import export_chart_dialog
from gpusizer.gui.quantity_field import QuantityField
from tests.io.gguf_files import T, tiny_llama_gguf, write_gguf

from .helpers import find

CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier


def _type(qtbot: Any, field: Any, text: str, key: Qt.Key = Qt.Key.Key_Return) -> None:
    """Select the field's text, type ``text`` and press ``key``: all sent to the field."""
    field.setFocus()
    field.lineEdit().selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, key)


def _kind(qtbot: Any, window: Any, kind: str) -> None:
    """Choose the kind by typing its label into the focused combo box (keyboard search)."""
    combo = find(window, "combo_workload_kind")
    combo.setFocus()
    # The search joins keys typed within QApplication.keyboardInputInterval() (400 ms); a loaded
    # machine (a second test process beside this one) can stall between two keys past it, and the
    # tail then starts a search of its own: type the label again, as a user would.
    for _ in range(3):
        qtbot.wait(QApplication.keyboardInputInterval() + 50)  # a new search, not the last one's tail
        qtbot.keyClicks(combo, combo.itemText(combo.findData(kind)))
        window.state.flush()
        if combo.currentData() == kind:
            break
    assert combo.currentData() == kind


def _errors(window: Any) -> dict[str, str]:
    return {
        label.objectName(): label.text()
        for label in window.findChildren(QLabel)
        if label.objectName().startswith("error_") and label.isVisibleTo(window)
    }


# -- 1. Enter commits ---------------------------------------------------------------------------
@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter])
def test_enter_in_the_field_commits_the_typed_number(window, qtbot, key):
    _kind(qtbot, window, "pretraining")
    tokens = find(window, "spin_training_tokens")
    _type(qtbot, tokens, "1T", key)
    window.state.flush()
    assert window.state.scenario.workload.training_tokens == 10**12
    assert tokens.hasFocus()  # committed without leaving the field


# -- 2. red errors --------------------------------------------------------------------------------
def test_errors_go_with_new_and_open_and_several_are_not_clipped(window, qtbot, tmp_path):
    window.resize(1280, 720)
    for name, text in (
        ("spin_sequence_length", "abc"),
        ("spin_micro_batch_size", "0"),
        ("spin_lora_rank", "x1"),
        ("spin_tensor_parallel", "3"),
    ):
        _type(qtbot, find(window, name), text)
    window.state.flush()
    qtbot.wait(50)
    shown = _errors(window)
    assert len(shown) == 4, shown
    for name in shown:  # each message whole: as tall as its wrapped text, inside its panel
        label = find(window, name)
        assert label.height() >= label.heightForWidth(label.width())
        panel = label.parentWidget().parentWidget()
        assert panel.rect().contains(label.geometry().translated(label.parentWidget().pos()))
    window.files.save_to(tmp_path / "plan")
    assert window.new_scenario()
    assert _errors(window) == {} and window.state.error is None
    assert find(window, "spin_sequence_length").lineEdit().text() == "4,096 tokens"
    _type(qtbot, find(window, "spin_sequence_length"), "abc")
    assert window.files.open_path(tmp_path / "plan.gpusizer.json")
    assert _errors(window) == {}


def test_no_error_beside_a_valid_value(window, qtbot):
    seq = find(window, "spin_sequence_length")
    _type(qtbot, seq, "abc")
    assert "error_spin_sequence_length" in _errors(window)
    _type(qtbot, seq, "8k")
    window.state.flush()
    assert _errors(window) == {}
    _type(qtbot, find(window, "spin_tensor_parallel"), "3")
    window.state.flush()
    assert list(_errors(window)) == ["error_spin_tensor_parallel"]
    window.state.undo_stack.undo()  # back to a valid scenario: the message goes
    assert _errors(window) == {}


# -- 3. the window's shortcuts from a text field ----------------------------------------------
class GreedyEdit(QLineEdit):
    """A line edit that claims Ctrl+E as X11's key bindings make every QLineEdit do
    (QKeySequence::MoveToEndOfLine is Ctrl+E there; the offscreen platform binds End only)."""

    def event(self, e: QEvent) -> bool:
        if (
            isinstance(e, QKeyEvent)
            and e.type() == QEvent.Type.ShortcutOverride
            and e.key() == Qt.Key.Key_E
            and e.modifiers() == CTRL
        ):
            e.accept()
            return True
        return super().event(e)


def _fired(window: Any, qtbot: Any, focus: QWidget, key: Qt.Key, mods: Any, action: str) -> bool:
    hits: list[bool] = []
    act = window.findChild(QAction, action)
    act.triggered.connect(lambda *_a: hits.append(True))
    focus.setFocus()
    qtbot.keyClick(focus, key, mods)
    return bool(hits)


@pytest.mark.parametrize("name", ["spin_training_tokens", "edit_scenario_name", "edit_model_search"])
def test_window_shortcuts_work_in_a_text_field(window, qtbot, monkeypatch, name):
    _kind(qtbot, window, "pretraining")
    monkeypatch.setattr("gpusizer.gui.menus.export_chart_dialog", lambda _w: False)
    window.activateWindow()
    field = find(window, name)
    assert _fired(window, qtbot, field, Qt.Key.Key_E, CTRL, "action_export_chart")
    assert _fired(window, qtbot, field, Qt.Key.Key_2, CTRL, "action_tab_variants")
    assert window.tabs.current_key() == "variants"
    before = window.state.scenario.workload.sequence_length
    window.state.edit("workload.sequence_length", 1024, immediate=True)
    field.setFocus()
    qtbot.keyClick(field, Qt.Key.Key_Z, CTRL)  # the field has nothing typed to undo
    assert window.state.scenario.workload.sequence_length == before != 1024


def test_a_field_that_claims_the_key_still_lets_the_window_have_it(window, qtbot, monkeypatch):
    greedy = GreedyEdit(find(window, "left_column"))
    greedy.show()
    monkeypatch.setattr("gpusizer.gui.menus.export_chart_dialog", lambda _w: False)
    assert _fired(window, qtbot, greedy, Qt.Key.Key_E, CTRL, "action_export_chart")


def test_undo_in_a_field_with_typing_undoes_the_typing(window, qtbot):
    name = find(window, "edit_scenario_name")
    name.setFocus()
    name.selectAll()
    qtbot.keyClicks(name, "Plan A")
    before = window.state.undo_stack.index()
    qtbot.keyClick(name, Qt.Key.Key_Z, CTRL)
    assert name.text() != "Plan A" and window.state.undo_stack.index() == before


# -- 4. each kind keeps its own settings ------------------------------------------------------
def test_first_visit_to_a_kind_starts_from_its_defaults(window, qtbot):
    _kind(qtbot, window, "qlora")
    framework = find(window, "combo_framework")
    framework.setCurrentIndex(framework.findData("unsloth"))
    window.state.flush()
    s = window.state.scenario
    assert (s.parallelism.recompute, s.parallelism.activation_offload) == ("full", "checkpoints")
    _kind(qtbot, window, "pretraining")
    s = window.state.scenario
    assert s.framework == "huggingface" and s.workload.loss == "full"
    assert (s.parallelism.recompute, s.parallelism.activation_offload) == ("none", "none")
    message = window.statusBar().currentMessage()
    assert "Unsloth → Hugging Face" in message and "recompute full → none" in message
    _kind(qtbot, window, "qlora")  # QLoRA's own settings come back
    s = window.state.scenario
    assert s.framework == "unsloth" and s.parallelism.activation_offload == "checkpoints"


def test_serving_tp_does_not_carry_into_a_new_kind(window, qtbot):
    _kind(qtbot, window, "inference")
    _type(qtbot, find(window, "spin_tensor_parallel"), "4")
    window.state.flush()
    assert window.state.scenario.parallelism.tensor == 4
    _kind(qtbot, window, "qlora")
    assert window.state.scenario.parallelism.tensor == 1
    assert find(window, "spin_tensor_parallel").lineEdit().text() == "1"
    _kind(qtbot, window, "inference")
    assert window.state.scenario.parallelism.tensor == 4


# -- 5. nothing stale after an import ---------------------------------------------------------
def test_import_renames_and_a_later_preset_drops_the_gguf_weights(window, qtbot, tmp_path, monkeypatch):
    _kind(qtbot, window, "inference")
    assert window.files.open_any(tiny_llama_gguf(tmp_path, "Tiny Llama"))
    window.files.importer.wait()  # the import reads in a worker thread
    s = window.state.scenario
    assert s.name.startswith("Tiny Llama") and "Tiny Llama" in window.windowTitle()
    seen: list[str] = []

    def save(_parent, _title, start, *_a, **_k):
        seen.append(Path(start).name)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save)
    window.files.save_as()
    export_chart_dialog(window)
    assert all(name.startswith("tiny-llama") for name in seen), seen
    assert s.precision.weights == "gguf_q8_0"
    search = find(window, "edit_model_search")
    search.setFocus()
    qtbot.keyClicks(search, "qwen")
    qtbot.keyClick(search, Qt.Key.Key_Return)  # loads the first match
    s = window.state.scenario
    assert s.model.preset.startswith("qwen") and s.precision.weights == "bf16"
    _kind(qtbot, window, "pretraining")
    assert window.state.scenario.precision.weights == "bf16"


def test_undo_clears_the_undone_message_and_new_clears_the_search(window, qtbot, tmp_path):
    window.state.set_scenario({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}})
    assert window.files.open_any(tiny_llama_gguf(tmp_path, "Tiny Llama"))
    window.files.importer.wait()  # the import reads in a worker thread
    assert "Imported Tiny Llama" in window.statusBar().currentMessage()
    window.findChild(QAction, "action_undo").trigger()
    assert window.statusBar().currentMessage() == ""
    search = find(window, "edit_model_search")
    search.setFocus()
    qtbot.keyClicks(search, "gemma")
    assert window.new_scenario()
    assert search.text() == ""
    assert find(window, "tree_model_preset").currentItem().isHidden() is False


def test_gguf_whose_tensors_do_not_match_its_metadata_warns(window, tmp_path, message_boxes):
    kv = {
        "general.name": "Odd Llama",
        "llama.block_count": 40,  # the tensor table holds one layer
        "llama.embedding_length": 256,
        "llama.attention.head_count": 4,
        "llama.attention.head_count_kv": 2,
        "llama.feed_forward_length": 512,
        "general.file_type": 7,
    }
    tensors = [("token_embd.weight", (256, 1000), T.Q8_0), ("blk.0.attn_q.weight", (256, 256), T.Q8_0)]
    path = write_gguf(tmp_path / "odd.gguf", "llama", kv, tensors)
    assert window.files.open_any(path)
    window.files.importer.wait()
    assert any("does not match the metadata" in text for _k, text in message_boxes)


# -- 6, 7. labels that say what is used --------------------------------------------------------
def test_one_users_field_is_the_target_and_the_other_says_per_replica(window, qtbot):
    _kind(qtbot, window, "inference")
    captions = {
        path: label.text()
        for panel in window.panels
        for path, label in panel.form.labels.items()
        if label.isVisibleTo(window)
    }
    assert [text for text in captions.values() if "at once" in text.lower()] == []
    assert captions["targets.users"] == "Users to serve"
    assert captions["serving.concurrency"] == "Requests per replica"
    _type(qtbot, find(window, "spin_target_users"), "64")
    window.state.flush()
    assert window.state.scenario.targets.users == 64 and window.state.scenario.serving.concurrency is None


def test_qlora_weights_box_shows_nf4(window, qtbot):
    weights = find(window, "combo_precision_weights")
    _kind(qtbot, window, "qlora")
    assert weights.currentData() == "nf4"
    _kind(qtbot, window, "lora")
    assert weights.currentData() == "bf16"


# -- 8. JSON counts ------------------------------------------------------------------------------
def test_a_file_with_7e9_parameters_opens(window, tmp_path, message_boxes):
    path = tmp_path / "size.gpusizer.json"
    path.write_text(
        '{"model": {"name": "m", "parameters": 7e9}, "workload": {"kind": "lora", "sequence_length": 4096.0}}'
    )
    assert window.files.open_path(path)
    assert window.state.scenario.model.parameters == 7_000_000_000
    for bad in ("true", '"8"', "7.5"):
        path.write_text(json.dumps({"model": {"name": "m"}}).replace('"m"}', f'"m", "parameters": {bad}}}'))
        assert not window.files.open_path(path)
    assert len(message_boxes) == 3


# -- 9. limits written as the field's quantities -------------------------------------------------
def test_limit_in_a_message_reads_as_the_field_writes(window, qtbot):
    _type(qtbot, find(window, "spin_sequence_length"), "128M")
    message = _errors(window)["error_spin_sequence_length"]
    assert "at most 64M tokens" in message and "e+" not in message
    _type(qtbot, find(window, "spin_micro_batch_size"), "0")
    assert "at most 16,777,216" in _errors(window)["error_spin_micro_batch_size"]


def test_every_field_error_is_free_of_scientific_notation(window, qtbot):
    for field in window.findChildren(QuantityField):
        if field.isVisibleTo(window):
            message = field.limits.text(field.limit_text)
            assert "e+" not in message and "e-" not in message, (field.path, message)


def test_targets_of_the_previous_scenario_are_reset_and_said(window, qtbot, tmp_path):
    # targets set for one model do not carry over to an imported one, nor survive New, silently
    window.state.set_scenario(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "targets": {"users": 64}}
    )
    assert window.files.open_any(tiny_llama_gguf(tmp_path, "Tiny Llama"))
    window.files.importer.wait()  # the import reads in a worker thread
    assert window.state.scenario.targets.users is None
    assert "targets reset" in window.statusBar().currentMessage()
    window.state.edit("targets.users", 8, immediate=True)
    assert window.new_scenario()
    assert window.state.scenario.targets.users is None
    assert "targets reset" in window.statusBar().currentMessage()
