"""GPU architecture keys of the achieved-rates table (core/speed/rates.py): which family a
catalog GPU belongs to, read from its vendor, compute capability and product name, and the
:class:`Device` protocol of what the table reads of a GPU (core/model/specs.GPUSpec). The keys
and their sources: core/speed/rates.py's docstring and the comments below.
"""

from __future__ import annotations

import re
from typing import Protocol


class Device(Protocol):
    """What the table reads of a GPU (core/model/specs.GPUSpec)."""

    @property
    def name(self) -> str: ...

    @property
    def vendor(self) -> str: ...

    @property
    def compute_capability(self) -> str | None: ...

    @property
    def unified_memory(self) -> bool: ...

    @property
    def category(self) -> str | None: ...

    @property
    def tdp_watts(self) -> float | None: ...


# Apple silicon by chip generation: M3 and later GPUs allocate registers and threadgroup
# memory as a kernel runs ("Dynamic Caching", Apple newsroom 2023-10-30), M1/M2 by the
# kernel's worst case
_APPLE_CHIP = re.compile(r"\bM(\d+)\b", re.IGNORECASE)


# AMD Instinct by product number: MI300X/MI325X are CDNA3 (gfx942), MI350X/MI355X CDNA4
# (gfx950); AMD's CDNA3 and CDNA4 white papers. Older Instinct (MI250X, CDNA2) stays "amd".
_INSTINCT = re.compile(r"\bMI3(\d)\d")
_CDNA = {"0": "cdna3", "2": "cdna3", "5": "cdna4"}
# Radeon by product number: RX 7000 and PRO W7000 are RDNA3 (Navi 3x), RX 9000 and AI PRO R9000
# RDNA4 (Navi 4x); AMD's product pages.
# Intel Arc by series letter: B (Battlemage) is Xe2-HPG, A (Alchemist) Xe-HPG; Intel's product pages.
_ARC = re.compile(r"\bArc (?:Pro )?([AB])\d{2,3}\b")
_RDNA = ((re.compile(r"\b(?:RX 7|W7)\d{3}\b"), "rdna3"), (re.compile(r"\b(?:RX 9|R9)\d{3}\b"), "rdna4"))


def apple_chip(gpu: Device) -> int:
    """The Apple silicon generation of ``gpu`` from its name (3 for "M3 Ultra"; 2 where the
    name states none)."""
    gen = _APPLE_CHIP.search(gpu.name)
    return int(gen.group(1)) if gen else 2


def gpu_family(gpu: Device) -> str:
    """The architecture key of a GPU (core/speed/rates.py's docstring lists them)."""
    vendor = gpu.vendor.lower()
    if vendor == "apple":
        chip = apple_chip(gpu)
        return "apple-m3" if chip >= 3 else "apple-m1" if chip == 1 else "apple"
    cc = gpu.compute_capability
    if vendor == "nvidia" and cc:
        major, minor = (int(x) for x in cc.split("."))
        return {
            (8, 0): "ampere-hbm",
            (8, 6): "ampere",
            (8, 7): "ampere",
            (8, 9): "ada",
            (9, 0): "hopper",
            (12, 0): "blackwell-rtx",
            (12, 1): "gb10",
        }.get((major, minor), "blackwell" if major == 10 else "other")
    if vendor == "amd":
        if gpu.unified_memory:
            return "apu"
        inst = _INSTINCT.search(gpu.name)
        if inst:
            return _CDNA.get(inst.group(1), "amd")
        return next((fam for pattern, fam in _RDNA if pattern.search(gpu.name)), "amd")
    arc = _ARC.search(gpu.name) if vendor == "intel" else None
    if arc:
        return "xe2" if arc.group(1) == "B" else "xe-hpg"
    return "apu" if gpu.unified_memory else "other"
