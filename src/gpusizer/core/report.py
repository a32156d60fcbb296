"""The ``--json`` report and ``gpusizer.estimate_report`` (contract: scenario-format.md)."""

from __future__ import annotations

from typing import Any, cast

from .architecture import resolve
from .compute import roofline_block
from .estimate import estimate
from .inference import cache_block
from .result import Estimate
from .roofline import roofline_model
from .specs import Scenario

_BLOCKS: dict[tuple[int, int, int, int], tuple[object, dict[str, Any]]] = {}


def _roofline(est: Estimate) -> dict[str, Any]:
    """Roofline points of the scenario's inference phases (core/roofline.py): prefill of
    batch x prompt and one decode step, per operation and whole step, with the GPU's roofs.

    Kept per roofline model (itself cached per model, layout, dtypes and GPU) and sizes; the
    caller gets a copy (points hold only numbers and strings, so one level deep is enough)."""
    s = est.scenario
    w = s.workload
    model = roofline_model(s, est.gpu)
    key = (id(model), w.batch_size, w.prompt_tokens, w.generated_tokens)
    hit = _BLOCKS.get(key)
    if hit is None or hit[0] is not model:
        if len(_BLOCKS) >= 256:
            _BLOCKS.clear()
        hit = _BLOCKS[key] = (model, roofline_block(model, w.batch_size, w.prompt_tokens,
                                                    w.generated_tokens))
    block = hit[1]
    points = cast(list[dict[str, Any]], block["points"])
    return {**block, "points": [dict(p) for p in points]}


def scenario_dict(s: Scenario) -> dict[str, Any]:
    """The scenario with every default filled in (pydantic-core's dump is faster than copying a
    cached one)."""
    return s.model_dump(mode="json")


def report_from_estimate(est: Estimate, roofline: bool | None = None) -> dict[str, Any]:
    """The report dict of an estimate: integers in bytes, the scenario with defaults filled in.

    The top-level ``roofline`` block comes with inference scenarios (what they are about);
    ``roofline=True`` adds it to training reports too, ``False`` leaves it out
    (``gpusizer.core.compute.roofline_points(scenario)`` gives the same block)."""
    mem, c, gpu = est.memory, est.compute, est.gpu
    report = {
        "scenario": scenario_dict(est.scenario),
        "parameters": {
            "total": est.parameters_total,
            "active": est.parameters_active,
            "embedding": est.parameters_embedding,
            "trainable": est.parameters_trainable,
            "vision": est.parameters_vision,
        },
        "per_gpu": mem.as_dict(),
        "peak_phase": mem.peak_phase,
        "alive_at_peak": list(mem.alive_at_peak),
        "cluster": {"gpus": est.gpus, "total_bytes": mem.total * est.gpus},
        "gpu": {"id": gpu.id, "name": gpu.name, "memory_bytes": gpu.capacity_bytes},
        "fits": est.fits,
        "headroom_bytes": est.headroom_bytes,
        "compute": {
            "flops_per_token": c.flops_per_token,
            "total_flops": c.total_flops,
            "time_seconds": c.time_seconds,
            "mfu": c.mfu,
            "prefill_seconds": c.prefill_seconds,
            "decode_seconds_per_token": c.decode_seconds_per_token,
            "tokens_per_second": c.tokens_per_second,
            "gpu_hours": c.gpu_hours,
            "cost": c.cost,
            "model_flops": c.model_flops,
            "model_flops_utilization": c.model_flops_utilization,
            "attention_flops_per_token": c.attention_flops_per_token,
            "peak_flops_per_s": c.peak_flops_per_s,
            "tokens_per_second_per_gpu": c.tokens_per_second_per_gpu,
            "decode_tokens_per_second": c.decode_tokens_per_second,
        },
        "assumptions": list(est.assumptions),
    }
    if not est.scenario.workload.is_training:
        report["cache"] = cache_block(est.scenario, resolve(est.scenario.model))
    if roofline or (roofline is None and not est.scenario.workload.is_training):
        report["roofline"] = _roofline(est)
    return report


def estimate_report(scenario: dict[str, Any], roofline: bool | None = None) -> dict[str, Any]:
    """Validate and estimate a scenario dict; exactly what ``gpusizer-cli estimate --json`` prints
    (inference reports carry the ``roofline`` block; ``roofline=True`` adds it to training)."""
    return report_from_estimate(estimate(scenario), roofline)
