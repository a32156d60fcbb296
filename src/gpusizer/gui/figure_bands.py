"""The key figures' bands in words (gui/breakdown.py's figures beside the table): a speed's and
a cost's band, in io/evidence_text.py's wording."""

from __future__ import annotations

from ..core.evidence.bands import Band
from ..io.evidence_text import banded


def whole(v: float) -> str:
    return f"{v:,.0f}"


def usd_text(v: float) -> str:
    return f"${v:,.2f}"


# A band's numbers follow the figure's unit, and where the estimate lies outside its band they
# say what they are ("runs like this: 35-83"): a bare "89 (35-83) tokens/s" read as a typo, and
# "$48.55 (runs like this took $52.14-$123.77) per M tokens" put a time's verb on a price.
def rate_text(b: Band, total: float, per_user: float) -> str:
    """``311 tokens/s (runs like this: 240-300), 321.8 per user``: the speed band on the total."""
    return f"{banded(f'{total:,.0f} tokens/s', b.size_range(total), whole, total)}, {per_user:,.1f} per user"


def cost_text(b: Band, usd: float) -> str:
    """``$48.55 per M tokens (runs like this: $52.14-$123.77)``: a cost scales with the time
    (core/evidence/derived.py), so it takes the time's band."""
    return banded(f"{usd_text(usd)} per M tokens", b.time_range(usd) if usd else None, usd_text, usd)
