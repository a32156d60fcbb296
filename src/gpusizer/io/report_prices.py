"""The report's "Prices" section (issue 22): the basis of each price column, and the prices of
the scenario's GPU and of the unit it is bought in, each with its source and date; the user's
own prices marked as theirs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.model.specs import GPUSpec
from ..core.sizing.compare_options import AMORTIZATION_YEARS, ELECTRICITY_USD_PER_KWH
from ..core.sizing.prices import unit_prices
from ..core.sizing.systems import purchase_unit

BASIS_LINES = (
    "Renting (cloud): the on-demand list price of provider-operated GPU clouds: RunPod Secure "
    "Cloud where it lists the GPU, else the named provider; per GPU-hour, dated.",
    "Renting (marketplace): community or spot marketplaces (RunPod Community Cloud, Vast.ai, "
    "Akash); a second column, never mixed with the first.",
    f"Owning: the 2025-26 street price of the whole unit (a server, a rack, a workstation, a Mac; "
    f"a box of cards alone is priced as its cards) over {AMORTIZATION_YEARS:g} years of "
    f"round-the-clock use, plus electricity (default ${ELECTRICITY_USD_PER_KWH:.2f}/kWh) at the "
    "unit's system power.",
    "Peaks: dense tensor peaks per dtype from datasheets (sparse figures halved); achieved "
    "rates are not catalog figures.",
)


@dataclass(frozen=True)
class PriceRow:
    item: str
    price: str
    basis: str
    source: str
    date: str


def _usd(value: float | None, per: str) -> str:
    if value is None:
        return "not known"
    return f"${value:,.2f} {per}" if value < 100 else f"${value:,.0f} {per}"


def price_rows(spec: GPUSpec, prices: Mapping[str, Mapping[str, Any]] | None) -> list[PriceRow]:
    """The GPU's and its unit's purchase and rental prices (the user's where set)."""
    mine = (prices or {}).get(spec.id, {})
    unit = purchase_unit(spec.id, spec)
    up = unit_prices(unit, prices)
    src, prov = unit.sources, up.provenance

    def gpu_row(key: str, what: str, per: str, source: str | None, date: str | None) -> PriceRow:
        user = mine.get(key) is not None
        value = mine[key] if user else getattr(spec, key)
        basis = "yours" if user else (getattr(spec, key.replace("_usd", "") + "_basis", None) or "")
        why = (
            "" if value is not None else (getattr(spec, f"{key.replace('_usd', '')}_null_reason", None) or "")
        )
        where = mine.get("source") or "your price" if user else source or why
        return PriceRow(
            f"{spec.name}: {what}", _usd(value, per), basis, where, (mine.get("date") if user else date) or ""
        )

    rows = [
        gpu_row("list_price_usd", "purchase", "per GPU", spec.list_price_source, spec.list_price_date),
        gpu_row(
            "price_per_hour", "rental", "per GPU-hour", spec.price_per_hour_source, spec.price_per_hour_date
        ),
    ]
    for key, what, per, basis_key in (
        ("list_price_usd", "purchase", "per unit", "list_price_basis"),
        ("price_per_hour", "rental", "per unit-hour", "price_per_hour_basis"),
    ):
        user = key in up.user_keys
        value = getattr(up, key)
        stem = "list_price" if key == "list_price_usd" else "price_per_hour"
        basis = "yours" if user else str(src.get(basis_key) or unit.priced_as)
        source = prov.get(f"{stem}_source") or src.get(f"{stem}_null_reason") or ""
        rows.append(
            PriceRow(
                f"{unit.name} ({unit.gpus} GPUs): {what}",
                _usd(value, per),
                basis,
                str(source),
                str(prov.get(f"{stem}_date") or ""),
            )
        )
    return rows


def prices_markdown(spec: GPUSpec, prices: Mapping[str, Mapping[str, Any]] | None) -> list[str]:
    """The section as Markdown lines."""
    out = (
        ["## Prices", ""]
        + [f"- {line}" for line in BASIS_LINES]
        + ["", "| | price | basis | source | date |", "|---|---:|---|---|---|"]
    )
    out += [f"| {r.item} | {r.price} | {r.basis} | {r.source} | {r.date} |" for r in price_rows(spec, prices)]
    if prices:
        out += ["", "Your prices (marked *yours* above and in the Hardware table):", ""]
        out += [
            f"- `{gid}`: " + ", ".join(f"{k} {v}" for k, v in entry.items()) for gid, entry in prices.items()
        ]
    return out
