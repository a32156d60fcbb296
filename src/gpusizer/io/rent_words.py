"""The one wording of renting by the GPU, said once under ``compare``'s table.

Asked to rent by the GPU (``compare --rent-by-gpu``, ``compare_gpus(rent_by_gpu=True)``), a
cloud-basis row's count is the GPUs rented (core/sizing/rent_unit.py): 2 of an 8-GPU server
where the cloud rents by the GPU. The System, Units and Purchase $ columns still name the unit a
buyer would buy, so the table says once which rows rent part of one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

RENTED_BY_GPU = "rented by the GPU"


def rented_part(o: dict[str, Any]) -> bool:
    """Whether the row, counted by the GPU rented, rents fewer GPUs than its units hold."""
    return bool(o.get("rented_by_gpu") and o.get("rents_a_share")) and o.get("cost_per_hour") is not None


def rent_lines(options: Sequence[dict[str, Any]]) -> list[str]:
    """One line naming the rows rented by the GPU (none where no row is)."""
    rows = [o for o in options if rented_part(o)]
    if not rows:
        return []
    first = rows[0]
    example = f"{first['gpu']}: {first['rented_gpus']:,} of {first['systems'] * first['gpus_per_system']:,}"
    return [
        f"GPUs {RENTED_BY_GPU} on {len(rows):,} row{'s' if len(rows) != 1 else ''} ({example}): the cloud "
        "prices each GPU-hour, so GPUs and Cloud $/h are the GPUs rented; System, Units and "
        "Purchase $ are the whole units a buyer buys (--basis owned counts those)."
    ]
