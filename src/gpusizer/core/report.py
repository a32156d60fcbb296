"""The ``--json`` report and ``gpusizer.estimate_report`` (contract: scenario-format.md)."""

from __future__ import annotations

from typing import Any

from .compute import roofline_block
from .estimate import estimate
from .result import Estimate
from .roofline import roofline_model


def _roofline(est: Estimate) -> dict[str, Any]:
    """Roofline points of the scenario's inference phases (core/roofline.py): prefill of
    batch x prompt and one decode step, per operation and whole step, with the GPU's roofs."""
    s = est.scenario
    w = s.workload
    return roofline_block(roofline_model(s, est.gpu), w.batch_size, w.prompt_tokens,
                          w.generated_tokens)


def report_from_estimate(est: Estimate, roofline: bool = False) -> dict[str, Any]:
    """The report dict of an estimate: integers in bytes, the scenario with defaults filled in.

    ``roofline=True`` adds the top-level ``roofline`` block (about 20 µs more, so only on
    request; ``gpusizer.core.compute.roofline_points(scenario)`` gives the same block)."""
    mem, c, gpu = est.memory, est.compute, est.gpu
    report = {
        "scenario": est.scenario.model_dump(mode="json"),
        "parameters": {
            "total": est.parameters_total,
            "active": est.parameters_active,
            "embedding": est.parameters_embedding,
            "trainable": est.parameters_trainable,
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
    if roofline:
        report["roofline"] = _roofline(est)
    return report


def estimate_report(scenario: dict[str, Any], roofline: bool = False) -> dict[str, Any]:
    """Validate and estimate a scenario dict; exactly what ``gpusizer-cli estimate --json`` prints
    (``roofline=True``: plus the ``roofline`` block)."""
    return report_from_estimate(estimate(scenario), roofline)
