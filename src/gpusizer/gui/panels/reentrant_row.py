"""Why the Parallelism panel's "Reentrant checkpoint (FSDP1 LoRA)" box does not apply: the
layer-input gradients it prices (core/memory/fsdp1_reentrant.py ``held_input_grads``) are kept
only under FSDP1 at ZeRO-3 (``parallelism.fsdp_version`` 1), with full recompute and units
whose weights are all frozen (an adapter workload). Elsewhere the field is accepted and changes
nothing, so the box is greyed with the first condition that fails, in the tooltip's "Not
available:" words (gui/why_disabled.py)."""

from __future__ import annotations

from typing import Any

from ...core.registry.workloads import WorkloadKind

PATH = "parallelism.reentrant_checkpoint"


def reentrant_reason(kind: WorkloadKind | None, value: Any) -> str:
    """The reason the box changes nothing ("" where it applies); ``value`` reads a dotted path
    of the scenario as the form holds it."""
    if kind is None or not kind.is_adapter:
        return "the workload trains its base weights: FSDP1 takes its post-backward hook instead"
    if int(value("parallelism.zero_stage") or 0) < 3:
        return "ZeRO stage is below 3: no FSDP1 unit reruns under the checkpoint"
    if value("parallelism.fsdp_version") == 2:
        return "FSDP2 (parallelism.fsdp_version 2) registers no reshard hook on the layer inputs"
    if value("parallelism.recompute") != "full":
        return "recompute is not full: no layer reruns under the checkpoint"
    return ""
