"""``parallelism.fsdp_no_sync`` from the training stack where the scenario leaves it out.

A stack whose gradient accumulation runs FSDP1's ``no_sync()`` unless told otherwise (its
profile's ``no_sync`` rule: transformers' Trainer through accelerate, axolotl, Lit-GPT under
Lightning Fabric; core/registry/no_sync.py, with the sources) gets the field on when the
scenario trains at ``zero_stage`` 3 with ``fsdp_version`` 1 and a step has more than one
micro-batch (not an RL workload, whose policy trainers were not read for it). Stated
explicitly, the field wins (``false``: ``sync_each_batch=True`` in accelerate before
transformers 4.47, or a loop that syncs every micro-batch). Anything else is returned as it
came, so a scenario outside those stacks, below ZeRO-3, under FSDP2 or with one micro-batch a
step answers as before; the echo states the value filled in. A scenario that states DeepSpeed's
``overlap_comm`` runs the Trainer over DeepSpeed, which never enters ``no_sync()`` (its
engine reduces every backward): no default there.
"""

from __future__ import annotations

from ..model.specs import Scenario
from .training import layout

FIELD = "fsdp_no_sync"


def stack_no_sync(s: Scenario) -> bool:
    """Whether the scenario's stack accumulates under FSDP1's ``no_sync()`` here, the field
    left out (module docstring)."""
    par = s.parallelism
    if FIELD in par.model_fields_set or s.profile.no_sync is None or not s.workload.trains:
        return False
    if par.zero_stage < 3 or par.fsdp_version != 1 or s.workload.info.phased:
        return False  # RL's phases: its trainers' loops were not read for it
    if par.overlap_comm is not None:  # DeepSpeed's own setting: the Trainer over DeepSpeed
        return False  # (transformers trainer.py: no no_sync under DistributedType.DEEPSPEED)
    return layout(s).accumulate


def with_stack_no_sync(s: Scenario) -> Scenario:
    """The scenario with ``parallelism.fsdp_no_sync`` on where its stack runs it by default."""
    if not stack_no_sync(s):
        return s
    return s.model_copy(update={"parallelism": s.parallelism.model_copy(update={FIELD: True})})
