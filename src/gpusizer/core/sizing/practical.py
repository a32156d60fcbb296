"""The practical cap on a scale-out of consumer cards: how far the advice grows boxes of
GeForce or Radeon cards before it says the cap, not memory or speed, stops it.

Consumer cards come one to four to a box, the boxes linked over Ethernet (core/sizing/units.py,
core/sizing/links.py); past a handful of boxes that is a data-centre deployment built from
parts not made for one, and NVIDIA's GeForce driver licence excludes data-centre deployment
("No Datacenter Deployment. The SOFTWARE is not licensed for datacenter deployment, except
that blockchain processing in a datacenter is permitted", https://www.nvidia.com/en-us/drivers/geforce-license/).
The cap, :data:`CONSUMER_MAX_GPUS` = 32 cards (eight boxes of four), is a stated policy, not a
measured figure: workstation and data-centre GPUs are not capped (``max_gpus`` only).
"""

from __future__ import annotations

from ..model.specs import GPUSpec

CONSUMER_MAX_GPUS = 32  # eight 4-card boxes over Ethernet


def practical_cap(spec: GPUSpec) -> int | None:
    """The most GPUs the advice buys of ``spec`` (None: only the search's ``max_gpus``)."""
    return CONSUMER_MAX_GPUS if spec.category == "consumer" else None


def cap_words(cap: int) -> str:
    """Why the count stops there, in one phrase."""
    return (
        f"consumer cards stop at {cap:,} (eight 4-card boxes over Ethernet; more is a data-centre "
        "deployment, which the GeForce driver licence excludes): choose workstation or data-centre GPUs"
    )
