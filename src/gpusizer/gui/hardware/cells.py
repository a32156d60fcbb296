"""What a cell of the Hardware tab's table says beyond its value (hardware/table.py): where a
unit price comes from, whether the user's prices were used, and the value it sorts by."""

from __future__ import annotations

import math
from typing import Any

from ...io.compare_table import Column
from ...io.evidence_text import OUTSIDE, OUTSIDE_WHY
from ...io.wide_band_text import wide_cell, wide_tip

SOURCES = {  # the option's provenance fields of each price column (core/sizing/prices.py)
    "price_per_hour": ("price_per_hour_provider", "price_per_hour_source", "price_per_hour_date"),
    "list_price_usd": ("list_price_basis", "list_price_source", "list_price_date"),
}
# Cells that say the user's prices were used (italic, with the tooltip saying so): the cell's
# column -> the price key of the user's that it shows (None: any of them)
USER_MARKED: dict[str, str | None] = {
    "price_per_hour": "price_per_hour",
    "cloud_cost_per_hour": "price_per_hour",
    "list_price_usd": "list_price_usd",
    "purchase_cost": "list_price_usd",
    "system_name": None,
}


def user_cell(option: dict[str, Any], key: str) -> bool:
    """Whether a cell shows (or is costed with) one of the user's prices."""
    if key not in USER_MARKED or not option.get("user_prices"):
        return False
    price = USER_MARKED[key]
    return price is None or price in (option.get("user_price_keys") or ())


def sort_value(value: Any) -> Any:
    """Numbers by value, text by text; unknown values after every number."""
    if value is None:
        return math.inf
    if isinstance(value, bool):
        return int(not value)  # "yes" first
    return value if isinstance(value, (int, float)) else str(value).lower()


def price_tip(option: dict[str, Any], key: str) -> str:
    """Where a unit price comes from: the user's, or the catalog's basis, source and date."""
    who, source, date = (option.get(k) for k in SOURCES[key])
    if option.get(key) is None:
        return "No price known: double-click to enter yours (or use My prices…)"
    if option.get("user_prices") and str(source or "").startswith("yours"):
        return f"Your price{f', {date}' if date else ''} ({source}); clear it to use the catalog's"
    head = f"{who}, " if who and key == "price_per_hour" else ""
    return f"Catalog price: {head}{date or 'undated'}: {source or 'no source'} (double-click to change)"


def outside_band(option: dict[str, Any], key: str) -> bool:
    """Whether a band column's (``*_range``) estimate lies outside the band: an RL run's "$ to
    train band" of 25.63-38.79 beside its estimate of 24.65 (the evidence band is offset by
    design: io/evidence_text.band_words)."""
    rng, value = option.get(key), option.get(key.removesuffix("_range"))
    if not key.endswith("_range") or not rng or not isinstance(value, (int, float)):
        return False
    return not min(rng[0], rng[1]) <= value <= max(rng[0], rng[1])


def band_cell(option: dict[str, Any], col: Column, unit: str) -> str:
    """A cell's text; a band the estimate lies outside says what its numbers are ("runs like
    this: 25.63-38.79", the wording of io/evidence_text.band_words), so that it does not read
    as a typo beside the estimate's own column."""
    text = col.text(option, unit)
    if not text and no_band(option, col.key):
        return NO_BAND
    if wide_cell(option, col.key):  # already in words (io/wide_band_text.py)
        return text
    return f"{OUTSIDE} {text}" if text and outside_band(option, col.key) else text


# a band column's cell beside an estimate with no band: blank read as a column that failed to
# fill, where the regime has too few replayed published runs to draw one (core/evidence/bands.py)
NO_BAND = "no band"


def no_band(option: dict[str, Any], key: str) -> bool:
    """Whether a fitting option's band column (``*_range``) is empty beside its estimate."""
    if not key.endswith("_range") or not option.get("fits") or option.get(key):
        return False
    return isinstance(option.get(key.removesuffix("_range")), (int, float))


def band_tip(option: dict[str, Any], key: str) -> list[str]:
    """The band cell's tooltip line: why the estimate can sit outside its band, or why there
    is none."""
    if no_band(option, key):
        speed = option.get("speed_confidence") or "not rated"
        return [
            "No band: too few replayed published runs like this one to draw it from "
            f"(speed {speed}; docs/evidence/*.md). The estimate stands alone."
        ]
    if wide_cell(option, key):
        return [wide_tip(option)]
    return [OUTSIDE_WHY] if outside_band(option, key) else []
