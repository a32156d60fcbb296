"""Money and energy of one sizing option (``compare_gpus``, core/sizing/compare.py); its speed is
core/sizing/pace.option_pace, the one function the advice ranks by.

Money and power come from the unit the GPU is bought in (core/sizing/systems.py): an
8-GPU server, an NVL72 rack, a workstation, a Mac, or a box of cards sold alone. Buying is
whole units at their 2025-26 street price (``list_price_usd`` of the system, or of its GPUs for
a box of cards, which then leaves the host out, save that owning prices a box of consumer or
workstation cards with the host the catalog's workstations add: core/sizing/box_host.py);
renting is the on-demand price of one named class of provider-operated cloud
(``price_per_hour``, by the GPU where a cloud rents part of a unit, a share the option says it
is) or, as a second basis, a community or spot marketplace
(``price_per_hour_marketplace``). The user's own prices (core/sizing/prices.py) replace the
catalog's and are marked. The hourly cost is renting, or owning: the purchase spread evenly
over the hours the machine works in ``amortization_years`` (``utilization`` of them, 1.0 =
round the clock, as a cloud bills) plus the electricity it draws while working (``BASES``). A
purchase price is new or used (``list_price_condition``); owning counts used (resale) prices
only when asked (``used_prices``): a used module without a host is no quote to rank against
new servers.
Power is the system's (a vendor maximum or a measured wall figure, never the sum of GPU TDPs; a
box of cards alone has only its cards' board power): the whole units bought when owning, the
rented GPUs' share when renting. Cooling and the building are not counted (no PUE).

Defaults, explicit and editable:

- ``ELECTRICITY_USD_PER_KWH`` = 0.13: the average US commercial-sector retail price, about
  12.7 ¢/kWh in 2023 (EIA, Electric Power Annual 2023, average revenue per kWh by sector,
  https://www.eia.gov/electricity/annual/secrev-map.php; states range from 7.4 ¢ in North
  Dakota to 39 ¢ in Hawaii).
- ``AMORTIZATION_YEARS`` = 5: the useful life GPU clouds depreciate accelerators over, 4 to 6
  years (CoreWeave 6 years in its S-1, Nebius 4, Lambda 5; Amazon cut servers from 6 to 5
  years in 2025): https://bizety.com/2025/09/23/gpu-depreciation-coreweave-vs-nebius and
  https://thecuberesearch.com/298-breaking-analysis-resetting-gpu-depreciation-why-ai-factories-bend-but-dont-break-useful-life-assumptions
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..model.specs import GPUSpec
from .box_host import box_host
from .prices import PRICE_KEYS, gpu_prices, unit_prices  # PRICE_KEYS: what a user may set
from .systems import SystemCost, system_cost, unit_of

HOURS_PER_YEAR = 8766.0  # 365.25 days


def _times(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a * b


def _with_host(cost: SystemCost, host: tuple[float, float]) -> SystemCost:
    """The purchase and power of a box of cards with the host it needs (core/sizing/box_host.py)."""
    usd, watts = host
    return replace(
        cost,
        purchase_usd=None if cost.purchase_usd is None else cost.purchase_usd + usd,
        owned_power_watts=None if cost.owned_power_watts is None else cost.owned_power_watts + watts,
    )


@dataclass(frozen=True)
class Rates:
    """Electricity (USD/kWh), the years a purchase is spread over, and the cost basis."""

    usd_per_kwh: float
    years: float
    basis: str = "cloud"
    utilization: float = 1.0  # share of the hours an owned machine works
    used_prices: bool = False  # count used (resale) purchase prices


def money(
    spec: GPUSpec, option: Mapping[str, Any], prices: Mapping[str, Mapping[str, Any]] | None, rates: Rates
) -> dict[str, Any]:
    """Purchase, rent and owning cost, and power, of an option's GPUs on its unit (USD, USD/h,
    W); ``cost_per_hour`` on the basis asked (``BASES``), null where that price is unknown."""
    unit = unit_of(option["gpu"], spec, option.get("system"), option.get("gpus_per_system"))
    mine = unit_prices(unit, prices)
    cost = system_cost(
        unit, option["gpus"] or 1, mine.list_price_usd, mine.price_per_hour, mine.price_per_hour_marketplace
    )
    left_out = mine.provenance.get("list_price_condition") == "used" and not rates.used_prices
    if left_out:  # new prices unless used ones are asked for
        cost = replace(cost, purchase_usd=None)
    host = box_host(unit, spec, cost.systems * unit.gpus, cost.systems)
    if host is not None and rates.basis == "owned":  # owning buys the host too
        cost = _with_host(cost, host)
    owned = None
    if cost.purchase_usd is not None and cost.owned_power_watts is not None:
        # the purchase over the hours the machine works; electricity per working hour
        spread = cost.purchase_usd / (rates.years * HOURS_PER_YEAR * rates.utilization)
        owned = spread + cost.owned_power_watts / 1000 * rates.usd_per_kwh
    per_hour = {
        "cloud": cost.cloud_usd_per_hour,
        "owned": owned,
        "marketplace": cost.marketplace_usd_per_hour,
    }
    catalog = {k: getattr(spec, k) for k in PRICE_KEYS}
    return {
        **gpu_prices(catalog, option["gpu"], prices),
        "system_list_price_usd": mine.list_price_usd,
        "system_price_per_hour": mine.price_per_hour,
        "user_prices": bool(mine.user_keys)
        or any((prices or {}).get(option["gpu"], {}).get(k) is not None for k in PRICE_KEYS),
        "user_price_keys": list(mine.user_keys),
        **mine.provenance,
        "systems": cost.systems,
        "rented_gpus": cost.rented_gpus,
        "rents_a_share": cost.rents_a_share,
        "purchase_cost": cost.purchase_usd,
        "cloud_cost_per_hour": cost.cloud_usd_per_hour,
        "marketplace_cost_per_hour": cost.marketplace_usd_per_hour,
        "owned_cost_per_hour": owned,
        "host_purchase_usd": None if host is None else host[0],
        "host_power_watts": None if host is None else host[1],
        "power_watts": cost.owned_power_watts if rates.basis == "owned" else cost.rented_power_watts,
        "power_basis": unit.sources.get("power_basis"),
        "cost_per_hour": per_hour[rates.basis],
        "cost_basis": rates.basis,
        "used_price_left_out": left_out,
    }


def per_work(
    cost: dict[str, Any], pace: Mapping[str, Any], training: bool, usd_per_kwh: float
) -> dict[str, Any]:
    """Cost and energy per unit of work: per million tokens (served or trained) and, for a
    training run of ``workload.training_tokens`` (RL: of ``rl.steps`` steps,
    compare_rank.rl_work), per run, with the run's cost, energy and electricity at its time band
    (:func:`run_cost_range`: the system draws ``power_watts`` for every hour of the run, so its
    kWh and their price scale with the time as the hourly bill does)."""
    tps, kw = pace.get("tokens_per_second"), cost["power_watts"]
    hours_per_m = 1e6 / (tps * 3600) if tps else None
    kwh_per_m = _times(hours_per_m, None if kw is None else kw / 1000)
    out: dict[str, Any] = {
        "cost_per_million_tokens": _times(cost["cost_per_hour"], hours_per_m),
        "cost_per_million_tokens_range": per_million_range(
            cost["cost_per_hour"], pace.get("tokens_per_second_range")
        ),
        "energy_kwh_per_million_tokens": kwh_per_m,
        "electricity_cost_per_million_tokens": _times(kwh_per_m, usd_per_kwh),
    }
    if training:
        seconds = pace.get("time_seconds")
        hours = None if seconds is None else seconds / 3600
        kwh = _times(hours, None if kw is None else kw / 1000)
        band = pace.get("time_seconds_range")
        kwh_band = run_cost_range(None if kw is None else kw / 1000, band)  # kW x h, as USD/h x h
        out |= {
            "training_cost": _times(cost["cost_per_hour"], hours),
            "training_cost_range": run_cost_range(cost["cost_per_hour"], band),
            "energy_kwh": kwh,
            "energy_kwh_range": kwh_band,
            "electricity_cost": _times(kwh, usd_per_kwh),
            "electricity_cost_range": None if kwh_band is None else [e * usd_per_kwh for e in kwh_band],
        }
    return out


def per_million_range(per_hour: float | None, tps_range: Any) -> list[float] | None:
    """The cost per million tokens at the edges of the speed band (USD): per hour x 1e6 /
    (tokens/s x 3600), so the fast edge gives the low cost (core/evidence/derived.py words the
    same for the report's ``serving.cost_per_million_tokens_range``); None without a price or a
    band."""
    if per_hour is None or not tps_range or min(tps_range) <= 0:
        return None
    return [per_hour * 1e6 / (tps_range[1] * 3600), per_hour * 1e6 / (tps_range[0] * 3600)]


def run_cost_range(per_hour: float | None, seconds_range: Any) -> list[float] | None:
    """[lower, upper] cost of a run (USD) at the edges of its time band (seconds): the run is
    billed by the hour (``per_hour``, USD/h), so its cost scales with its time and a band on
    the time is the same band on the cost. The band is that of the run's time
    (core/sizing/option_band.py: ``time_seconds_range``, or an RL run's ``rl_run_seconds_range``,
    where replayed published steps like it landed, docs/evidence/rl.md section 8). Ranking stays
    on the estimate (``training_cost`` and ``cost_per_million_tokens``; the ``cost_band`` sort
    ranks at the slow edge, core/sizing/compare_rank.py). None without a price or a band. The
    same holds for any rate drawn every hour: ``per_hour`` in kW gives the run's kWh band."""
    if per_hour is None or not seconds_range:
        return None
    return [per_hour * seconds_range[0] / 3600, per_hour * seconds_range[1] / 3600]


def pricer(
    specs: Mapping[str, GPUSpec], prices: Mapping[str, Mapping[str, Any]] | None, rates: Rates, training: bool
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An option's :func:`money` and :func:`per_work` fields together, for the answers priced
    beside a ranked option as it is (core/sizing/compare_rank.price_options: the aggregated or
    disaggregated answer not ranked, the count that meets the default service level)."""
    return lambda x: (
        (c := money(specs[x["gpu"]], x, prices, rates)) | per_work(c, x, training, rates.usd_per_kwh)
    )
