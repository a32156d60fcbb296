"""The buyer's comparison: every GPU type side by side (``gpusizer.compare_gpus``,
``gpusizer-cli compare``, the window's Hardware tab).

Per GPU of the catalog (user GPUs and the scenario's inline GPU included): the advice
(core/sizing/advise.py, shared with ``plan`` and the window's "GPUs needed" line): how many
to buy in whole purchase units, grown to the targets, laid out as fast as that count allows,
why, and at what speed; then its prices, power and cost per unit of work
(core/sizing/compare_costs.py). Every option's ``parallelism`` and ``hardware`` with its
``scenario_changes`` (and, for serving, ``workload.batch_size = batch_size``) put back into
the scenario fits with the margin spare. A GPU on which nothing fits is still listed, with
``fits`` false.

Prices, the Pareto front and the ranking are core/sizing/compare_rank.py (cheap: the window redoes
them on the UI thread when a price changes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, get_args

from ..cancel import CancelToken, as_token
from ..errors import ScenarioError, excerpt
from ..memo import paused_collector
from ..model.presets import resolve_gpu_id, scenario_gpu, user_gpu_skipped
from ..model.specs import GPUCategory, Scenario
from ..pipeline.estimate import estimate
from ..pipeline.runs_on import left_out, left_out_note, scenario_runs_on
from ..pipeline.scenario import parse_scenario
from ..serving.budget import sizing_budget
from .advise_all import Entry, advise_catalog
from .ask import Ask
from .band_margin import resolve_margin, with_band
from .compare_options import (
    AMORTIZATION_YEARS,
    DEFAULT_MARGIN,
    ELECTRICITY_USD_PER_KWH,
    UTILIZATION,
    check_cards_per_box,
    check_search,
)
from .compare_rank import Money, check_sort, price_options, sort_options
from .layout_search import MAX_GPUS, GpuTarget
from .margin_count import with_margin_note
from .miss_rank import Goals
from .option import SizingOption
from .rl_split_alt import with_split_alternatives
from .search import catalog_specs, catalog_targets
from .systems import boxed

CATEGORIES: tuple[str, ...] = get_args(GPUCategory)
Stop = CancelToken | Callable[[], bool]  # core/cancel.py


def select_gpus(
    scenario: Scenario | dict[str, Any] | None = None,
    *,
    ids: Iterable[str] | None = None,
    vendors: Iterable[str] | None = None,
    categories: Iterable[str] | None = None,
    min_memory_gb: float | None = None,
) -> list[str]:
    """GPU ids of the catalog (user GPUs and the scenario's inline GPU too) that pass every
    filter given: ``ids``, ``vendors`` (as the catalog spells them, any case), ``categories``
    (``CATEGORIES``), ``min_memory_gb`` (memory as sold, GB). ScenarioError names a bad one."""
    specs = catalog_specs(None if scenario is None else parse_scenario(scenario).hardware)
    known_vendors = sorted({sp.vendor for sp in specs.values()}, key=str.lower)
    wanted = _wanted("gpus", ids, list(specs), exact=True)
    vend = _wanted("vendor", vendors, known_vendors)
    cats = _wanted("category", categories, list(CATEGORIES))
    return [
        gid
        for gid, sp in specs.items()
        if (wanted is None or gid in wanted)
        and (vend is None or sp.vendor.lower() in vend)
        and (cats is None or sp.category in cats)
        and (min_memory_gb is None or sp.memory_gb_as_sold >= min_memory_gb)
    ]


def id_list(field: str, given: Iterable[str]) -> list[str]:
    """Ids as a list; ScenarioError naming ``field`` for one string (``gpus="h100"`` was read
    as the ids "h", "1", "0", "0" and the message named 'h') or anything but strings."""
    if isinstance(given, str):
        raise ScenarioError(field, f"must be a list of ids, not one string: write [{excerpt(given)}]")
    if not isinstance(given, Iterable) or isinstance(given, Mapping):
        raise ScenarioError(field, f"must be a list of ids; got {excerpt(given)}")
    out = list(given)
    for item in out:
        if not isinstance(item, str):
            raise ScenarioError(field, f"must be ids (text); got {excerpt(item)}")
    return out


def _wanted(
    field: str, given: Iterable[str] | None, allowed: Sequence[str], exact: bool = False
) -> set[str] | None:
    if given is None:
        return None
    norm = {a if exact else a.lower(): a for a in allowed}
    out = set()
    for item in id_list(field, given):
        key = item if exact else item.lower()
        if key not in norm:
            shown = ", ".join(allowed[:12]) + (", ..." if len(allowed) > 12 else "")
            raise ScenarioError(field, f"unknown {field} {item!r}{user_gpu_skipped(item)}; one of {shown}")
        out.add(key)
    return out


def compare_gpus(
    scenario: Scenario | dict[str, Any],
    *,
    gpus: Sequence[str] | None = None,
    margin: float | str = DEFAULT_MARGIN,
    whole_nodes: bool = False,
    sort: str = "cost",
    prices: Mapping[str, Mapping[str, Any]] | None = None,
    electricity_usd_per_kwh: float = ELECTRICITY_USD_PER_KWH,
    amortization_years: float = AMORTIZATION_YEARS,
    basis: str = "cloud",
    max_gpus: int = MAX_GPUS,
    cancel: Stop | None = None,
    cards_per_box: int | None = None,
    utilization: float = UTILIZATION,
    used_prices: bool = False,
    money: Money | None = None,
    rent_by_gpu: bool = False,
) -> list[dict[str, Any]]:
    """One option per GPU type (``gpus``: ids to compare, default the whole catalog); field
    names in docs/scenario-format.md. ``prices`` overrides the catalog's per GPU id
    (``list_price_usd``, ``price_per_hour``). ``basis``: what cost per unit of work is
    counted in, ``cloud`` (renting) or ``owned`` (core/sizing/compare_costs.py). ``cancel``: a
    CancelToken or a callable, asked during the search; once it says so, core/cancel.Cancelled
    is raised. Bad input raises ScenarioError. ``cards_per_box``: cards sold alone come 1, 2 or
    4 to a box (None: the smallest box holding them); each option is costed on its unit
    (core/sizing/systems.py). Owning: ``amortization_years`` and ``utilization`` (the share of
    hours the machine works) spread the purchase; used (resale) purchase prices count only with
    ``used_prices`` (core/sizing/compare_rank.Money). ``money``: all of those as one object
    (core/views/settings.HardwareView.money), which replaces the six keywords when given.
    ``rent_by_gpu``: on the cloud basis, counts of GPUs rented, not whole units
    (core/sizing/rent_unit.py; each row then says ``rented_by_gpu``); ignored on the others."""
    s = parse_scenario(scenario)
    money_args = money or Money(
        prices, electricity_usd_per_kwh, amortization_years, basis, utilization, used_prices
    )
    check_sort(sort)
    rent = rent_by_gpu is True and money_args.basis == "cloud"
    options = size_gpus(
        s,
        gpus=gpus,
        margin=margin,
        whole_nodes=whole_nodes,
        max_gpus=max_gpus,
        cancel=cancel,
        cards_per_box=cards_per_box,
        rent_by_gpu=rent,
    )
    budget = s.targets.max_purchase_usd
    priced = price_options(options, catalog_specs(s.hardware), s.workload.trains, money_args, budget)
    return [o | {"rented_by_gpu": True} if rent else o for o in sort_options(priced, sort, Goals.of(s))]


def size_gpus(
    scenario: Scenario | dict[str, Any],
    *,
    gpus: Sequence[str] | None = None,
    margin: float | str = DEFAULT_MARGIN,
    whole_nodes: bool = False,
    max_gpus: int = MAX_GPUS,
    cancel: Stop | None = None,
    cards_per_box: int | None = None,
    rent_by_gpu: bool = False,
) -> list[dict[str, Any]]:
    """The comparison's search (the slow part), in catalog order, without prices: what
    :func:`compare_rank.price_options` and :func:`compare_rank.sort_options` finish (the
    window runs this off the UI thread, and reprices and re-sorts without searching again).
    ``rent_by_gpu``: counts are GPUs rented (the cloud basis, core/sizing/rent_unit.py), not
    whole purchase units."""
    whole_nodes, max_gpus, _ = check_search(whole_nodes, max_gpus)
    ask = Ask(
        whole_nodes, max_gpus, cards_per_box=check_cards_per_box(cards_per_box), rent_by_gpu=rent_by_gpu
    )
    return [opts[0].as_dict() for opts in sized(scenario, gpus, margin, ask, cancel)]


def sized(
    scenario: Scenario | dict[str, Any],
    gpus: Sequence[str] | None,
    margin: float | str,
    ask: Ask,
    cancel: Stop | None = None,
) -> list[list[SizingOption]]:
    """Per GPU (catalog order): its options, the answer first (``plan`` and
    :func:`size_gpus` share it). The whole call runs with the cyclic collector paused
    (core/memo.paused_collector), not the search alone: a full collection that fell in the
    options' limits or the probe's estimate took 38 ms of a 405B serving ``plan``'s 190
    (``gc.callbacks``, this 2-core machine, 2026-12), the runs over the benchmark's 250 ms."""
    with paused_collector():
        return _sized(scenario, gpus, margin, ask, cancel)


def _sized(
    scenario: Scenario | dict[str, Any],
    gpus: Sequence[str] | None,
    margin: float | str,
    ask: Ask,
    cancel: Stop | None,
) -> list[list[SizingOption]]:
    s = parse_scenario(scenario)
    if gpus is not None:
        gpus = [resolve_gpu_id(g) for g in id_list("gpus", gpus)]  # a saved scenario's former id
        select_gpus(s, ids=gpus)  # names an unknown id
    margin = resolve_margin(margin, s)  # a share, or "band": the evidence band's upper edge
    # only the GPUs the framework runs on (left_out_gpus says which were not)
    targets = catalog_targets(s, gpus, margin, own_node_only=True)
    # errors only the estimator raises (a serving framework asked to train), on a GPU it runs on
    probe = (
        s
        if scenario_runs_on(s, scenario_gpu(s)) or not targets
        else s.model_copy(update={"hardware": targets[0].hardware})
    )
    with sizing_budget():  # its simulated run as the search's (core/serving/budget.py)
        estimate(probe)
    catalog = boxed(targets, ask.cards_per_box)
    if not catalog:
        return []
    entries = advise_catalog(s, catalog, ask, as_token(cancel) or CancelToken())
    specs = {t.id: t.spec for t in catalog}
    stated = s.rl is not None and "placement" in s.rl.model_fields_set
    rows = [
        [with_band(o, s, specs.get(o.gpu, scenario_gpu(s))) for o in _with_split(entry, g, stated)]
        for entry, g in zip(entries, catalog, strict=True)
    ]
    return with_margin_note(s, rows, {t.id: t.hardware for t in catalog}, margin)


def _with_split(entry: Entry, g: GpuTarget, stated: bool) -> list[SizingOption]:
    """The GPU's options, the answer of a colocated RL run with the split placement weighed
    beside it (core/sizing/rl_split_alt.py; ``stated``: the user set ``rl.placement``)."""
    (first, c), *rest = entry
    return [
        with_split_alternatives(first, None if c is None else c.scenario, g, stated),
        *(o for o, _ in rest),
    ]


def left_out_gpus(scenario: Scenario | dict[str, Any], gpus: Sequence[str] | None = None) -> list[str]:
    """The GPU ids (``gpus``, default the whole catalog) the comparison leaves out because the
    scenario's framework does not run on them (core/pipeline/runs_on.py)."""
    s = parse_scenario(scenario)
    specs = catalog_specs(s.hardware)
    ids = list(specs) if gpus is None else [resolve_gpu_id(g) for g in id_list("gpus", gpus)]
    return left_out(s, ids, specs)


def left_out_line(scenario: Scenario | dict[str, Any], gpus: Sequence[str] | None = None) -> str | None:
    """The sentence under a comparison naming the GPUs it left out because the framework does
    not run on them (None: none left out)."""
    s = parse_scenario(scenario)
    return left_out_note(s, left_out_gpus(s, gpus))
