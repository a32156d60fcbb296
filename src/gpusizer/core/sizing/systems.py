"""What a buyer buys or rents a GPU in, and what that costs: the core API the
comparison (core/sizing/compare*.py) and the advisor use for "the smallest count on the GPU's
purchasable unit".

- :func:`purchase_unit`: the unit a GPU comes in. A catalog system (presets/systems/: an
  8-GPU HGX or Instinct server, an NVL72 rack, a Mac Studio, a workstation of 1, 2 or 4
  cards) where the catalog has one; otherwise a box of the GPU alone: cards sold alone
  (consumer, workstation and PCIe data-centre cards) come 1, 2, 4 or 8 to a box, as many as
  ``cards_per_box`` says or, without it, the smallest box that holds the GPUs needed; the other
  modules (SXM, OAM, superchips) come ``gpus_per_node`` to a board. A box of the GPU alone is
  priced as its GPUs only (the host around them is not in the price: ``priced_as`` says so).
- :func:`units_for`: whole units holding a number of GPUs.
- :func:`system_cost`: what ``gpus`` GPUs on that unit cost to buy (whole units: nobody sells
  two GPUs of an NVL72 rack), to rent (by the GPU where a cloud rents part of the unit, a
  share it says it is; whole units where it rents only those) and the power they draw
  (the unit's system power, measured or specified, never the sum of GPU TDPs, except for a
  box of the GPU alone, which has only its GPUs' board power).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from ..model.architecture import ceil_div
from ..model.presets import gpu_spec, gpu_systems, resolve_gpu_id, system_presets
from ..model.specs import GPUSpec
from ..model.system_spec import SystemSpec
from .layout_search import GpuTarget

BOX_SIZES = (1, 2, 4, 8)  # cards a box of cards sold alone may hold (a 4U PCIe server holds 8)
SOLD_ALONE = ("consumer", "workstation")  # classes sold as cards; PCIe data-centre cards too
# Where a unit's prices come from (fields of both the GPU and the system schema)
SOURCE_KEYS = (
    "list_price_source",
    "list_price_date",
    "list_price_basis",
    "list_price_null_reason",
    "list_price_condition",
    "price_per_hour_provider",
    "price_per_hour_source",
    "price_per_hour_date",
    "price_per_hour_basis",
    "price_per_hour_null_reason",
    "price_per_hour_marketplace_provider",
    "price_per_hour_marketplace_date",
)


@dataclass(frozen=True)
class PurchaseUnit:
    """One unit of a GPU as it is bought. Prices per unit (USD) and per unit-hour (USD/h);
    ``rental_gpus``: the fewest GPUs of it a cloud rents; ``sources``: where each price and
    the power come from (``*_source``, ``*_date``, ``*_basis``, ``price_per_hour_provider``)."""

    gpu: str
    gpus: int
    name: str
    system: str | None  # a catalog system id; None: a box of the GPU alone
    list_price_usd: float | None
    price_per_hour: float | None
    price_per_hour_marketplace: float | None
    rental_gpus: int
    power_watts: float | None
    priced_as: str  # "system" (the whole unit) | "gpus only" (the host is not priced)
    sources: Mapping[str, str | None] = field(default_factory=dict)
    host_memory_bytes: int | None = None  # the unit's system RAM (None: not stated)


@cache
def _form_factor(gpu_id: str) -> str:
    from ..model.presets import gpu_presets

    return str(gpu_presets().get(gpu_id, {}).get("form_factor", ""))


def sold_as_cards(spec: GPUSpec) -> bool:
    """Whether the GPU is sold as a card (consumer and workstation cards, PCIe data-centre
    cards): a box then holds as many as the buyer puts in it."""
    return spec.category in SOLD_ALONE or "pcie" in _form_factor(spec.id).lower()


def node_size(spec: GPUSpec, cards_per_box: int | None) -> int:
    """GPUs under one host (the tensor-parallel domain the comparison searches): the buyer's
    ``cards_per_box`` for cards sold alone and for GPUs sold in boxes of several sizes (one or
    two linked DGX Sparks), else the catalog's ``gpus_per_node``."""
    several = len({s.gpus for s in gpu_systems(spec.id)}) > 1
    return cards_per_box if cards_per_box and (sold_as_cards(spec) or several) else spec.gpus_per_node


def box_size(spec: GPUSpec, gpus: int | None, cards_per_box: int | None) -> int:
    """GPUs in one box of cards sold alone: the buyer's ``cards_per_box``, else the smallest
    box (``BOX_SIZES``, at most ``gpus_per_node``) holding ``gpus``."""
    if cards_per_box is not None:
        return cards_per_box
    most = spec.gpus_per_node
    need = min(gpus or 1, most)
    return next((b for b in BOX_SIZES if need <= b <= most), most)


def _system_unit(sys: SystemSpec) -> PurchaseUnit:
    return PurchaseUnit(
        gpu=sys.gpu,
        gpus=sys.gpus,
        name=sys.name,
        system=sys.id,
        list_price_usd=sys.list_price_usd,
        price_per_hour=sys.price_per_hour,
        price_per_hour_marketplace=sys.price_per_hour_marketplace,
        rental_gpus=sys.rental_gpus,
        power_watts=sys.power_watts,
        priced_as="system",
        sources={k: getattr(sys, k) for k in (*SOURCE_KEYS, "power_basis", "power_source")},
        host_memory_bytes=sys.host_memory_bytes,
    )


def _times(a: float | None, n: int) -> float | None:
    return None if a is None else a * n


def _box_unit(spec: GPUSpec, n: int) -> PurchaseUnit:
    what = "cards" if sold_as_cards(spec) else "GPUs"
    return PurchaseUnit(
        gpu=spec.id,
        gpus=n,
        name=f"{n} x {spec.name} ({what} only)",
        system=None,
        list_price_usd=_times(spec.list_price_usd, n),
        price_per_hour=_times(spec.price_per_hour, n),
        price_per_hour_marketplace=_times(spec.price_per_hour_marketplace, n),
        rental_gpus=1,
        power_watts=_times(spec.tdp_watts, n),
        priced_as="gpus only",
        sources={k: getattr(spec, k) for k in SOURCE_KEYS}
        | {
            "power_basis": "estimate",
            "power_source": f"GPU board power only ({n} x TDP): no system figure in the catalog",
        },
    )


def single_gpu(spec: GPUSpec) -> PurchaseUnit:
    """One GPU alone, at its own catalog prices (the per-GPU rows of tables and reports)."""
    return _box_unit(spec, 1)


def purchase_unit(
    gpu_id: str, spec: GPUSpec | None = None, cards_per_box: int | None = None, gpus: int | None = None
) -> PurchaseUnit:
    """The unit ``gpu_id`` is bought in (``spec``: the GPU when it is not in the catalog, a
    user's or an inline one). ``cards_per_box``: for cards sold alone, 1, 2 or 4 per box
    (``CARDS_PER_BOX``; None: the smallest box holding ``gpus``). A GPU with several catalog
    systems (1, 2 and 4-card workstations; one or two linked DGX Sparks) takes the one of
    that size."""
    gid = resolve_gpu_id(gpu_id)
    spec = spec if spec is not None else gpu_spec(gid)
    systems = gpu_systems(gid) if spec.id == gid else []
    sizes = {s.gpus: s for s in systems}
    if len(sizes) == 1:  # one way to buy it: a server, a rack, a Mac
        return _system_unit(systems[0])
    if sizes:
        want = cards_per_box or next((k for k in sorted(sizes) if k >= (gpus or 1)), max(sizes))
        if want in sizes:
            return _system_unit(sizes[want])
    n = box_size(spec, gpus, cards_per_box) if sold_as_cards(spec) else spec.gpus_per_node
    return _box_unit(spec, n)


def unit_of(gpu_id: str, spec: GPUSpec, system: str | None, gpus_per_system: int | None) -> PurchaseUnit:
    """The unit an option was sized on (its ``system`` id, else a box of ``gpus_per_system``
    of the GPU alone): what the pricing redoes without searching again."""
    if system is not None:
        return _system_unit(system_presets()[system])
    return _box_unit(spec, gpus_per_system or spec.gpus_per_node)


def option_unit(g_id: str, spec: GPUSpec, cards_per_box: int | None, gpus: int | None) -> dict[str, object]:
    """An option's unit fields (``system``, ``system_name``, ``gpus_per_system``, ``systems``)
    for ``gpus`` GPUs (None: nothing fits, no count)."""
    unit = purchase_unit(g_id, spec, cards_per_box, gpus)
    return {
        "system": unit.system,
        "system_name": unit.name,
        "gpus_per_system": unit.gpus,
        "systems": None if gpus is None else units_for(unit, gpus),
    }


def boxed(catalog: Sequence[GpuTarget], cards_per_box: int | None) -> list[GpuTarget]:
    """The comparison's GPUs with the node the buyer's box makes (:func:`node_size`): TP
    spans the cards of one box."""
    out = []
    for g in catalog:
        node = node_size(g.spec, cards_per_box)
        if node != g.hardware.gpus_per_node and cards_per_box is not None:
            g = replace(g, hardware=g.hardware.model_copy(update={"gpus_per_node": node}))
        out.append(g)
    return out


def units_for(unit: PurchaseUnit, gpus: int) -> int:
    """Whole units holding ``gpus`` GPUs (at least one)."""
    return max(1, ceil_div(gpus, unit.gpus))


@dataclass(frozen=True)
class SystemCost:
    """What ``gpus`` GPUs on a unit cost (USD, USD/h) and draw (W). ``systems``: whole units
    bought; ``rented_gpus``: GPUs rented (rounded to the cloud's rental size);
    ``rents_a_share``: the rent is for part of a unit, by the GPU."""

    systems: int
    rented_gpus: int
    rents_a_share: bool
    purchase_usd: float | None
    cloud_usd_per_hour: float | None
    marketplace_usd_per_hour: float | None
    owned_power_watts: float | None  # the whole units bought
    rented_power_watts: float | None  # the rented GPUs' share of their units


def system_cost(
    unit: PurchaseUnit,
    gpus: int,
    list_price_usd: float | None = None,
    price_per_hour: float | None = None,
    marketplace: float | None = None,
) -> SystemCost:
    """Costs of ``gpus`` GPUs on ``unit``; the prices per unit (and unit-hour) default to the
    unit's own (the caller passes the user's where set)."""
    listed = unit.list_price_usd if list_price_usd is None else list_price_usd
    hourly = unit.price_per_hour if price_per_hour is None else price_per_hour
    market = unit.price_per_hour_marketplace if marketplace is None else marketplace
    systems = units_for(unit, gpus)
    rented = min(ceil_div(gpus, unit.rental_gpus) * unit.rental_gpus, systems * unit.gpus)
    share = rented / unit.gpus
    return SystemCost(
        systems=systems,
        rented_gpus=rented,
        rents_a_share=rented % unit.gpus != 0,
        purchase_usd=_times(listed, systems),
        cloud_usd_per_hour=None if hourly is None else hourly * share,
        marketplace_usd_per_hour=None if market is None else market * share,
        owned_power_watts=_times(unit.power_watts, systems),
        rented_power_watts=None if unit.power_watts is None else unit.power_watts * share,
    )
