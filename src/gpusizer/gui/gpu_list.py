"""The GPU dropdown's entries: the catalog by vendor and memory, then the user's own GPUs
("my GPUs"), then "Custom GPU…". A user GPU the spec refuses is left out and named, so a
damaged user-GPU file never stops the window."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtWidgets import QComboBox

from ..core.model.presets import gpu_presets, gpu_spec, user_gpus
from ..core.model.specs import GPUSpec
from ..io.units import fmt_bytes
from .binding import plain_text
from .widgets import fit_popup

log = logging.getLogger(__name__)
CUSTOM = "custom"
_VENDOR_ORDER = {"NVIDIA": 0, "AMD": 1, "Intel": 2}


def _label(spec: GPUSpec, unit: str = "GiB") -> str:
    return f"{plain_text(spec.name)} — {fmt_bytes(spec.capacity_bytes, unit, 1)} usable"


def gpu_entries(unit: str = "GiB") -> tuple[list[tuple[str, str]], list[tuple[str, str]], list[str]]:
    """(catalog items, user items, names of user GPUs left out); items are (label, id), the
    usable memory in ``unit`` (GiB or GB, as View > Units chose)."""
    mine = set(user_gpus())
    specs: dict[str, GPUSpec] = {}
    skipped: list[str] = []
    for gid in gpu_presets():
        try:  # the spec's rule (a unified-memory GPU's share of RAM), as the estimate uses
            specs[gid] = gpu_spec(gid)
        except Exception as exc:  # a damaged user GPU: left out, and named
            log.warning("user GPU %r left out: %s", gid, exc)
            skipped.append(plain_text(gid)[:40])

    def order(gid: str) -> tuple[int, str, float]:
        s = specs[gid]
        return _VENDOR_ORDER.get(s.vendor, 9), s.vendor, -float(s.memory_bytes)

    catalog = [(_label(specs[g], unit), g) for g in sorted(specs, key=order) if g not in mine]
    own = [(_label(specs[g], unit), g) for g in sorted(specs, key=order) if g in mine]
    return catalog, own, skipped


def fill_gpu_combo(combo: QComboBox, unit: str = "GiB") -> list[str]:
    """(Re)fill the dropdown; returns the names left out. The popup is as wide as the longest
    name (long names are not cut there)."""
    catalog, own, skipped = gpu_entries(unit)
    blocked = combo.blockSignals(True)
    try:
        combo.clear()
        for label, gid in catalog:
            combo.addItem(label, gid)
        if own:
            combo.insertSeparator(combo.count())
            for label, gid in own:
                combo.addItem(f"★ {label}", gid)
        combo.insertSeparator(combo.count())
        combo.addItem("Custom GPU…", CUSTOM)
    finally:
        combo.blockSignals(blocked)
    fit_popup(combo)
    return skipped


def relabel_gpu_combo(combo: QComboBox, unit: str) -> None:
    """The entries' usable memory in ``unit``, in place: the choice and the list stay (a
    refill would reset the selection); the entries said GiB with GB chosen."""
    catalog, own, _skipped = gpu_entries(unit)
    labels = {gid: label for label, gid in catalog} | {gid: f"★ {label}" for label, gid in own}
    blocked = combo.blockSignals(True)
    try:
        for i in range(combo.count()):
            if combo.itemData(i) in labels:
                combo.setItemText(i, labels[combo.itemData(i)])
    finally:
        combo.blockSignals(blocked)
    fit_popup(combo)


def custom_spec(g: GPUSpec) -> dict[str, Any]:
    """An inline GPU starting from ``g`` (its usable memory as the memory)."""
    spec = g.model_dump(mode="json")
    spec.update(
        id="custom-gpu",
        name=f"Custom ({g.name})" if g.vendor != "custom" else g.name,
        vendor="custom",
        memory_bytes=g.capacity_bytes,
        usable_memory_bytes=None,
        unified_memory=False,
        gpu_memory_fraction=None,
    )
    return spec
