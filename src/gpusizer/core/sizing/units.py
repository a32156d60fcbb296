"""What a GPU is bought in, as the counts of a sizing see it: the purchasable unit of the
catalog's systems (core/sizing/systems.py) rounding a count up.

A buyer buys systems: an H100, H200 or B200 SXM comes eight to an HGX/DGX server, an MI300X
eight to a platform, a GB200 72 to an NVL72 rack, a Mac or a DGX Spark is one machine; cards
sold alone come in a box of 1, 2 or 4 (as the buyer sets ``cards_per_box``, else the smallest
box holding them), several boxes beyond one. The count a sizing recommends is the smallest
whole number of units that holds the work and meets the targets; the GPUs beyond the fewest
become replicas (serving) or data parallelism (training). With ``whole_nodes`` the unit is
the node (``gpus_per_node``). Under an engine that splits layers, not heads (llama.cpp), cards
sold alone come as many as needed up to the node (:func:`layer_box`; core/sizing/layer_split.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.architecture import ceil_div
from ..model.specs import GPUSpec, Scenario
from ..pipeline.rl_check import rl_of
from .rent_unit import rental_size
from .systems import PurchaseUnit, purchase_unit, sold_as_cards


def layer_box(spec: GPUSpec, cards_per_box: int | None, gpus: int, by_layers: bool) -> int | None:
    """The ``cards_per_box`` a purchase unit of ``gpus`` GPUs of ``spec`` is asked with (None:
    the smallest of core/sizing/systems.py ``BOX_SIZES`` holding them). ``by_layers``: the
    engine splits layers, not heads (core/sizing/layer_split.py ``splits_layers``; llama.cpp
    runs any count), so cards sold alone come exactly as many as needed up to the node (3 for
    3, not a box of 4), then whole nodes. The buyer's own ``cards_per_box``, a catalog system
    (a 1/2/4-card workstation, a Mac, an 8-GPU server) and every engine that splits heads keep
    the box they had."""
    if not by_layers or cards_per_box is not None or not sold_as_cards(spec):
        return cards_per_box
    if purchase_unit(spec.id, spec, None, gpus).system is not None:
        return None
    return min(max(1, gpus), spec.gpus_per_node)


@dataclass(frozen=True)
class Unit:
    """How one GPU type is bought: ``node`` set (whole nodes asked) rounds to it, else the
    GPU's purchase unit for the count asked."""

    gpu: str
    spec: GPUSpec
    cards_per_box: int | None = None
    node: int | None = None
    by_layers: bool = False  # the engine splits layers, not heads: any count of cards
    rent: bool = False  # the cloud basis: GPUs rented, rounded as core/sizing/rent_unit.py says
    # GPUs per unit by count asked: the deadline's search asks for thousands of counts, and a
    # purchase unit (its prices and sources) takes ~15 us to build
    _sizes: dict[int, int] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def size(self, n: int) -> int:
        """GPUs in one unit when ``n`` are needed."""
        if self.node:
            return self.node
        got = self._sizes.get(n)
        if got is None:
            unit = self._unit(n)
            got = self._sizes[n] = rental_size(unit, n) if self.rent else unit.gpus
        return got

    def _unit(self, n: int) -> PurchaseUnit:
        """The purchase unit for ``n`` GPUs (the box :func:`layer_box` gives the engine)."""
        n = max(1, n)
        return purchase_unit(
            self.gpu, self.spec, layer_box(self.spec, self.cards_per_box, n, self.by_layers), n
        )

    def count(self, n: int) -> int:
        """The smallest count of whole units holding at least ``n`` GPUs."""
        u = self.size(n)
        return ceil_div(max(1, n), u) * u

    def top(self, most: int) -> int:
        """The largest count of whole units within ``most`` GPUs (0: not even one)."""
        u = self.size(most)
        return most // u * u

    def name(self, n: int) -> str:
        """``8-GPU node`` or the catalog's unit (``DGX H100``, ``4 x RTX 4090 (cards only)``)."""
        if self.node:
            return f"{self.node}-GPU node"
        return self._unit(n).name

    def what(self, n: int) -> str:
        """``one NVIDIA DGX H100 8-GPU server``, ``3 x ...``, ``2 x 8-GPU node``, or
        ``12 GPUs`` for GPUs bought alone (a box of cards is no system to name)."""
        if not self.node and self._unit(n).system is None:
            return f"{n:,} GPU{'s' if n != 1 else ''}"
        units, name = self.units(n), self.name(n)
        if self.rent and not self.node and n % self._unit(n).gpus:  # part of a unit, rented
            return f"{n:,} GPU{'s' if n != 1 else ''} of one {name}"
        return f"{units} x {name}" if units > 1 else f"one {name}"

    def units(self, n: int) -> int:
        """Whole units of ``n`` GPUs."""
        whole = self._unit(n).gpus if self.rent and not self.node else self.size(n)  # rented: still units
        return ceil_div(max(1, n), whole)


def any_count(gpu: str, spec: GPUSpec) -> Unit:
    """A unit of one GPU (any count is bought): when not even one unit fits the limit."""
    return Unit(gpu, spec, node=1)


@dataclass(frozen=True)
class PoolUnit(Unit):
    """The unit of a count that comes with ``rest`` GPUs beside it in the same purchase: a split
    RL run's training pool, its rollout pool of ``rl.rollout.gpus`` on top (core/pipeline/
    work_rl.py). The count is still the training pool's, rounded so that both pools fill whole
    units: on a GB200 NVL72 rack (72 GPUs) 8 rollout GPUs leave 64 for training, where rounding
    the training pool alone to 72 put the 80 GPUs of the run on two racks. On 8-GPU servers 8
    training + 8 rollout GPUs are two servers either way."""

    rest: int = 0
    inner: Unit | None = None  # the plain unit of the GPU (its own memo of unit sizes)

    def _base(self) -> Unit:
        assert self.inner is not None
        return self.inner

    def size(self, n: int) -> int:
        return self._base().size(n + self.rest)

    def count(self, n: int) -> int:
        return self._base().count(max(1, n) + self.rest) - self.rest

    def top(self, most: int) -> int:
        return max(0, self._base().top(most + self.rest) - self.rest)

    def name(self, n: int) -> str:
        return self._base().name(n + self.rest)

    def what(self, n: int) -> str:
        return self._base().what(n + self.rest)

    def units(self, n: int) -> int:
        return self._base().units(n + self.rest)


def with_pool(unit: Unit, rest: int) -> Unit:
    """``unit`` for a count with ``rest`` more GPUs bought beside it (:class:`PoolUnit`)."""
    if rest <= 0:
        return unit
    return PoolUnit(
        unit.gpu, unit.spec, unit.cards_per_box, unit.node, unit.by_layers, unit.rent, rest=rest, inner=unit
    )


def pool_beside(s: Scenario) -> int:
    """GPUs bought beside the count the advice grows: a split RL run's rollout pool (0 else)."""
    if not s.workload.info.engine_width:  # no engine of the kind's own beside its training
        return 0
    rl = rl_of(s)
    return rl.rollout.gpus if rl.placement == "split" else 0
