"""What a cell of the Hardware tab's table says beyond its value (hardware/table.py): where a
unit price comes from, whether the user's prices were used, and the value it sorts by."""

from __future__ import annotations

import math
from typing import Any

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
