"""The host a box of consumer or workstation cards sold alone needs, priced when owning.

A card runs only in a host: CPU, board, RAM, drives and a power supply. The catalog prices a box
of cards sold alone as its cards (core/sizing/systems.py ``_box_unit``), with their board power.
The same cards bought in a catalog workstation carry that host:

- presets/systems/workstation-rtx4090-x1.json: "1 x (card street price $2,270 + per-card
  system overhead $650)" (``list_price_basis``, the July-2026 rig-calculator snapshot), and
  "1 x 450 W card board power + 400 W for the platform (CPU, board, drives, PSU loss)"
  (``power_source``);
- the RTX 5090 builds add $700 a card, the RTX PRO 6000 builds $1,100; every build 400 W a box.

On the owned basis the purchase is the cost, so a bare card ranked against whole workstations
and Macs without its host: an Arc B580 at $249 for a 70B QLoRA above a $2,920 RTX 4090
workstation. So, owning, a box of consumer or workstation cards with no catalog system is
priced with the least host the catalog's own workstations add: per card, and the platform's
watts per box. The figures are read from those files (:func:`least_host`), not typed here.

Renting is unchanged (a cloud's hourly price is the whole machine's). Data-centre PCIe cards
(a server around up to 8 of them) have no such figure in the catalog and stay cards only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..model.presets import gpu_presets, system_presets
from ..model.specs import GPUSpec
from .systems import PurchaseUnit

BOX_CLASSES = ("consumer", "workstation")  # cards a desktop or workstation host takes


@dataclass(frozen=True)
class Host:
    """The least host of the catalog's workstations: USD a card, W a box, and whose it is."""

    usd_per_card: float
    watts_per_box: float
    system: str


@cache
def least_host() -> Host | None:
    """The cheapest host a card of the catalog's workstations is sold with: (system price -
    its cards' price) / cards and (system power - the cards' board power); None where the
    catalog has no such workstation."""
    gpus = gpu_presets()
    found: list[Host] = []
    for sys in system_presets().values():
        card = gpus.get(sys.gpu, {})
        price, tdp = card.get("list_price_usd"), card.get("tdp_watts")
        if card.get("category") not in BOX_CLASSES or price is None or tdp is None:
            continue
        if sys.list_price_usd is None or sys.power_watts is None:
            continue
        usd = (sys.list_price_usd - sys.gpus * float(price)) / sys.gpus
        watts = sys.power_watts - sys.gpus * float(tdp)
        if usd > 0 and watts > 0:
            found.append(Host(usd, watts, sys.id))
    return min(found, key=lambda h: (h.usd_per_card, h.watts_per_box, h.system), default=None)


def box_host(unit: PurchaseUnit, spec: GPUSpec, gpus: int, boxes: int) -> tuple[float, float] | None:
    """(USD, W) of the host ``boxes`` boxes of ``gpus`` cards need where ``unit`` is a box of
    consumer or workstation cards sold alone; None for a catalog system or another GPU."""
    host = least_host()
    if host is None or unit.system is not None or spec.category not in BOX_CLASSES:
        return None
    return host.usd_per_card * gpus, host.watts_per_box * boxes
