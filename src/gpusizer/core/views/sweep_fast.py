"""Exact fast sweeps of training memory over sequence length or micro-batch.

Each phase total of a training step (phases.Phases) is a polynomial of degree <= 2 in the
sequence length (attention scores grow with s², everything else with s) and of degree 1 in the
micro-batch, with the layout fixed. Three exact estimates therefore determine every point:
Lagrange interpolation through them reproduces the estimator at any value (tests check it
against direct estimates), so a 1,000-point curve costs three estimates plus numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..memory.inference import inference_components
from ..memory.overhead import allocator_fraction, scenario_overhead
from ..memory.phases import Phases
from ..memory.techniques import polynomial_between
from ..memory.training import stage_phases
from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.result import COMPONENTS
from ..model.specs import Scenario

PHASES = ("forward", "backward", "backward_end", "optimizer_step", "recompute", "load")


def _lagrange(xs: Sequence[float], ys: Sequence[float], x: np.ndarray) -> np.ndarray:
    x0, x1, x2 = xs
    y0, y1, y2 = ys
    return (
        y0 * (x - x1) * (x - x2) / ((x0 - x1) * (x0 - x2))
        + y1 * (x - x0) * (x - x2) / ((x1 - x0) * (x1 - x2))
        + y2 * (x - x0) * (x - x1) / ((x2 - x0) * (x2 - x1))
    )


def _stage_curves(
    samples: list[Phases], xs: list[float], x: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(tensor peak, activations, temporary at the peak, peak-phase index) at every x."""
    phases = [k for k in PHASES if k in samples[0].totals]
    totals = np.vstack([_lagrange(xs, [p.totals[k] for p in samples], x) for k in phases])
    temps = np.vstack([_lagrange(xs, [p.temporaries[k] for p in samples], x) for k in phases])
    acts = _lagrange(xs, [p.activations for p in samples], x)
    idx = np.argmax(totals, axis=0)
    cols = np.arange(x.size)
    return totals[idx, cols], acts, temps[idx, cols], idx


def training_sweep(
    s: Scenario, vary, values: Sequence[int]
) -> tuple[dict[str, np.ndarray], np.ndarray] | None:
    """Components and totals (bytes) at each value, or None when the fast path does not apply
    (fewer than three distinct values, context parallelism, inference, a term that is not one
    polynomial over the range: core/techniques.polynomial_between)."""
    distinct = sorted(set(int(v) for v in values))
    if s.workload.serves or s.parallelism.context > 1 or len(distinct) < 3:
        return None
    xs = [float(distinct[0]), float(distinct[len(distinct) // 2]), float(distinct[-1])]
    variants = [vary(s, int(v)) for v in xs]
    seqs = [v.workload.sequence_length for v in variants]
    if not polynomial_between(s, min(seqs), max(seqs)):  # a term switches on in the range
        return None
    arch, counts = resolve(s.model), count_parameters(s.model)
    x = np.asarray(values, dtype=float)
    stages = [True] + ([False] if s.parallelism.pipeline > 1 else [])
    best = None
    for first in stages:
        samples = [stage_phases(v, arch, counts, first) for v in variants]
        peak, acts, temp, _ = _stage_curves(samples, xs, x)
        if best is None:
            best = (samples[0], peak, acts, temp)
        else:
            take = peak > best[1]
            best = (
                best[0],
                np.where(take, peak, best[1]),
                np.where(take, acts, best[2]),
                np.where(take, temp, best[3]),
            )
    assert best is not None
    ref, peak, acts, temp = best
    fraction = allocator_fraction(s.profile, s.overhead)
    over = scenario_overhead(s, 0) + np.floor(fraction * np.floor(peak))
    comps = {c: np.zeros(x.size) for c in COMPONENTS}
    comps["weights"][:] = int(ref.weights)
    comps["gradients"][:] = int(ref.gradients)
    comps["optimizer"][:] = int(ref.optimizer)
    comps["activations"] = np.floor(acts)
    comps["temporary"] = np.floor(temp)
    comps["overhead"] = over
    return comps, np.floor(peak) + over


def inference_sweep(
    s: Scenario, axis: str, values: Sequence[int]
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Inference components and totals at each prompt length or batch size (vectorised)."""
    x = np.asarray(values, dtype=float)
    w = s.workload
    batch = x if axis == "batch_size" else float(w.batch_size)
    prompt = x if axis == "sequence_length" else float(w.prompt_tokens)
    weights, kv, acts, logits = inference_components(
        s, resolve(s.model), count_parameters(s.model), batch, prompt
    )
    comps = {c: np.zeros(x.size) for c in COMPONENTS}
    comps["weights"][:] = int(weights)
    comps["kv_cache"] = np.floor(kv + 0 * x)
    comps["activations"] = np.floor(acts + 0 * x)
    comps["temporary"] = np.floor(logits + 0 * x)
    peak = comps["weights"] + comps["kv_cache"] + comps["activations"] + comps["temporary"]
    fraction = allocator_fraction(s.profile, s.overhead)
    comps["overhead"] = scenario_overhead(s, 0) + np.floor(fraction * peak)
    return comps, peak + comps["overhead"]
