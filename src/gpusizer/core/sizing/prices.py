"""The user's own prices ("My prices"): quotes that replace the catalog's.

One shape everywhere: ``compare_gpus(prices=...)``, ``gpusizer-cli compare --prices FILE``, the
report and the window's "My prices" file (io/user_prices.py) take

    {"h100-sxm-80gb": {"price_per_hour": 2.5},
     "hgx-h100-8gpu": {"list_price_usd": 210000, "date": "2026-11", "source": "Dell quote Q-123"}}

keyed by a GPU id (prices per GPU, per GPU-hour) or a system id (presets/systems/: prices per
system, per system-hour). Price keys: :data:`PRICE_KEYS` (a number from 0, "already owned",
to :data:`MAX_PRICE_USD`, or null for the catalog's); optional ``date`` (``"YYYY-MM"`` or
a calendar day ``"YYYY-MM-DD"``) and ``source`` (free text, at most :data:`MAX_SOURCE`
characters) say where a quote comes from. Which price a unit is costed at
(:func:`unit_prices`): the user's system price, else the user's GPU price times the unit's
GPUs, else the catalog's; every option says whose it used.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..errors import ScenarioError, excerpt
from ..limits import MAX_RATE
from .compare_options import PROVENANCE_FIELDS
from .systems import PurchaseUnit

PRICE_KEYS = ("list_price_usd", "price_per_hour", "price_per_hour_marketplace")
META_KEYS = ("date", "source", "price_condition")  # price_condition: new | used (default new)
CONDITIONS = ("new", "used")
MAX_SOURCE = 500
MAX_ENTRIES = 10_000
# The ceiling of any price, per GPU, system or hour: the catalog's own bound (core/limits.py),
# about 250 GB200 NVL72 racks. 1.7e308 passed as finite and overflowed to inf in a sum.
MAX_PRICE_USD = MAX_RATE
_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$", re.ASCII)
Prices = dict[str, dict[str, Any]]


def _number(field: str, value: Any) -> float | None:
    ok = value is None or (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 <= value <= MAX_PRICE_USD
    )
    if not ok:
        raise ScenarioError(
            field, f"must be a number of USD from 0 to {MAX_PRICE_USD:,.0f}, or null; got {excerpt(value)}"
        )
    return None if value is None else float(value)


def _real_date(value: str) -> bool:
    """``YYYY-MM`` or a calendar day ``YYYY-MM-DD`` (2026-02-31 is not one); ASCII digits only
    (``re``'s ``\\d`` also takes Arabic-Indic digits)."""
    if not _DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value if len(value) == 10 else value + "-01")
    except ValueError:
        return False
    return True


def _meta(field: str, key: str, value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ScenarioError(field, f"must be text; got {excerpt(value)}")
    if key == "price_condition" and value not in CONDITIONS:
        raise ScenarioError(field, f"must be one of {', '.join(CONDITIONS)}; got {excerpt(value)}")
    if key == "date" and not _real_date(value):
        raise ScenarioError(field, f'must be a date "YYYY-MM" or "YYYY-MM-DD"; got {excerpt(value)}')
    if len(value) > MAX_SOURCE:
        raise ScenarioError(field, f"at most {MAX_SOURCE} characters; got {len(value):,}")
    return value


def check_prices(prices: Mapping[str, Mapping[str, Any]] | None) -> Prices:
    """The user's prices, checked (ScenarioError naming the entry otherwise): each value a
    number >= 0 or null, ``date`` and ``source`` text. Ids are not checked here (a price for a
    GPU not compared is ignored); io/user_prices.py checks them when it reads a file."""
    if prices is not None and not isinstance(prices, Mapping):
        raise ScenarioError("prices", "must map GPU or system ids to their prices")
    out: Prices = {}
    if prices is not None and len(prices) > MAX_ENTRIES:
        raise ScenarioError("prices", f"at most {MAX_ENTRIES:,} entries; got {len(prices):,}")
    for gid, entry in (prices or {}).items():
        if not isinstance(gid, str) or not isinstance(entry, Mapping):
            raise ScenarioError(f"prices.{gid}", f"must map {' / '.join(PRICE_KEYS)} to USD")
        row: dict[str, Any] = {}
        for key, value in entry.items():
            field = f"prices.{gid}.{key}"
            if key in PRICE_KEYS:
                row[key] = _number(field, value)
            elif key in META_KEYS:
                row[key] = _meta(field, key, value)
            else:
                allowed = ", ".join(PRICE_KEYS + META_KEYS)
                raise ScenarioError(field, f"unknown price; allowed: {allowed}")
        out[gid] = row
    return out


@dataclass(frozen=True)
class UnitPrices:
    """The prices a unit is costed at (per unit, per unit-hour) and whose they are:
    ``user_keys`` the price keys the user set; ``provenance`` the date and source of each
    price used (``list_price_date``, ``list_price_source``, ``price_per_hour_provider``,
    ``price_per_hour_date``, ``price_per_hour_source``)."""

    list_price_usd: float | None
    price_per_hour: float | None
    price_per_hour_marketplace: float | None
    user_keys: tuple[str, ...]
    provenance: Mapping[str, str | None]


def _yours(entry: Mapping[str, Any]) -> str:
    source = entry.get("source")
    return f"yours ({source})" if source else "yours"


def unit_prices(unit: PurchaseUnit, prices: Mapping[str, Mapping[str, Any]] | None) -> UnitPrices:
    """The unit's prices after the user's (see the module docstring for the order)."""
    prices = prices or {}
    mine_sys = prices.get(unit.system or "", {}) if unit.system else {}
    mine_gpu = prices.get(unit.gpu, {})
    src = dict(unit.sources)
    values: dict[str, float | None] = {}
    user: list[str] = []
    for key in PRICE_KEYS:
        values[key] = getattr(unit, key)
        for entry, scale in ((mine_sys, 1), (mine_gpu, unit.gpus)):
            if entry.get(key) is not None:
                values[key] = entry[key] * scale
                user.append(key)
                where = "list_price" if key == "list_price_usd" else key
                src |= {
                    f"{where}_date": entry.get("date"),
                    f"{where}_source": _yours(entry),
                    f"{where}_basis": "yours",
                }
                if key == "list_price_usd":
                    src["list_price_condition"] = entry.get("price_condition") or "new"
                if key != "list_price_usd":
                    src[f"{key}_provider"] = "yours"
                break
    provenance = {k: src.get(k) for k in PROVENANCE_FIELDS}
    return UnitPrices(
        values["list_price_usd"],
        values["price_per_hour"],
        values["price_per_hour_marketplace"],
        tuple(user),
        provenance,
    )


def gpu_prices(
    spec_prices: Mapping[str, float | None], gpu: str, prices: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, float | None]:
    """Per-GPU prices (``PRICE_KEYS``) of one GPU: the user's where set, else ``spec_prices``
    (the catalog's)."""
    mine = (prices or {}).get(gpu, {})
    return {k: mine[k] if mine.get(k) is not None else spec_prices.get(k) for k in PRICE_KEYS}
