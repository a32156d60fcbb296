"""The practical cap on a scale-out of cards sold for desks: how far the advice grows boxes of
GeForce, Radeon or workstation cards before it says the cap, not memory or speed, stops it.

Consumer cards come one to four to a box, the boxes linked over Ethernet (core/sizing/units.py,
core/sizing/links.py); past a handful of boxes that is a data-centre deployment built from
parts not made for one, and NVIDIA's GeForce driver licence excludes data-centre deployment
("No Datacenter Deployment. The SOFTWARE is not licensed for datacenter deployment, except
that blockchain processing in a datacenter is permitted", https://www.nvidia.com/en-us/drivers/geforce-license/).
The cap, :data:`CONSUMER_MAX_GPUS` = 32 cards (eight boxes of four), is a stated policy, not a
measured figure.

Workstation cards (RTX 6000 Ada, RTX PRO 6000 Blackwell Workstation Edition, RTX A6000, Radeon
Pro W7900, Radeon AI Pro R9700, Arc Pro B60; ``category`` "workstation") are sold for
workstations: PCIe cards without NVLink, up to four to a box (their presets' ``gpus_per_node``,
the catalog's largest system of the card: presets/systems/workstation-rtxpro6000-x4.json), and
the catalog's systems of them carry no scale-out fabric, one 10GbE port a box (``scale_out``
"ethernet", 1.25 GB/s a box) where the data-centre servers carry 400 Gb/s InfiniBand or
Ethernet a GPU (hgx-h100-8gpu.json, mi300x-8gpu.json). So they stop at the same eight boxes
(:data:`BOXES`) of the largest box the catalog sells them in: 32 cards, a stated policy like
the consumer cap, instead of an unbuyable 1,820-card answer. Data-centre GPUs, PCIe ones
included (sold in servers with their NICs), are not capped (``max_gpus`` only).

Desk-side unified-memory machines (DGX Spark, Mac Studio, Ryzen AI Max mini-PCs; ``category``
"unified_memory") are one GPU a box, linked only over the box's own port: DGX Spark's one
ConnectX-7 (NVIDIA supports a pair: presets/systems/dgx-spark-x2.json), a Mac's Thunderbolt,
a Ryzen AI Max desktop's 5 GbE (their presets' ``interconnect_kind`` and ``network_gb_per_s``).
The same eight boxes of the largest unit the catalog sells apply: 16 Sparks (eight pairs), 8 Macs,
8 mini-PCs, rather than thousands of desk-side boxes priced as a cluster.
"""

from __future__ import annotations

from ..model.presets import gpu_presets, gpu_systems
from ..model.specs import GPUSpec

CONSUMER_MAX_GPUS = 32  # eight 4-card boxes over Ethernet
BOXES = 8  # boxes of desk-side cards the advice links over Ethernet before the cap


def largest_box(spec: GPUSpec) -> int:
    """The most cards of ``spec`` one catalog unit holds: its largest system, else a box of
    ``gpus_per_node`` cards."""
    systems = gpu_systems(spec.id) if spec.id in gpu_presets() else []
    return max([spec.gpus_per_node, *(s.gpus for s in systems)])


def practical_cap(spec: GPUSpec) -> int | None:
    """The most GPUs the advice buys of ``spec`` (None: only the search's ``max_gpus``)."""
    if spec.category == "consumer":
        return CONSUMER_MAX_GPUS
    if spec.category in ("workstation", "unified_memory"):
        return BOXES * largest_box(spec)
    return None


def cap_words(cap: int, spec: GPUSpec | None = None) -> str:
    """Why the count stops there, in one phrase (``spec``: the card capped; None or a consumer
    card: the consumer wording)."""
    if spec is not None and spec.category == "workstation":
        box = largest_box(spec)
        return (
            f"beyond {cap:,} cards: no scale-out fabric for this card ({spec.name} is sold in "
            f"workstations of up to {box} PCIe cards with one 10GbE port, {cap // box} of them at "
            "most; no NVLink, InfiniBand or 400 GbE NIC): choose data-centre GPUs"
        )
    if spec is not None and spec.category == "unified_memory":
        box, rate = largest_box(spec), spec.network_gb_per_s
        port = f"{spec.interconnect_kind or 'network'} port" + (f" ({rate:g} GB/s)" if rate else "")
        sets = "units" if box == 1 else f"sets of {box}"
        return (
            f"beyond {cap:,} units: {spec.name} is a desk-side machine linked to others only over "
            f"its own {port}, {cap // box} {sets} at most; choose data-centre GPUs"
        )
    return (
        f"consumer cards stop at {cap:,} (eight 4-card boxes over Ethernet; more is a data-centre "
        "deployment, which the GeForce driver licence excludes): choose workstation or data-centre GPUs"
    )
