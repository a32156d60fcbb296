"""What a saved file keeps and what "unsaved" means: each kind's own settings travel with the
file (its ``other_kinds`` block) and come back after reopening; the unsaved mark follows the
content, not the undo history; a malformed block is refused whole."""

from __future__ import annotations

import json

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.io.scenario_file import load_scenario_file, save_scenario

from .helpers import find


def _kind(window, kind: str) -> None:
    combo = find(window, "combo_workload_kind")
    combo.setCurrentIndex(combo.findData(kind))
    window.state.flush()


def test_each_kinds_settings_survive_save_and_reopen(window, tmp_path):
    _kind(window, "inference")
    fw = find(window, "combo_framework")
    fw.setCurrentIndex(fw.findData("vllm"))
    window.state.flush()
    _kind(window, "lora")  # serving's vLLM is kept aside
    assert window.state.scenario.framework != "vllm"
    path = tmp_path / "two-kinds.gpusizer.json"
    assert window.files.save_to(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["other_kinds"]["inference"]["framework"] == "vllm"
    assert "lora" not in saved["other_kinds"]  # the kind shown is the scenario itself
    window.new_scenario()
    assert window.files.open_path(path)
    _kind(window, "inference")
    assert window.state.scenario.framework == "vllm"  # back, as before the save
    assert "settings are back" in window.statusBar().currentMessage()


def test_files_with_other_kinds_still_parse_for_scripts(tmp_path):
    """The API and the CLI read such a file as before: the block is checked, then left aside."""
    data = {"model": {"preset": "llama-3.1-8b"}, "other_kinds": {"inference": {"framework": "vllm"}}}
    path = save_scenario(
        parse_scenario(data), tmp_path / "a.gpusizer.json", {"inference": {"framework": "vllm"}}
    )
    scenario, others = load_scenario_file(path)
    assert others == {"inference": {"framework": "vllm"}} and scenario == parse_scenario(data)


@pytest.mark.parametrize(
    ("block", "field"),
    [
        ([1], "other_kinds"),
        ({"no-such-kind": {}}, "other_kinds.'no-such-kind'"),
        ({"inference": "vllm"}, "other_kinds.inference"),
    ],
)
def test_a_malformed_other_kinds_block_is_refused_naming_it(block, field):
    with pytest.raises(ScenarioError) as err:
        parse_scenario({"model": {"preset": "llama-3.1-8b"}, "other_kinds": block})
    assert err.value.field == field


def test_the_unsaved_mark_follows_the_content(window, tmp_path):
    path = tmp_path / "s.gpusizer.json"
    assert window.files.save_to(path)
    assert not window.isWindowModified()
    spin = find(window, "spin_tensor_parallel")
    spin.setValue(2)
    window.state.flush()
    assert window.isWindowModified() and window.files.modified
    spin.setValue(1)  # back to the saved value: nothing to save, though two edits are on the stack
    window.state.flush()
    assert window.state.undo_stack.count() >= 2
    assert not window.isWindowModified() and not window.files.modified
    window.state.undo_stack.undo()  # undo to 2: changed again
    assert window.isWindowModified()
