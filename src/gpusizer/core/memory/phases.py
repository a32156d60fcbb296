"""The phases of one training step on one GPU and what is alive at its peak.

A step's memory rises and falls: the forward pass ends with the logits live, backward starts
with the loss gradient live, backward ends with every gradient and no activations, and the
optimizer step adds its scratch (core/memory/training.py builds the phases; Rajbhandari et al. 2020
§3 and the PyTorch memory-snapshot guide name the same moments). The peak is the largest
phase total; the report shows the components alive then.
"""

from __future__ import annotations

from typing import NamedTuple

from ..model.result import COMPONENTS, Memory
from .pipeline_flight import first_stage_flight, last_stage_flight


class Phases(NamedTuple):
    """Bytes alive in each phase of one training step on one GPU (tensors only).

    Every entry is a polynomial of degree <= 2 in the sequence length and <= 1 in the batch,
    which lets sweeps evaluate thousands of points exactly (sweep.py). A named tuple, as
    :class:`core.training.Layout`: built for every estimate of the advisor's searches."""

    weights: float
    gradients: float
    optimizer: float
    activations: float
    totals: dict[str, float]  # phase -> bytes alive
    temporaries: dict[str, float]  # phase -> short-lived bytes alive (part of the total)
    grads_kept: bool = False  # gradients outlive a micro-batch (accumulation, Megatron buffer)
    host: float = 0.0  # host RAM: offloaded or paged states, offloaded weights and activations


PHASE_LABEL = {
    "forward": "forward",
    "backward": "backward",
    "backward_end": "backward",
    "optimizer_step": "optimizer_step",
    "recompute": "backward",
    "load": "load",
}


def _alive(phase: str, gradients_kept: bool) -> tuple[str, ...]:
    gone = {
        "forward": set() if gradients_kept else {"gradients"},
        "backward": set() if gradients_kept else {"gradients"},
        "recompute": set() if gradients_kept else {"gradients"},
        "backward_end": {"activations"},
        "optimizer_step": {"activations"},
        "load": {"gradients", "optimizer", "activations"},
    }[phase]
    return tuple(c for c in COMPONENTS if c not in gone)


def peak_of(ph: Phases) -> tuple[str, int]:
    """The peak phase and the tensor bytes alive then (whole bytes; rounding never lifts it
    above the parts)."""
    phase = max(ph.totals, key=lambda k: ph.totals[k])
    parts = [int(x) for x in (ph.weights, ph.gradients, ph.optimizer, ph.activations, ph.temporaries[phase])]
    return phase, min(int(ph.totals[phase]), sum(parts))


def memory_at(ph: Phases, phase: str, total: int, overhead: int = 0) -> Memory:
    """What is alive at the peak ``phase`` (tensor peak ``total``), with ``overhead`` added."""
    return Memory(
        weights=int(ph.weights),
        gradients=int(ph.gradients),
        optimizer=int(ph.optimizer),
        activations=int(ph.activations),
        temporary=int(ph.temporaries[phase]),
        overhead=overhead,
        total=total + overhead,
        peak_phase=PHASE_LABEL[phase],
        alive_at_peak=_alive(phase, ph.grads_kept),
        host_memory=int(ph.host),
    )


class InFlight(NamedTuple):
    """Micro-batches of its layers the first pipeline stage holds at once, micro-batches per
    step, and what the last stage holds (core/memory/pipeline_flight.py)."""

    held: float
    per_step: int
    last: float = 1.0


def in_flight(
    pipeline: int, data: int, virtual_stages: int, micro_batch: int, global_batch: int | None
) -> InFlight:
    """Micro-batches the first and the last stage hold and micro-batches per step. In flight
    under 1F1B: min(PP, micro-batches) on the first, one on the last; interleaved, the chunks
    Megatron-Core's warm-up runs before each stage's first backward (core/memory/
    pipeline_flight.py; for the first stage with more micro-batches than stages, 1 + (p-1)/(p·v)
    times min(PP, micro-batches), Korthikanti et al. 2022 §4.2.3). Never grows with ``data``
    (the layout search's bounds rely on it)."""
    micro = max(1, (global_batch or micro_batch * data * pipeline) // (micro_batch * data))
    first = first_stage_flight(pipeline, virtual_stages, micro)
    return InFlight(first, micro, last_stage_flight(pipeline, virtual_stages, micro))
