"""The fields of one GPU type's options that the layout chosen does not decide
(core/sizing/advise.py ``GpuAdvice``): the GPU's own, the unit it is bought in, the option
listed when nothing fits, and the note on weights stored in a dtype the GPU cannot compute.
Split from core/sizing/advise.py for size; the fields are as they were there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model.specs import Scenario
from ..registry.dtypes import DTYPES
from .layout_search import GpuTarget
from .option import SizingOption
from .systems import option_unit


def gpu_fields(g: GpuTarget) -> dict[str, Any]:
    """The GPU's own fields of an option: its id, name, vendor, category, node, capacity and
    the memory kept spare (bytes)."""
    cap = g.spec.capacity_bytes
    return {
        "gpu": g.id,
        "gpu_name": g.spec.name,
        "vendor": g.spec.vendor,
        "category": g.spec.category,
        "gpus_per_node": g.hardware.gpus_per_node,
        "capacity_bytes": cap,
        "margin_bytes": cap - g.capacity,
    }


def unit_fields(
    g: GpuTarget, cards_per_box: int | None, whole_nodes: bool, gpus: int | None
) -> dict[str, Any]:
    """``system``, ``system_name``, ``gpus_per_system`` and ``systems`` of the unit bought
    (core/sizing/systems.option_unit; the node when whole nodes are asked: the caller's
    ``Ask``, core/sizing/advise.py)."""
    fields = option_unit(g.id, g.spec, cards_per_box, gpus)
    if whole_nodes and gpus is not None:
        node = g.hardware.gpus_per_node
        fields |= {"gpus_per_system": max(node, int(str(fields["gpus_per_system"] or 0)))}
    return fields


def missing_option(
    g: GpuTarget, s: Scenario, notes: Sequence[str], unit: dict[str, Any], unmet: str, why: str
) -> SizingOption:
    """No option to offer: listed, ``fits`` false, with the cause (``unmet``: memory,
    context_limit or practical_limit) and its sentence, then ``notes`` (the search's own: its
    work limit reached, core/sizing/work.py); ``unit``: :func:`unit_fields` of no count."""
    goal = s.targets.applies(s.workload.trains)
    return SizingOption(
        **gpu_fields(g),
        targets_met=False if goal else None,
        notes=(why, *notes),
        unit=unit,
        unmet=unmet,
        unmet_reason=why,
    )


def compute_notes(g: GpuTarget, s: Scenario, used: str) -> list[str]:
    """Low-precision weights on a GPU without their tensor cores: stored that way,
    computed in the activation dtype (core/roofline.matmul_dtype), and timed so. BF16
    activations on a GPU without BF16 (Turing, Volta: no ``bf16`` rate in the catalog) run at
    its FP16 rate (core/roofline.peak_tflops), as vLLM's ``--dtype auto`` picks float16 there
    (vllm/config/model.py ``_resolve_auto_dtype``: the platform's supported dtypes)."""
    notes = []
    wanted = DTYPES[s.precision.weights].compute_dtype
    if wanted in ("fp8", "int8", "fp4") and wanted not in g.spec.dense_tflops and used != wanted:
        notes.append(f"no {wanted.upper()} tensor cores: {s.precision.weights} weights compute in {used}")
    if s.precision.activations == "bf16" and "bf16" not in g.spec.dense_tflops and used == "fp16":
        notes.append(f"no BF16 tensor cores on {g.spec.name}: 16-bit matmuls timed in fp16")
    return notes
