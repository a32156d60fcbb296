"""The node bound in the window (core/limits.py ``MAX_NODE_GPUS``, 65,536): "GPUs per node"
refuses a million beside the field, typed or set, and keeps the last valid scenario; a file
whose inline unified-memory GPU has such a node is refused naming that GPU's field. Before:
both were accepted and the answer read "1 x My UM (1 node)" of a million-GPU node."""

from __future__ import annotations

import json

from gpusizer.core.limits import MAX_NODE_GPUS
from tests.core.test_node_gpus_bound import _block, _inline

from .helpers import error_text, find, set_scenario
from .test_hostile_rl_gui import refused


def test_a_million_gpus_a_node_is_refused_beside_the_field(window) -> None:
    set_scenario(window, _block(8))
    for value in (10**6, MAX_NODE_GPUS + 1, 0, -1, 1.5, "8", True):
        refused(window, "hardware.gpus_per_node", value, "spin_gpus_per_node")
    window.state.edit("hardware.gpus_per_node", 8, immediate=True)
    assert window.state.error is None, window.state.error


def test_typing_a_million_names_the_allowed_counts(window) -> None:
    set_scenario(window, _block(8))
    field = find(window, "spin_gpus_per_node")
    field.lineEdit().setText("1M")
    field.interpretText()
    shown = error_text(window, "spin_gpus_per_node")
    assert "at least 1 and at most 65,536" in shown, shown
    assert window.state.scenario.hardware.gpus_per_node == 8  # the last valid value stays
    field.lineEdit().setText(f"{MAX_NODE_GPUS}")
    field.interpretText()
    window.state.flush()
    assert error_text(window, "spin_gpus_per_node") == ""
    assert window.state.scenario.hardware.gpus_per_node == MAX_NODE_GPUS


def test_a_file_whose_unified_gpu_has_a_million_gpu_node_is_refused_naming_it(
    window, tmp_path, message_boxes
) -> None:
    set_scenario(window, _inline(1))
    path = tmp_path / "um.gpusizer.json"
    path.write_text(json.dumps(_inline(10**6)), encoding="utf-8")
    assert not window.files.open_path(path, ask=False)
    assert message_boxes, "no message"
    text = message_boxes[-1][1]
    assert "hardware.gpu.gpus_per_node" in text and str(MAX_NODE_GPUS) in text, text
    assert window.state.scenario.hardware.gpu.gpus_per_node == 1  # the last valid scenario
