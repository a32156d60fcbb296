"""File menu: save/open round trip, malformed files refused whole, recent files, config.json
import (also by drop), exports."""

from __future__ import annotations

import csv
import io
import json

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from gpusizer.gui.files import classify_json, with_suffix

from .helpers import drop_path, find

LLAMA_LIKE_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_attention_heads": 32,
    "num_hidden_layers": 22,
    "num_key_value_heads": 4,
    "vocab_size": 32000,
    "max_position_embeddings": 2048,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def test_save_and_open_round_trip(window, tmp_path):
    find(window, "spin_tensor_parallel").setValue(2)
    find(window, "spin_data_parallel").setValue(4)
    window.state.flush()
    saved = window.state.scenario
    assert window.files.save_to(tmp_path / "plan")
    path = tmp_path / "plan.gpusizer.json"
    assert path.is_file() and not list(tmp_path.glob(".tmp-*"))
    window.new_scenario()
    assert window.state.scenario != saved
    assert window.files.open_path(path)
    assert window.state.scenario == saved
    assert find(window, "spin_tensor_parallel").value() == 2
    assert window.files.path == path
    assert "(plan.gpusizer.json)" in window.windowTitle()


def test_custom_model_and_gpu_round_trip(window, tmp_path):
    source = find(window, "combo_model_source")
    source.setCurrentIndex(source.findData("custom"))
    find(window, "spin_model_layers").setValue(20)
    gpu = find(window, "combo_gpu")
    gpu.setCurrentIndex(gpu.findData("custom"))
    window.state.flush()
    saved = window.state.scenario
    assert window.files.save_to(tmp_path / "custom.gpusizer.json")
    window.new_scenario()
    assert window.files.open_path(tmp_path / "custom.gpusizer.json")
    assert window.state.scenario == saved


@pytest.mark.parametrize(
    "text, reason",
    [
        ("{not json", "not valid JSON"),
        ('["a", "list"]', "JSON object"),
        ('{"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "dance"}}', "workload.kind"),
        ('{"model": {"preset": "llama-3.1-8b"}, "parallelism": {"tensr": 2}}', "parallelism.tensr"),
    ],
)
def test_malformed_file_is_refused_whole(window, tmp_path, message_boxes, text, reason):
    before = window.state.scenario
    bad = tmp_path / "bad.gpusizer.json"
    bad.write_text(text, encoding="utf-8")
    assert not window.files.open_path(bad)
    assert window.state.scenario is before
    assert message_boxes and reason in message_boxes[-1][1]
    assert window.files.path is None


def test_recent_files_are_remembered(window, tmp_path):
    for name in ("a", "b", "a"):
        window.files.save_to(tmp_path / name)
    recent = window.prefs.recent_files()
    assert [p.rsplit("/", 1)[-1] for p in recent] == ["a.gpusizer.json", "b.gpusizer.json"]
    actions = [a.text() for a in window.recent_menu.actions() if a.text()]
    assert any("a.gpusizer.json" in t for t in actions)


def test_import_hf_config_replaces_only_the_model(window, tmp_path, monkeypatch):
    """Ctrl+I (File > Import Hugging Face config.json…) on a config imports the model; the
    window starts on LoRA, so the precision stays too (gui/model_import.py)."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps(LLAMA_LIKE_CONFIG), encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(config), ""))
    before = window.state.scenario
    assert classify_json(config) == "hf_config"
    action = window.findChild(QAction, "action_import_hf")
    assert action.shortcut().toString() == "Ctrl+I"
    action.trigger()
    model = window.state.scenario.model
    assert (model.layers, model.hidden_size, model.kv_heads) == (22, 2048, 4)
    assert window.state.scenario.workload == before.workload
    assert window.state.scenario.precision == before.precision
    assert find(window, "combo_model_source").currentData() == "custom"


def test_drop_a_scenario_and_a_config(window, tmp_path):
    scenario = tmp_path / "dropped.gpusizer.json"
    scenario.write_text(json.dumps({"model": {"preset": "gpt-2"}}), encoding="utf-8")
    config = tmp_path / "config.json"
    config.write_text(json.dumps(LLAMA_LIKE_CONFIG), encoding="utf-8")
    for path, check in ((scenario, lambda m: m.preset == "gpt-2"), (config, lambda m: m.layers == 22)):
        drop_path(window, path)
        assert check(window.state.scenario.model)


def test_unknown_json_is_refused(window, tmp_path, message_boxes):
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    assert not window.files.open_any(other)
    assert "neither" in message_boxes[-1][1]


def test_export_report_formats(window, tmp_path):
    for suffix in (".json", ".csv", ".md"):
        assert window.files.export_report(tmp_path / f"r{suffix}", "GiB")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["per_gpu"]["total"] == window.state.estimate.memory.total
    rows = dict(csv.reader(io.StringIO((tmp_path / "r.csv").read_text())))
    assert int(rows["per_gpu.total"]) == report["per_gpu"]["total"]
    markdown = (tmp_path / "r.md").read_text()
    assert "| Weights |" in markdown and "per GPU" in markdown


def test_export_chart_png_svg_csv(window, tmp_path):
    chart = window.tabs.current_chart()
    if chart is None:
        pytest.skip("charts not available")
    for suffix in (".png", ".svg", ".csv"):
        assert window.files.export_chart(chart, tmp_path / f"chart{suffix}")
        assert (tmp_path / f"chart{suffix}").stat().st_size > 100


def test_suffix_is_added():
    assert with_suffix("/x/plan").name == "plan.gpusizer.json"
    assert with_suffix("/x/plan.json").name == "plan.json"


def test_a_document_the_system_opens_opens_in_the_window(window, tmp_path):
    """macOS hands a double-clicked .gpusizer.json to the app as a QFileOpenEvent (the
    Info.plist's document type, packaging/targets.py)."""
    from PySide6.QtGui import QFileOpenEvent
    from PySide6.QtWidgets import QApplication

    from gpusizer.gui.app import open_documents

    path = tmp_path / "plan.gpusizer.json"
    path.write_text(
        json.dumps({"model": {"preset": "gpt-2"}, "workload": {"kind": "lora"}}), encoding="utf-8"
    )
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    open_documents(app, window)
    QApplication.sendEvent(app, QFileOpenEvent(str(path)))
    assert window.state.scenario.model.preset == "gpt-2" and window.files.path == path
