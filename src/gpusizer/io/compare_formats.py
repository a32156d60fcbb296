"""The cell formatters of the buyer's comparison (io/compare_columns.py's registry): numbers,
dollars, durations on the one scale of io/wording.py, bytes in the chosen unit, bands
``[lower, upper]``, text and yes/no. Each takes the value and the memory unit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .units import fmt_bytes
from .wording import duration

__all__ = ["Fmt", "band_fmt", "bytes_fmt", "duration_fmt", "num_fmt", "text_fmt", "usd_fmt", "yes_fmt"]

Fmt = Callable[[Any, str], str]


def num_fmt(digits: int, scale: float = 1.0, suffix: str = "") -> Fmt:
    return lambda v, _u: f"{v * scale:,.{digits}f}{suffix}"


def usd_fmt(v: float, _u: str) -> str:
    """Cents, or whole dollars from $100. Below 10 cents, two significant figures: a 3B
    pre-training owned over 4 years costs $0.0060-$0.019 per million tokens, and every one of
    its top 10 rows read "0.01" in a column the table was ranked by."""
    if 0 < v < 0.1:
        return f"{v:.2g}" if v >= 0.001 else f"{v:.1e}"
    return f"{v:,.2f}" if v < 100 else f"{v:,.0f}"


def duration_fmt(v: float, _u: str) -> str:
    """The one scale of io/wording.py, compact (``2.3 d``)."""
    return duration(v, compact=True)


def bytes_fmt(v: int, unit: str) -> str:
    return fmt_bytes(v, unit)


def band_fmt(inner: Fmt) -> Fmt:
    """A band ``[lower, upper]`` as ``17.1-25.0`` in the column's own format (the unit once
    where both edges share it; ``14.9 h-1.4 d`` where a duration's edges take two)."""

    def fmt(v: Any, u: str) -> str:
        lo, hi = inner(v[0], u), inner(v[1], u)
        lo_num, _, lo_unit = lo.partition(" ")
        return f"{lo_num}-{hi}" if lo_unit and hi.endswith(f" {lo_unit}") else f"{lo}-{hi}"

    return fmt


def text_fmt(v: Any, _u: str) -> str:
    return str(v)


def yes_fmt(v: bool, _u: str) -> str:
    return "yes" if v else "no"
