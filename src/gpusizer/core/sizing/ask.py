"""What the caller of the advice asks (:class:`Ask`) and the unit a GPU is bought or rented in
for that ask (:func:`unit_of`): core/sizing/advise.py's inputs beside the scenario."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import Scenario
from .layer_split import splits_layers
from .layout_search import MAX_GPUS, GpuTarget
from .units import Unit, pool_beside, with_pool


@dataclass(frozen=True)
class Ask:
    """What the caller asks: counts in whole nodes instead of purchase units, the most GPUs
    an option may have, and how many layouts per GPU (``plan``'s alternatives)."""

    whole_nodes: bool = False
    max_gpus: int = MAX_GPUS
    keep: int = 1
    limits: bool = False  # plan: the largest batch, context or micro-batch that fit
    cards_per_box: int | None = None  # cards sold alone: 1, 2 or 4 to a box (None: fewest)
    rent_by_gpu: bool = False  # the cloud basis: counts of rented GPUs (core/sizing/rent_unit.py)


def unit_of(g: GpuTarget, ask: Ask, s: Scenario | None = None) -> Unit:
    """What ``g`` is bought in: its node when whole nodes are asked, else its purchase unit; a
    split RL run's count with its rollout pool bought beside it (core/sizing/units.PoolUnit)."""
    node = g.hardware.gpus_per_node if ask.whole_nodes else None
    unit = Unit(g.id, g.spec, ask.cards_per_box, node, splits_layers(s), ask.rent_by_gpu)
    return unit if s is None else with_pool(unit, pool_beside(s))
