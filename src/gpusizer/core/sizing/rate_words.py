"""A speed in words, shared by the unmet-target sentences (core/sizing/unmet.py), the count
that meets the default level (core/sizing/level_count_fields.py) and the band notes; a module
of its own so that none of them imports another's option types."""

from __future__ import annotations


def rate_words(x: float) -> str:
    """A speed in words: one decimal from 1 up, else two significant digits ("0.04", not "0.0",
    which a buyer takes for a broken figure)."""
    return f"{x:,.1f}" if x >= 1 or x == 0 else f"{x:.2g}"
