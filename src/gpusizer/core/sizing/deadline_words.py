"""A training deadline (``targets.max_training_days``) in the words a buyer states it: days
from one day up, hours below. A 12-hour QLoRA read "trains it in 4 min of 0.5 days" and "the
0.5-day deadline"; it now reads "of 12 h" and "the 12-hour deadline". A deadline of a day or
more reads as before ("of 1 day", "of 7 days", "the 21-day deadline")."""

from __future__ import annotations


def deadline_span(days: float) -> str:
    """``12 h``, ``1 day``, ``7 days``: the deadline after "of" in a Why."""
    if days < 1:
        return f"{days * 24:g} h"
    return f"{days:g} day{'' if days == 1 else 's'}"


def deadline_adjective(days: float) -> str:
    """``12-hour``, ``21-day``: the deadline before "deadline"."""
    return f"{days * 24:g}-hour" if days < 1 else f"{days:g}-day"
