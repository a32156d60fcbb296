"""Prices, the Pareto front and the ranking of comparison options (core/sizing/compare.py).

Cheap (no search): the window reprices and re-sorts on the UI thread when a price, the cost
basis or the electricity price changes. Sorting (``SORTS``): ``cost`` (cost per million tokens,
served or trained, on the basis asked; unpriced after), ``speed`` (tokens per second per user
for serving, trained tokens per second for training), ``gpus`` or ``hour`` (cost per hour of
what is bought, on the basis asked: a service's bill for its users); options that fit come first,
those that meet the serving targets before those that do not, then those that meet the stated
default service level (core/sizing/service_level.py) before those that miss it; the misses
nearest their targets first (core/sizing/miss_rank.py; unpriced or unspeeded after as
before), then by the sort. ``cost_band``
and ``speed_band`` rank on the evidence band's pessimistic edge (core/sizing/option_band.py):
the slow edge of the speed band, and options whose peak band passes the GPU after those it does
not. ``pareto`` marks the options
that no other beats on both cost per million tokens and speed. What an option buys or rents
(its units, the need rented alone, the purchase the unpriced rank by) is
core/sizing/compare_purchase.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ScenarioError, excerpt
from ..limits import MAX_RATE, MIN_RATE
from ..model.specs import GPUSpec
from .budget import budget_fields
from .compare_costs import Rates, money, per_work, pricer
from .compare_options import (
    AMORTIZATION_YEARS,
    BASES,
    ELECTRICITY_USD_PER_KWH,
    PROVENANCE_FIELDS,
    SORTS,
    UTILIZATION,
)
from .compare_purchase import (
    RACK_GPUS,
    need_priced,
    need_rent_note,
    purchase_rank,
    purchase_why,
    unit_notes,
)
from .level_count_fields import level_priced
from .miss_rank import Goals, shortfall
from .option_band import band_head, cost_at_slow_edge, slow_edge
from .pd_choice import other_cost
from .prices import check_prices
from .rl_notes import priced_notes
from .rl_split_words import split_alternative
from .unmet import priced_reason

# what an option buys or rents lives in core/sizing/compare_purchase.py; its names stay
# importable from here
__all__ = [
    "RACK_GPUS",
    "UNIT_PRICE_KEYS",
    "Money",
    "check_sort",
    "mark_pareto",
    "need_priced",
    "need_rent_note",
    "price_options",
    "purchase_rank",
    "purchase_why",
    "rl_priced",
    "rl_work",
    "sort_options",
    "speed_of",
    "unit_notes",
]


def _number(field: str, value: Any, low: float, high: float, zero: bool) -> float:
    """A finite number in [``low``, ``high``] (``zero``: 0 is allowed too); beyond, costs
    overflowed to Infinity (``--electricity 1e308`` ended in "please report the scenario")."""
    ok = (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and ((zero and value == 0) or low <= value <= high)
    )
    if not ok:
        lowest = "0" if zero else f"{low:g}"
        raise ScenarioError(field, f"must be a number from {lowest} to {high:g}; got {excerpt(value)}")
    return float(value)


def _one_of(field: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ScenarioError(field, f"must be one of {', '.join(allowed)}; got {value!r}")
    return str(value)


def check_sort(sort: str) -> str:
    return _one_of("sort", sort, SORTS)


@dataclass(frozen=True)
class Money:
    """How options are priced: the user's prices per GPU id, electricity (USD/kWh), the
    years a purchase is spread over, and the cost basis (``BASES``). Checked on creation
    (ScenarioError naming the field)."""

    prices: Mapping[str, Mapping[str, Any]] | None = None
    electricity_usd_per_kwh: float = ELECTRICITY_USD_PER_KWH
    amortization_years: float = AMORTIZATION_YEARS
    basis: str = "cloud"
    # owning: the share of hours the machine works, and whether used (resale) purchase
    # prices count (new prices only by default: a used module without a host is no quote
    # to rank against new servers)
    utilization: float = UTILIZATION
    used_prices: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "prices", check_prices(self.prices))
        _number("electricity_usd_per_kwh", self.electricity_usd_per_kwh, MIN_RATE, MAX_RATE, zero=True)
        _number("amortization_years", self.amortization_years, 0.01, 1000.0, zero=False)  # 4 days+
        _number("utilization", self.utilization, 0.01, 1.0, zero=False)
        _one_of("basis", self.basis, BASES)
        if not isinstance(self.used_prices, bool):
            raise ScenarioError("used_prices", f"must be true or false; got {excerpt(self.used_prices)}")


UNIT_PRICE_KEYS = (  # what an option that does not fit still shows: the unit's prices
    "list_price_usd",
    "price_per_hour",
    "price_per_hour_marketplace",
    "system_list_price_usd",
    "system_price_per_hour",
    "user_prices",
    "user_price_keys",
    *PROVENANCE_FIELDS,
)


def price_options(
    options: Sequence[dict[str, Any]],
    specs: Mapping[str, GPUSpec],
    training: bool,
    how: Money,
    budget: float | None = None,
) -> list[dict[str, Any]]:
    """Copies of the options with their money, power and energy fields and the Pareto
    front (``specs``: the GPUs by id, for catalog prices and power); ``budget``: the scenario's
    ``targets.max_purchase_usd``, held against each purchase (core/sizing/budget.py)."""
    out = []
    rates = Rates(
        how.electricity_usd_per_kwh, how.amortization_years, how.basis, how.utilization, how.used_prices
    )
    for o in options:
        cost = money(specs[o["gpu"]], rl_priced(o), how.prices, rates)
        if o["fits"]:
            row = o | cost | per_work(cost, rl_work(o), training, how.electricity_usd_per_kwh)
            row["notes"] = priced_notes(o["notes"], row) + unit_notes(row, how.basis)  # the band's cost
            priced = pricer(specs, how.prices, rates, training)
            row |= other_cost(o, priced) | level_priced(row, priced)  # the default level's count too
            row |= split_alternative(row, priced)  # colocated RL: the split beside it (rl_split_words.py)
            row["notes"] += need_rent_note(row, money(specs[o["gpu"]], need_priced(o), how.prices, rates))
            row |= budget_fields(row, budget)
            unpriced = priced_reason(row, how.basis)
            if unpriced is not None:
                row["unmet"], row["unmet_reason"] = unpriced
            row["layout_reason"] = purchase_why(row)
        else:  # the unit prices only: there is nothing to buy
            row = o | {k: cost[k] for k in UNIT_PRICE_KEYS}
        out.append(row)
    mark_pareto(out)
    return out


def rl_priced(o: dict[str, Any]) -> dict[str, Any]:
    """What an RL option costs: every GPU of the run. Split placement rents or buys the rollout
    pool beside the training pool (``rl_total_gpus``); pricing the training pool alone would
    rank a split below the colocated run that needs no extra GPUs."""
    total = o.get("rl_total_gpus")
    if not o["fits"] or total is None or total == o["gpus"]:
        return o
    return o | {"gpus": total, "gpus_in_layout": total}


def rl_work(o: Mapping[str, Any]) -> dict[str, Any]:
    """The work an option's money is spread over. RL: the whole step's trained tokens per second
    and the run's time (its estimate's rl block, core/pipeline/rl_report.py): the rollout, the
    log-prob forwards and the refit take most of a GRPO step (the phases of
    core/pipeline/rl_plan.py, held against published verl and NeMo RL step times in
    docs/evidence/rl.md), so the training phase's rate alone would price a run several times
    too cheap and rank GPUs by that phase alone. Other kinds: the option itself."""
    if o.get("rl_run_seconds") is None:
        return dict(o)
    # the band is of whole published steps (speed/rl/..., core/sizing/option_band.py),
    # so the band sorts rank the step at its slow edge, never at the training phase's
    return {
        **o,
        "tokens_per_second": o.get("rl_tokens_trained_per_second"),
        "time_seconds": o["rl_run_seconds"],
        "tokens_per_second_range": o.get("rl_tokens_trained_per_second_range"),
        "time_seconds_range": o.get("rl_run_seconds_range"),
    }


def speed_of(o: Mapping[str, Any]) -> float | None:
    """The speed an option is ranked and charted by: tokens per second per user when
    serving, trained tokens per second otherwise (RL: over the whole step, :func:`rl_work`)."""
    per_user = o.get("tokens_per_second_per_user")
    return per_user if per_user is not None else rl_work(o).get("tokens_per_second")


def mark_pareto(options: Sequence[dict[str, Any]]) -> None:
    """``pareto`` = true for each fitting option with a cost and a speed that no other
    beats on both (lower or equal cost per million tokens, higher or equal speed, one of
    them strictly)."""
    pts: list[tuple[float, float, dict[str, Any]]] = []
    for o in options:
        o["pareto"] = False
        cost, fast = o.get("cost_per_million_tokens"), speed_of(o)
        if o["fits"] and cost is not None and fast:
            pts.append((cost, fast, o))
    for cost, fast, o in pts:
        o["pareto"] = not any(c <= cost and f >= fast and (c < cost or f > fast) for c, f, _ in pts)


def sort_options(
    options: Sequence[dict[str, Any]], sort: str = "cost", goals: Goals | None = None
) -> list[dict[str, Any]]:
    """Sorted by ``sort`` (``SORTS``) and numbered (``rank`` 1, 2...); ``goals``: the scenario's
    targets (``Goals.of``), which rank the misses nearest first (None: by the sort alone)."""
    check_sort(sort)

    def key(o: dict[str, Any]) -> tuple[Any, ...]:
        # the user's targets, then the stated default service level (core/sizing/service_level.py)
        head: tuple[bool, ...] = (
            not o["fits"],
            o["targets_met"] is False,
            o.get("default_target_met") is False,
        )
        cost, fast = o.get("cost_per_million_tokens"), speed_of(o)
        if sort.endswith("_band"):
            head = (
                not o["fits"],
                *band_head(rl_work(o)),
                o["targets_met"] is False,
                # met at the estimate alone: its band passes a target (core/sizing/estimate_only.py)
                o.get("targets_met_at_estimate_only") is True,
                o.get("default_target_met") is False,
            )
            cost, fast = cost_at_slow_edge(rl_work(o)), slow_edge(rl_work(o))
        price = purchase_rank(o)  # the unpriced that meet the targets: by purchase price
        by_cost = (cost is None, cost or 0.0, price is None, price or 0.0)
        by_speed = (fast is None, -(fast or 0.0), -(o["tokens_per_second"] or 0.0))
        by_gpus = (o["gpus"] or 0,)
        hour = o.get("cost_per_hour")
        by_hour = (hour is None, hour or 0.0)
        order = {
            "cost": (by_cost, by_speed, by_gpus),
            "speed": (by_speed, by_cost, by_gpus),
            "gpus": (by_gpus, by_cost, by_speed),
            "hour": (by_hour, by_cost, by_speed),
        }[sort.removesuffix("_band")]
        # the sort's figure unstated (no price, no speed) stays after, for the misses too
        blank = {"cost": cost is None, "speed": fast is None, "gpus": False, "hour": hour is None}
        lead = (blank[sort.removesuffix("_band")], shortfall(o, goals))
        return (*head, *lead, *order, o["capacity_bytes"], o["gpu"])

    out = sorted(options, key=key)
    for i, o in enumerate(out, 1):
        o["rank"] = i
    return out
