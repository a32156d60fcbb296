"""The Parallelism panel's "FSDP version" row (``parallelism.fsdp_version``): which PyTorch FSDP
the ZeRO-3 path follows (docs/scenario-format.md; priced in core/memory/training.py, the root
unit's backward gradient, and core/memory/fsdp2_buffers.py, FSDP2's collective buffers), and
where the stack makes the choice moot, read from its registry profile
(core/registry/framework_profile.py): ``reduce_every_backward`` (DeepSpeed's own ZeRO engine
shards, not FSDP: deepspeed/runtime/zero/stage3.py) and ``fsdp2`` (torchtitan's apply_fsdp
always calls ``fully_shard``)."""

from __future__ import annotations

from typing import Any

from ...core.registry.framework_profile import FrameworkProfile

PATH = "parallelism.fsdp_version"
ITEMS = (("FSDP1 (flat)", 1), ("FSDP2 (per-param)", 2))


def fsdp_version_reason(profile: FrameworkProfile | None, zero_stage: Any) -> str:
    """Why the version does not apply ("" where it does), in the tooltip's "Not available:"
    words: the stack shards with DeepSpeed's ZeRO, runs FSDP2 whatever the field says, or the
    ZeRO stage is below 3 (the two FSDPs are priced apart at stage 3 only)."""
    if profile is not None and profile.reduce_every_backward:
        return f"{profile.label} shards with its own ZeRO engine, not PyTorch FSDP"
    if profile is not None and profile.fsdp2:
        return f"{profile.label} always runs FSDP2 (fully_shard), whatever this says"
    if int(zero_stage or 0) < 3:
        return "ZeRO stage is below 3: the two FSDPs differ only where the weights are sharded"
    return ""


def fsdp_version_note(profile: FrameworkProfile | None) -> str:
    """The stack's default, named in the tooltip (not in the combo's text, which would widen the
    panel and the window's least width)."""
    if profile is not None and profile.fsdp2:
        return f"{profile.label}: FSDP2 always."
    return "FSDP1 where a file leaves the field out (torch FullyShardedDataParallel)."


def fsdp_version_enabled(reason: str, value: Any) -> bool:
    """Live where it applies, and while it holds FSDP2 where it does not, so it can be undone."""
    return not reason or value == 2


def fsdp_version_edits(value: Any) -> dict[str, Any]:
    """The edits that go with a pick: FSDP2 has no ``no_sync()`` (core/memory/fsdp_no_sync.py
    refuses ``fsdp_no_sync`` under it), so picking it unticks the box, which the stack's default
    (core/memory/no_sync_default.py) may have ticked; FSDP1 leaves the box as it is."""
    return {"parallelism.fsdp_no_sync": False} if value == 2 else {}
