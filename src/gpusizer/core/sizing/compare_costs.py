"""Money and energy of one sizing option (``compare_gpus``, core/compare.py); its speed is
core/sizing/pace.option_pace, the one function the advice ranks by.

Money: the GPU's list price (purchase) and its cloud on-demand price per GPU-hour, both from
the catalog (dated, with sources) unless the user gives their own. The hourly cost is renting
(the cloud price) or owning (the purchase spread evenly over ``amortization_years`` of
round-the-clock use plus the electricity it draws), as the caller asks (``BASES``). Power is
the GPUs' TDP (board power), the most they draw: the host, cooling and network are not
counted (no PUE), so energy is a floor for a whole server and a ceiling for the GPUs alone.

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

from collections.abc import Mapping
from typing import Any

from ..errors import ScenarioError
from ..model.specs import GPUSpec
from .compare_options import AMORTIZATION_YEARS as AMORTIZATION_YEARS
from .compare_options import BASES as BASES
from .compare_options import ELECTRICITY_USD_PER_KWH as ELECTRICITY_USD_PER_KWH

HOURS_PER_YEAR = 8766.0  # 365.25 days
PRICE_KEYS = ("list_price_usd", "price_per_hour")  # what a user may set per GPU


def check_prices(prices: Mapping[str, Mapping[str, Any]] | None) -> dict[str, dict[str, float | None]]:
    """User prices per GPU id (``{"h100-sxm-80gb": {"price_per_hour": 2.5}}``): each value a
    number >= 0 or null (null: use the catalog's); ScenarioError naming the entry otherwise."""
    out: dict[str, dict[str, float | None]] = {}
    for gid, entry in (prices or {}).items():
        if not isinstance(entry, Mapping):
            raise ScenarioError(f"prices.{gid}", f"must map {' / '.join(PRICE_KEYS)} to USD")
        for key, value in entry.items():
            if key not in PRICE_KEYS:
                raise ScenarioError(f"prices.{gid}.{key}", f"unknown price; allowed: {', '.join(PRICE_KEYS)}")
            ok = value is None or (
                isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0
            )
            if not ok:
                raise ScenarioError(
                    f"prices.{gid}.{key}", f"must be a number of USD >= 0 or null; got {value!r}"
                )
        out[gid] = {k: None if v is None else float(v) for k, v in entry.items()}
    return out


def unit_prices(
    spec: GPUSpec, mine: Mapping[str, float | None] | None
) -> tuple[float | None, float | None, bool]:
    """(list price per GPU, cloud USD per GPU-hour, whether the user set either)."""
    mine = {k: v for k, v in (mine or {}).items() if v is not None}
    return (
        mine.get("list_price_usd", spec.list_price_usd),
        mine.get("price_per_hour", spec.price_per_hour),
        bool(mine),
    )


def _times(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a * b


def money(
    spec: GPUSpec,
    gpus: int,
    mine: Mapping[str, float | None] | None,
    usd_per_kwh: float,
    years: float,
    basis: str = "cloud",
) -> dict[str, Any]:
    """Purchase, cloud and owning cost, and power, of ``gpus`` GPUs (USD, W);
    ``cost_per_hour`` on the ``basis`` asked (``BASES``), null where that price is unknown."""
    listed, hourly, user = unit_prices(spec, mine)
    power = _times(spec.tdp_watts, gpus)
    purchase = _times(listed, gpus)
    owned = None
    if purchase is not None and power is not None:
        owned = purchase / (years * HOURS_PER_YEAR) + power / 1000 * usd_per_kwh
    cloud = _times(hourly, gpus)
    return {
        "list_price_usd": listed,
        "price_per_hour": hourly,
        "user_prices": user,
        "purchase_cost": purchase,
        "cloud_cost_per_hour": cloud,
        "owned_cost_per_hour": owned,
        "power_watts": power,
        "cost_per_hour": cloud if basis == "cloud" else owned,
        "cost_basis": basis,
    }


def per_work(
    cost: dict[str, Any], pace: dict[str, float | None], training: bool, usd_per_kwh: float
) -> dict[str, float | None]:
    """Cost and energy per unit of work: per million tokens (served or trained) and, for a
    training run of ``workload.training_tokens``, per run."""
    tps, kw = pace.get("tokens_per_second"), cost["power_watts"]
    hours_per_m = 1e6 / (tps * 3600) if tps else None
    kwh_per_m = _times(hours_per_m, None if kw is None else kw / 1000)
    out = {
        "cost_per_million_tokens": _times(cost["cost_per_hour"], hours_per_m),
        "energy_kwh_per_million_tokens": kwh_per_m,
        "electricity_cost_per_million_tokens": _times(kwh_per_m, usd_per_kwh),
    }
    if training:
        seconds = pace.get("time_seconds")
        hours = None if seconds is None else seconds / 3600
        kwh = _times(hours, None if kw is None else kw / 1000)
        out |= {
            "training_cost": _times(cost["cost_per_hour"], hours),
            "energy_kwh": kwh,
            "electricity_cost": _times(kwh, usd_per_kwh),
        }
    return out
