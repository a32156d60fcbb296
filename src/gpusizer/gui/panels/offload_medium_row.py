"""The Serving panel's "Offload tier" row (``serving.kv_offload.medium``, docs/scenario-format.md):
where the offloaded prefix cache is kept, host memory (null, "cpu") or a local disk ("disk").
The tier sets the link a hit loads back over when "Offload link" is blank (core/serving/
kv_offload.py ``bandwidth``: 54 GB/s for host memory over PCIe 5.0, 6 for a disk) and whether
each engine block is one copy (a disk's reads are its bandwidth's). The list offers the tiers
the engine runs (core/registry/serving_support.py ``kv_offload``: llama.cpp's ``--cache-ram``
keeps host memory only); a held tier it does not run stays, named so, with the core's refusal
beside it. Shown with the offload on, or while it holds a value."""

from __future__ import annotations

from typing import Any

from ...core.registry.frameworks import FrameworkProfile
from ...core.serving.kv_offload import DISK_GB_PER_S
from ..quantity_field import QuantityField
from ..state import ScenarioState
from ..widgets import ComboBox, Form, combo
from .serving_feature_rows import fill_methods, table_of

MEDIUM = "serving.kv_offload.medium"
CAPACITY = "serving.kv_offload.capacity_gb"
BANDWIDTH = "serving.kv_offload.bandwidth_gb_per_s"
TIERS: tuple[tuple[str, Any], ...] = (
    ("host memory (default)", None),
    ("host memory (cpu)", "cpu"),
    ("local disk", "disk"),
)
TIP = (
    "Where the offloaded prefix cache is kept: host memory (vLLM --kv-offloading-size, LMCache's "
    "CPU tier, llama.cpp --cache-ram) or a local disk (LMCache local_disk, SGLang HiCache, "
    "Dynamo KVBM). Blank \u201cOffload link\u201d: a hit loads back at 54 GB/s per GPU from host "
    "memory over PCIe 5.0 (27 below compute capability 9.0, 380 on a Grace CPU), 6 GB/s from a "
    "disk (core/serving/kv_offload.py)."
)


def add_offload_medium(f: Form) -> ComboBox:
    """The row, under the offload's capacity."""
    box = combo(list(TIERS))
    box.setToolTip(TIP)
    f.add("Offload tier", box, MEDIUM, name="combo_serving_kv_offload_medium")
    f.labels[MEDIUM].setToolTip(TIP)
    return box


def refresh_offload_rows(f: Form, box: ComboBox, state: ScenarioState, profile: FrameworkProfile) -> None:
    """The link and the tier with the offload on; the tier's list as the engine runs it."""
    offload = state.value(CAPACITY) is not None
    held = state.value(MEDIUM)
    f.show(BANDWIDTH, offload)
    f.show(MEDIUM, offload or held is not None)
    table = table_of(state, profile)
    runs = (lambda m: True) if table is None else table.kv_offload.runs
    items = [(label, m) for label, m in TIERS if m is None or runs(m)]
    if held is not None and held not in [m for _, m in items]:
        engine = table.engine if table is not None else "this engine"
        items.append((f"{held}: not run by {engine}", held))
    fill_methods(box, items, held)
    link = f.rows[BANDWIDTH].findChild(QuantityField)
    if link is not None:  # a blank link is the tier's (kv_offload.py ``bandwidth``)
        disk = f"default: disk, {DISK_GB_PER_S:g} GB/s"
        link.setSpecialValueText(disk if held == "disk" else "default: PCIe")
