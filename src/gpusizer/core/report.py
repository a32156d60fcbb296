"""The ``--json`` report and ``gpusizer.estimate_report`` (contract: scenario-format.md)."""

from __future__ import annotations

from typing import Any

from .estimate import estimate
from .result import Estimate


def report_from_estimate(est: Estimate) -> dict[str, Any]:
    """The report dict of an estimate: integers in bytes, the scenario with defaults filled in."""
    mem, c, gpu = est.memory, est.compute, est.gpu
    return {
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
        },
        "assumptions": list(est.assumptions),
    }


def estimate_report(scenario: dict[str, Any]) -> dict[str, Any]:
    """Validate and estimate a scenario dict; exactly what ``gpusizer-cli estimate --json`` prints."""
    return report_from_estimate(estimate(scenario))
