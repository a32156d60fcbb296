"""Choosing a GPU in the window takes its default node (docs/scenario-format.md
``hardware.gpus_per_node``: 72 on a GB200/GB300 NVL72) unless the user chose another count."""

from __future__ import annotations

import pytest

from gpusizer.gui.state import ScenarioState


@pytest.fixture
def state(qtbot):
    return ScenarioState(merge_ms=0)


def test_a_gb200_takes_its_nvl72_node_and_an_hgx_gpu_its_eight(state):
    assert state.scenario.hardware.gpus_per_node == 8  # the default H100
    state.edit("hardware.gpu", "gb200-186gb", immediate=True)
    assert state.scenario.hardware.gpus_per_node == 72
    state.edit("hardware.gpu", "b200-192gb", immediate=True)
    assert state.scenario.hardware.gpus_per_node == 8
    state.undo_stack.undo()
    assert state.scenario.hardware.gpu == "gb200-186gb" and state.scenario.hardware.gpus_per_node == 72


def test_a_node_the_user_chose_is_kept(state):
    state.edit("hardware.gpus_per_node", 4, immediate=True)
    state.edit("hardware.gpu", "gb200-186gb", immediate=True)
    assert state.scenario.hardware.gpus_per_node == 4
    # both set together: the stated node wins
    state.edit_many({"hardware.gpu": "gb300-288gb", "hardware.gpus_per_node": 8})
    assert state.scenario.hardware.gpus_per_node == 8


def test_the_host_cpu_combo_sets_the_field_and_empty_follows_the_gpu(qtbot):
    """``hardware.host_cpu`` in the Hardware panel: "From the GPU's systems" is null (a GB200's
    systems name Grace), a chosen host is kept (docs/scenario-format.md)."""
    from gpusizer.gui.binding import Binder
    from gpusizer.gui.panels.hardware_panel import HardwarePanel

    state = ScenarioState(merge_ms=0)
    panel = HardwarePanel(Binder(state))
    qtbot.addWidget(panel.box)
    host = panel.box.findChild(type(panel.gpu), "combo_host_cpu")
    assert host is not None
    assert host.currentData() is None and state.scenario.hardware.host_cpu is None
    host.setCurrentIndex(host.findData("grace"))
    state.flush()
    assert state.scenario.hardware.host_cpu == "grace"
    state.edit("hardware.host_cpu", None, immediate=True)
    assert host.currentData() is None


def test_a_mac_shows_its_one_box_node_without_writing_it(qtbot):
    """A unified-memory GPU's node is its catalog's 1 (presets/gpus/apple-m3-ultra-512gb.json);
    the Hardware panel's spin box shows it and the scenario leaves the field unset."""
    from gpusizer.gui.binding import Binder
    from gpusizer.gui.panels.hardware_panel import HardwarePanel
    from gpusizer.gui.quantity_field import QuantityField

    state = ScenarioState(merge_ms=0)
    panel = HardwarePanel(Binder(state))
    qtbot.addWidget(panel.box)
    state.edit("hardware.gpu", "apple-m3-ultra-512gb", immediate=True)
    assert state.scenario.hardware.gpus_per_node == 1
    assert "gpus_per_node" not in state.scenario.hardware.model_fields_set
    spin = panel.box.findChild(QuantityField, "spin_gpus_per_node")
    assert spin is not None and spin.value() == 1


def test_back_from_a_mac_the_hgx_gpu_takes_eight_again(state):
    state.edit("hardware.gpu", "apple-m3-ultra-512gb", immediate=True)
    assert state.scenario.hardware.gpus_per_node == 1
    state.edit("hardware.gpu", "h100-sxm-80gb", immediate=True)
    assert state.scenario.hardware.gpus_per_node == 8
