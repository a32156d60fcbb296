"""The Hardware tab's settings, remembered between runs (gui/settings.py's INI file): the
memory margin (which the "GPUs needed" line uses too), whole servers, cards per box, ranking,
cost basis, electricity price and filters. The user's own prices ("My prices", issue 22), which
override the catalog's, live in their own file beside the INI (io/user_prices.py), written
atomically; prices an older version kept in the INI move there once."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from ...core.errors import ScenarioError
from ...core.sizing.compare_costs import AMORTIZATION_YEARS, BASES, ELECTRICITY_USD_PER_KWH, check_prices
from ...core.sizing.compare_rank import SORTS, Money
from ...core.sizing.layout_search import DEFAULT_MARGIN, check_margin
from ...core.sizing.systems import check_cards_per_box
from ...io.user_prices import ENV as PRICES_ENV
from ...io.user_prices import load_user_prices, save_prices
from ..settings import Prefs, settings_dir

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
    cards_per_box: int | None = None  # cards sold alone per box (None: the fewest that hold them)
    prices: dict[str, dict[str, Any]] = field(default_factory=dict)

    def check(self) -> HardwareSettings:
        """Itself if every value is allowed; ScenarioError naming the first that is not."""
        check_margin(self.margin)
        check_cards_per_box(self.cards_per_box)
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
    """The settings to the INI (the prices go to their own file: :func:`save_my_prices`)."""
    data = asdict(settings)
    data.pop("prices")
    prefs.qs.setValue(KEY, json.dumps(data))


def prices_path(prefs: Prefs) -> Path:
    """The user's prices file: ``GPUSIZER_USER_PRICES``, else ``prices.json`` beside the INI."""
    path = os.environ.get(PRICES_ENV)
    return Path(path) if path else settings_dir(prefs.qs) / "prices.json"


def load_my_prices(prefs: Prefs, legacy: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], str]:
    """(the user's prices, a problem to show or ""). Prices an older version kept in the INI
    (``legacy``) are written to the file when there is none yet."""
    path = prices_path(prefs)
    try:
        if not path.exists() and legacy:
            save_prices(path, legacy)
        return load_user_prices(path), ""
    except (ScenarioError, OSError) as exc:
        log.info("My prices unreadable: %s", exc)
        return {}, f"My prices: {exc}"


def save_my_prices(prefs: Prefs, prices: dict[str, dict[str, Any]]) -> str:
    """Write the user's prices atomically; the problem in words, or "" when written."""
    try:
        save_prices(prices_path(prefs), prices)
    except (ScenarioError, OSError) as exc:
        return f"My prices not saved: {exc}"
    return ""


def margin_of(prefs: Prefs) -> float:
    """The remembered margin (the advisor's "GPUs needed" line starts with it)."""
    return load(prefs).margin


def as_kwargs(settings: HardwareSettings) -> dict[str, Any]:
    """What the search depends on (``size_gpus``); the rest is pricing, redone cheaply."""
    return {
        "margin": settings.margin,
        "whole_nodes": settings.whole_nodes,
        "cards_per_box": settings.cards_per_box,
    }
