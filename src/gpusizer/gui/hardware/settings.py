"""The Hardware tab's settings, remembered between runs (gui/settings.py's INI file): the
memory margin (which the "GPUs needed" line uses too), whole servers, ranking, cost basis,
electricity price, filters, and the user's own GPU prices, which override the catalog's."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from ...core.errors import ScenarioError
from ...core.sizing.compare_costs import AMORTIZATION_YEARS, BASES, ELECTRICITY_USD_PER_KWH, check_prices
from ...core.sizing.compare_rank import SORTS, Money
from ...core.sizing.layout_search import DEFAULT_MARGIN, check_margin
from ..settings import Prefs

log = logging.getLogger(__name__)
KEY = "compare/settings"


@dataclass(frozen=True)
class HardwareSettings:
    """What the Hardware tab shows; ``prices``: ``{gpu_id: {"price_per_hour": x,
    "list_price_usd": y}}`` set by the user."""

    margin: float = DEFAULT_MARGIN
    whole_nodes: bool = False
    sort: str = "cost"
    basis: str = "cloud"
    electricity_usd_per_kwh: float = ELECTRICITY_USD_PER_KWH
    amortization_years: float = AMORTIZATION_YEARS
    vendor: str = ""  # "" = every vendor
    category: str = ""  # "" = every class
    min_memory_gb: float = 0.0
    prices: dict[str, dict[str, float | None]] = field(default_factory=dict)

    def check(self) -> HardwareSettings:
        """Itself if every value is allowed; ScenarioError naming the first that is not."""
        check_margin(self.margin)
        if self.sort not in SORTS or self.basis not in BASES:
            raise ScenarioError("sort", f"sort {self.sort!r} / basis {self.basis!r}")
        self.money()
        return self

    def money(self) -> Money:
        return Money(self.prices, self.electricity_usd_per_kwh, self.amortization_years, self.basis)

    def with_price(self, gpu: str, key: str, value: float | None) -> HardwareSettings:
        """A copy with the user's price of one GPU set (None: back to the catalog's)."""
        prices = {g: dict(p) for g, p in self.prices.items()}
        mine = prices.setdefault(gpu, {})
        if value is None:
            mine.pop(key, None)
        else:
            mine[key] = float(value)
        check_prices(prices)
        return replace(self, prices={g: p for g, p in prices.items() if p})


def load(prefs: Prefs) -> HardwareSettings:
    """The remembered settings; defaults for anything missing, unknown or damaged."""
    try:
        data = json.loads(str(prefs.qs.value(KEY, "") or "{}"))
        known = {f.name for f in fields(HardwareSettings)}
        return HardwareSettings(**{k: v for k, v in data.items() if k in known}).check()
    except (ValueError, TypeError, ScenarioError, AttributeError):
        log.info("Hardware tab settings unreadable; using the defaults")
        return HardwareSettings()


def save(prefs: Prefs, settings: HardwareSettings) -> None:
    prefs.qs.setValue(KEY, json.dumps(asdict(settings)))


def margin_of(prefs: Prefs) -> float:
    """The remembered margin (the advisor's "GPUs needed" line starts with it)."""
    return load(prefs).margin


def as_kwargs(settings: HardwareSettings) -> dict[str, Any]:
    """What the search depends on (``size_gpus``); the rest is pricing, redone cheaply."""
    return {"margin": settings.margin, "whole_nodes": settings.whole_nodes}
