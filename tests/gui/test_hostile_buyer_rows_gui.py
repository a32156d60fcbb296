"""Hostile values of the buyer's rows (gui/panels/buyer_rows.py, offload_medium_row.py): each
refusal shows beside the new widget in the core's words (pydantic's bounds on the hardware,
compute and precision blocks; the tier's literal), the status bar names the field ("Not
applied: <field>: ..."), the row stays shown while the value is held, and the scenario keeps
its last valid value."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import error_text, find, refuse_edit, row_visible
from .test_buyer_rows_gui import HALF_NODE, MAC_LORA, OFFLOAD, TWO_NODES

ABOVE_0 = "greater than or equal to 0.000001"  # a rate's floor (core/limits.py)
CROSS = "hardware.allow_cross_node_tensor_parallel"
CASES = (  # (base, path, hostile value, widget, words of the refusal)
    (MAC_LORA, "hardware.gpu_memory_fraction", 0, "spin_gpu_memory_fraction", "greater than 0"),
    (MAC_LORA, "hardware.gpu_memory_fraction", 1.5, "spin_gpu_memory_fraction", "less than or equal to 1"),
    (MAC_LORA, "hardware.gpu_memory_fraction", "90%", "spin_gpu_memory_fraction", "valid number"),
    (TWO_NODES, "hardware.network_gb_per_s", 0, "spin_network_gb_per_s", ABOVE_0),
    (TWO_NODES, "hardware.network_gb_per_s", -50, "spin_network_gb_per_s", ABOVE_0),
    (TWO_NODES, "compute.effective_time_share", 1.5, "spin_effective_time_share", "less than or equal to 1"),
    (TWO_NODES, "compute.effective_time_share", 0, "spin_effective_time_share", "or equal to 0.001"),
    (TWO_NODES, "precision.matmuls", "FP8", "combo_precision_matmuls", "'fp8'"),
    (TWO_NODES, "precision.matmuls", "int8", "combo_precision_matmuls", "'fp8'"),
    (HALF_NODE, CROSS, "yes", "check_allow_cross_node_tensor_parallel", "boolean"),
    (OFFLOAD, "serving.kv_offload.medium", "Disk", "combo_serving_kv_offload_medium", "'disk'"),
    (OFFLOAD, "serving.kv_offload.medium", "nvme", "combo_serving_kv_offload_medium", "'disk'"),
)


@pytest.mark.parametrize(("base", "path", "value", "widget", "words"), CASES)
def test_refused_beside_the_new_widget(window, base: dict[str, Any], path, value, widget, words) -> None:
    refuse_edit(window, base, path, value)
    shown = error_text(window, widget)
    assert words in shown, shown
    said = window.statusBar().currentMessage()  # "Not applied: <the field>: <why>"
    assert said.startswith(f"Not applied: {path}: ") and words in said, said
    assert row_visible(find(window, widget))  # held, so shown where the refusal is
