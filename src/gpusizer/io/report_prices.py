"""The report's "Prices" section: the basis of each price column, and the prices of
the scenario's GPU and of the unit it is bought in, each with its source and date; the user's
own prices marked as theirs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.model.specs import GPUSpec
from ..core.sizing.compare_options import AMORTIZATION_YEARS, ELECTRICITY_USD_PER_KWH
from ..core.sizing.prices import unit_prices
from ..core.sizing.systems import purchase_unit, single_gpu
from .wording import count

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
    """Purchase and rental prices of one GPU and of the unit it is bought in (the user's
    where set), each with its basis, source and date or why there is none."""
    unit = purchase_unit(spec.id, spec)
    rows = []
    for label, per, one in (
        (f"{spec.name}", "GPU", single_gpu(spec)),
        (f"{unit.name} ({count(unit.gpus, 'GPU')})", "unit", unit),
    ):
        up = unit_prices(one, prices)
        for key, stem, what, unit_word in (
            ("list_price_usd", "list_price", "purchase", f"per {per}"),
            ("price_per_hour", "price_per_hour", "rental", f"per {per}-hour"),
        ):
            value = getattr(up, key)
            why = "" if value is not None else str(one.sources.get(f"{stem}_null_reason") or "")
            rows.append(
                PriceRow(
                    f"{label}: {what}",
                    _usd(value, unit_word),
                    str(up.provenance.get(f"{stem}_basis") or one.priced_as) if value is not None else "",
                    str(up.provenance.get(f"{stem}_source") or why),
                    str(up.provenance.get(f"{stem}_date") or ""),
                )
            )
    return rows


def your_prices(prices: Mapping[str, Mapping[str, Any]] | None) -> list[str]:
    """The user's own prices, one line per GPU or system id."""
    entries = (prices or {}).items()
    return [f"{gid}: " + ", ".join(f"{k} {v}" for k, v in entry.items()) for gid, entry in entries]
