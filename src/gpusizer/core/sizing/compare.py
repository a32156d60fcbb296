"""The buyer's comparison: every GPU type side by side (``gpusizer.compare_gpus``,
``gpusizer-cli compare``, the window's Hardware tab).

Per GPU of the catalog (user GPUs and the scenario's inline GPU included): the fewest GPUs
whose per-GPU peak leaves at least ``margin`` of usable memory spare (the sizing advisor's
search, core/solver.py, so ``plan`` and this agree), grown to meet serving ``targets`` and,
if asked, to whole nodes (core/compare_scale.py); then its speed, prices, power and cost per
unit of work (core/compare_costs.py). Every option's ``parallelism`` (with ``hardware`` and,
for serving, ``workload.batch_size = batch_size``) put back into the scenario fits with the
margin spare. A GPU on which nothing fits is still listed, with ``fits`` false.

Prices, the Pareto front and the ranking are core/compare_rank.py (cheap: the window redoes
them on the UI thread when a price changes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, get_args

from ..cancel import Cancelled as Cancelled  # re-exported: its old home
from ..cancel import CancelToken, as_token
from ..errors import ScenarioError
from ..model.architecture import ceil_div
from ..model.specs import GPUCategory, Scenario
from ..pipeline.estimate import estimate
from ..pipeline.scenario import parse_scenario
from ..registry.dtypes import DTYPES
from .compare_costs import speed
from .compare_options import AMORTIZATION_YEARS, DEFAULT_MARGIN, ELECTRICITY_USD_PER_KWH, SYSTEM_FIELDS
from .compare_rank import Money, check_sort, price_options, sort_options
from .compare_scale import Scaler
from .layout_search import MAX_GPUS, Evaluator, GpuTarget, check_margin
from .solver import Fitted, catalog_specs, catalog_targets, layout_label, search_catalog
from .systems import boxed, check_cards_per_box, option_unit

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


def _wanted(
    field: str, given: Iterable[str] | None, allowed: Sequence[str], exact: bool = False
) -> set[str] | None:
    if given is None:
        return None
    norm = {a if exact else a.lower(): a for a in allowed}
    out = set()
    for item in given:
        key = item if exact else item.lower()
        if key not in norm:
            shown = ", ".join(allowed[:12]) + (", ..." if len(allowed) > 12 else "")
            raise ScenarioError(field, f"unknown {field} {item!r}; one of {shown}")
        out.add(key)
    return out


def compare_gpus(
    scenario: Scenario | dict[str, Any],
    *,
    gpus: Sequence[str] | None = None,
    margin: float = DEFAULT_MARGIN,
    whole_nodes: bool = False,
    sort: str = "cost",
    prices: Mapping[str, Mapping[str, Any]] | None = None,
    electricity_usd_per_kwh: float = ELECTRICITY_USD_PER_KWH,
    amortization_years: float = AMORTIZATION_YEARS,
    basis: str = "cloud",
    max_gpus: int = MAX_GPUS,
    cancel: Stop | None = None,
    cards_per_box: int | None = None,
) -> list[dict[str, Any]]:
    """One option per GPU type (``gpus``: ids to compare, default the whole catalog); field
    names in docs/scenario-format.md. ``prices`` overrides the catalog's per GPU id
    (``list_price_usd``, ``price_per_hour``). ``basis``: what cost per unit of work is
    counted in, ``cloud`` (renting) or ``owned`` (core/compare_costs.py). ``cancel``: a
    CancelToken or a callable, asked during the search; once it says so, core/cancel.Cancelled
    is raised. Bad input raises ScenarioError. ``cards_per_box``: cards sold alone come 1, 2 or
    4 to a box (None: the smallest box holding them); each option is costed on its unit
    (core/sizing/systems.py)."""
    s = parse_scenario(scenario)
    money_args = Money(prices, electricity_usd_per_kwh, amortization_years, basis)
    check_sort(sort)
    options = size_gpus(
        s,
        gpus=gpus,
        margin=margin,
        whole_nodes=whole_nodes,
        max_gpus=max_gpus,
        cancel=cancel,
        cards_per_box=cards_per_box,
    )
    priced = price_options(options, catalog_specs(s.hardware), s.workload.is_training, money_args)
    return sort_options(priced, sort)


def size_gpus(
    scenario: Scenario | dict[str, Any],
    *,
    gpus: Sequence[str] | None = None,
    margin: float = DEFAULT_MARGIN,
    whole_nodes: bool = False,
    max_gpus: int = MAX_GPUS,
    cancel: Stop | None = None,
    cards_per_box: int | None = None,
) -> list[dict[str, Any]]:
    """The comparison's search (the slow part), in catalog order, without prices: what
    :func:`compare_rank.price_options` and :func:`compare_rank.sort_options` finish (the
    window runs this off the UI thread, and reprices and re-sorts without searching again)."""
    s = parse_scenario(scenario)
    estimate(s)  # errors only the estimator raises
    if gpus is not None:
        select_gpus(s, ids=gpus)  # names an unknown id
    box = check_cards_per_box(cards_per_box)
    catalog = boxed(catalog_targets(s, gpus, check_margin(margin), own_node_only=True), box)
    if not catalog:
        return []
    token = as_token(cancel)
    by_gpu = search_catalog(s, catalog, 1, max_gpus, False, lambda sc, hw: Evaluator(sc, hw, token))
    options = []
    for g in catalog:
        if token is not None:
            token.check()
        ev, fitted, note = by_gpu[g.id]
        o = _option(s, ev, g, fitted, note, whole_nodes, max_gpus) if fitted else _missing(s, g, max_gpus)
        options.append(o | option_unit(g.id, g.spec, box, o["gpus"]))
    return options


def _option(
    s: Scenario,
    ev: Evaluator,
    g: GpuTarget,
    fitted: list[Fitted],
    note: str | None,
    whole_nodes: bool,
    max_gpus: int,
) -> dict[str, Any]:
    """One GPU's option: the fewest that fit (``fitted``), grown to the targets and to whole
    nodes, estimated in full; its speed (no prices yet)."""
    lay, sc, est = fitted[0]
    scaler, notes, met = Scaler(s, ev, g, max_gpus), [note] if note else [], None
    batch: int | None = None
    training = s.workload.is_training
    if s.targets.active and training:
        notes.append("serving targets ignored: they apply to inference")
    elif s.targets.active:
        got = scaler.to_targets(lay)
        met = got is not None
        if got is None:
            notes.append(
                f"targets not met with up to {max_gpus:,} GPUs; the fewest that hold the model are shown"
            )
        else:
            lay, batch = got
    bought = lay.gpus
    if whole_nodes:
        lay, batch, bought = scaler.whole_nodes(lay, batch)
    if (lay, batch) != (fitted[0][0], None):
        sc, est = scaler.final(lay, batch)
        if est.required_bytes > g.capacity or not est.runs:  # keep the fewest that fit
            (lay, sc, est), bought = fitted[0], fitted[0][0].gpus
            met = False if met is not None else None
            notes.append("grown layouts do not fit on this GPU; the fewest GPUs are shown")
    par = sc.parallelism.model_dump(mode="json")
    node = g.hardware.gpus_per_node
    return _row(s, g) | {
        "fits": True,
        "gpus": bought,
        "gpus_in_layout": lay.gpus,
        "nodes": ceil_div(bought, node),
        "layout": layout_label(par, training),
        "parallelism": par,
        "hardware": sc.hardware.model_dump(mode="json"),
        "batch_size": None if training else sc.workload.batch_size,
        "per_gpu_total": est.memory.total,
        "capacity_bytes": est.capacity_bytes,
        "headroom_bytes": est.headroom_bytes,
        "peak_phase": est.memory.peak_phase,
        "compute_dtype": est.compute.compute_dtype,
        **speed(est),
        "targets_met": met,
        "notes": notes + _compute_notes(sc, est.compute.compute_dtype, g),
    }


def _compute_notes(s: Scenario, used: str, g: GpuTarget) -> list[str]:
    """Low-precision weights on a GPU without their tensor cores: stored that way, computed
    in the activation dtype (core/roofline.matmul_dtype), and timed so."""
    wanted = DTYPES[s.precision.weights].compute_dtype
    if wanted in ("fp8", "int8", "fp4") and wanted not in g.spec.dense_tflops and used != wanted:
        return [f"no {wanted.upper()} tensor cores: {s.precision.weights} weights compute in {used}"]
    return []


# Every option carries every field (null where it does not apply), so tables and CSV align.
FIELDS = (
    "rank",
    "gpu",
    "gpu_name",
    "vendor",
    "category",
    "fits",
    "gpus",
    "gpus_in_layout",
    "nodes",
    "gpus_per_node",
    *SYSTEM_FIELDS,
    "layout",
    "parallelism",
    "hardware",
    "batch_size",
    "per_gpu_total",
    "capacity_bytes",
    "headroom_bytes",
    "margin_bytes",
    "peak_phase",
    "compute_dtype",
    "ttft_seconds",
    "tpot_seconds",
    "tokens_per_second_per_user",
    "tokens_per_second",
    "time_seconds",
    "list_price_usd",
    "price_per_hour",
    "user_prices",
    "purchase_cost",
    "cloud_cost_per_hour",
    "owned_cost_per_hour",
    "cost_per_hour",
    "cost_basis",
    "power_watts",
    "cost_per_million_tokens",
    "energy_kwh_per_million_tokens",
    "electricity_cost_per_million_tokens",
    "training_cost",
    "energy_kwh",
    "electricity_cost",
    "targets_met",
    "pareto",
    "notes",
)


def _row(s: Scenario, g: GpuTarget) -> dict[str, Any]:
    """The fields every option has, null until set."""
    cap = g.spec.capacity_bytes
    return dict.fromkeys(FIELDS) | {
        "gpu": g.id,
        "gpu_name": g.spec.name,
        "vendor": g.spec.vendor,
        "category": g.spec.category,
        "gpus_per_node": g.hardware.gpus_per_node,
        "capacity_bytes": cap,
        "margin_bytes": cap - g.capacity,
        "pareto": False,
        "notes": [],
        "targets_met": False if s.targets.active and not s.workload.is_training else None,
    }


def _missing(s: Scenario, g: GpuTarget, max_gpus: int) -> dict[str, Any]:
    """A GPU on which nothing fits: listed (with its unit prices once priced), ``fits``
    false."""
    return _row(s, g) | {
        "fits": False,
        "notes": [f"nothing fits with up to {max_gpus:,} GPUs and {g.margin:.0%} of memory kept spare"],
    }
