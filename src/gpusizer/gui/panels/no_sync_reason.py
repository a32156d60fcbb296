"""Why the Parallelism panel's "Accumulate under FSDP1 no_sync" box does not apply, as
core/memory/fsdp_no_sync.py ``check_no_sync`` refuses ``parallelism.fsdp_no_sync``: below ZeRO-3
nothing is sharded for ``no_sync()`` to keep whole, and FSDP2 (``parallelism.fsdp_version`` 2,
the panel's "FSDP version" row) has no ``no_sync()`` (torch ``fully_shard``:
``set_requires_gradient_sync(False)`` instead, not priced here)."""

from __future__ import annotations

from typing import Any


def no_sync_reason(zero_stage: Any, fsdp_version: Any) -> str:
    """The reason the box is off ("" where it applies), in the tooltip's "Not available:" words."""
    if int(zero_stage or 0) < 3:
        return "ZeRO stage is below 3: nothing is sharded for no_sync() to gather"
    if fsdp_version == 2:
        return "FSDP2 (parallelism.fsdp_version 2, the FSDP version row) has no no_sync(); FSDP1 does"
    return ""
