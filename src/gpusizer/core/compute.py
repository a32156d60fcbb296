"""Compute and time (placeholder until the roofline issue lands; contract fields only).

Training: 6·N·D FLOPs (Kaplan et al. 2020, arXiv 2001.08361 §2.1). Inference: 2·N per token.
"""

from __future__ import annotations

from .params import ParamCounts
from .result import Compute
from .specs import GPUSpec, Scenario


def compute_estimate(s: Scenario, counts: ParamCounts, gpu: GPUSpec, gpus: int) -> Compute:
    n = counts.active
    w = s.workload
    peak = gpu.dense_tflops.get("bf16", 0.0) * 1e12
    if w.is_training:
        tokens = w.training_tokens or 0.0
        flops = 6.0 * n * tokens
        t = flops / (peak * gpus * s.compute.mfu) if peak else 0.0
        return Compute(flops_per_token=6.0 * n, total_flops=flops, time_seconds=t,
                       mfu=s.compute.mfu, gpu_hours=t * gpus / 3600)
    return Compute(flops_per_token=2.0 * n, mfu=s.compute.mfu)
