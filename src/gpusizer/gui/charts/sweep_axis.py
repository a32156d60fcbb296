"""The Sweeps chart's x axis: the values swept (geometric for tokens, every integer for batch
and GPUs) and ticks at powers of two (sweep.py draws the chart)."""

from __future__ import annotations

import math

import numpy as np

from ...core.model.specs import Scenario

AXIS_NAMES = {"sequence_length": "sequence length", "batch_size": "batch size", "gpus": "GPU count"}
MAX_POINTS = 1000


def axis_values(scenario: Scenario, axis: str, points: int = MAX_POINTS) -> list[int]:
    """Integer values to sweep: geometric for tokens, every integer for batch and GPUs (up to
    ``points``), always spanning four times the scenario's own value."""
    w, p = scenario.workload, scenario.parallelism
    if axis == "sequence_length":
        current = w.sequence_length if w.trains else w.prompt_tokens
        lo, hi = 128, max(scenario.model.max_context or 131072, 4 * current)
    elif axis == "batch_size":
        current = w.micro_batch_size if w.trains else w.batch_size
        lo, hi = 1, max(64 if w.trains else 256, 4 * current)
    else:
        lo, hi = 1, max(64, 4 * p.data)
    hi = min(hi, 1 << 21)
    if hi - lo + 1 <= points:
        return list(range(lo, hi + 1))
    geo = np.unique(np.round(np.geomspace(lo, hi, points)).astype(int))
    return [int(v) for v in geo]


def count_label(v: int) -> str:
    """1, 512, 1k, 128k, 1M: binary steps read as the powers of two they are."""
    if v >= 1 << 20 and v % (1 << 20) == 0:
        return f"{v >> 20}M"
    if v >= 1024 and v % 1024 == 0:
        return f"{v >> 10}k"
    return str(v)


def log2_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """Ticks at powers of two (log10 positions, for a log axis), at most ~12 of them;
    pyqtgraph's own log ticks label every minor step and collide."""
    first, last = math.ceil(math.log2(max(lo, 1))), math.floor(math.log2(hi))
    step = max(1, math.ceil((last - first + 1) / 12))
    return [(math.log10(2**k), count_label(2**k)) for k in range(first, last + 1, step)]
