"""A stated ZeRO stage the advice replaced: the note that says so.

The layout search (core/sizing/layout_space.py) weighs every ZeRO stage the framework runs as a
dimension of its own, whatever ``parallelism.zero_stage`` the file states, and keeps the layout
that holds the work on the fewest whole units, then trains fastest. A stage above the one needed
costs traffic for nothing: ZeRO stages 1 and 2 move what data parallelism moves, stage 3 1.5 times
that, since it gathers the parameters in the forward and the backward pass (Rajbhandari et al.,
"ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC 2020, section 7.2).

A buyer's DeepSpeed file stated ``zero_stage: 3`` for Phi-4 14B (tests/cli/data/buyer/
full-ft-phi-4-14b-500m-3days); its rows ran ZeRO 1 (MI325X), 0 (GH200) or 2 (H200) and no note
said the stage was not the file's. Each such row now says so; a row at the stated stage, or a
file that states none, is unchanged.
"""

from __future__ import annotations

from ..model.specs import Scenario


def replaced_stage_note(asked: Scenario, laid: Scenario) -> list[str]:
    """``["ZeRO 1, not the file's 3: ..."]`` where ``asked`` states ``parallelism.zero_stage``
    and the option's scenario ``laid`` runs another stage (else nothing)."""
    stated, used = asked.parallelism, laid.parallelism
    if not asked.workload.trains or "zero_stage" not in stated.model_fields_set:
        return []
    if used.zero_stage == stated.zero_stage:
        return []
    if used.data == 1:  # one data-parallel rank: no stage has anything to shard
        why = "on one data-parallel rank no stage shards anything"
    else:
        why = (
            "a higher stage only adds traffic on these GPUs (ZeRO 3 gathers the weights each pass: 1.5x "
            "data parallelism's volume)"
            if used.zero_stage < stated.zero_stage
            else "the file's stage does not hold the work on these GPUs, or trains slower"
        )
    return [
        f"ZeRO {used.zero_stage}, not the file's {stated.zero_stage}: of the ZeRO stages, the search "
        f"keeps the one that holds the work on the fewest GPUs, then trains fastest; {why}"
    ]
