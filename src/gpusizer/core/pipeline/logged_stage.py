"""The per-GPU training total of one named pipeline stage: what a figure logged by one rank
measures, where the estimate's own total is the heavier stage's.

Megatron-LM logs its memory figures ("mem-allocated-bytes", "mem-max-allocated-bytes", the
functional tests' goldens) through the tensorboard writer, which only the last rank holds:
``megatron/training/global_vars.py:241`` ``_set_tensorboard_writer`` creates it where
``args.rank == (args.world_size - 1)``, and ``megatron/training/training.py:3445``
``training_log`` writes ``torch.cuda.memory_stats()["allocated_bytes.all.peak"]`` (bytes)
through it (NVIDIA/Megatron-LM d98e8a64, 2026-08-22). The last rank is on the last pipeline
stage (``megatron/core/parallel_state.py:617``: ranks are laid out in the order
``tp-cp-ep-dp-pp``, PP slowest), which under 1F1B holds one micro-batch's activations of its
layers beside the output layer and the loss (core/memory/pipeline_flight.py
``last_stage_flight``), while the first stage holds up to ``pipeline`` of them. Where the first
stage is the heavier, a figure from the last rank is the last stage's peak, not the estimate's
``per_gpu.total``. (Megatron's "[Rank N] ... memory (MB)" lines differ: every data-parallel
rank 0 prints one, ``megatron/training/utils/common_utils.py:313`` ``report_memory``, so they
hold every stage's, the heavier's among them.)
"""

from __future__ import annotations

from ..memory.overhead import scenario_overhead
from ..memory.phases import peak_of
from ..memory.training import stage_phases
from ..model.specs import Scenario
from .work_base import model_of, training_peak

__all__ = ["STAGES", "stage_total"]

STAGES = ("heavier", "first", "last")


def stage_total(s: Scenario, stage: str = "heavier") -> int:
    """Bytes per GPU of a training scenario's ``stage`` at its peak, with the framework's
    overhead on it (memory/overhead.py): ``heavier`` is the estimate's own total; ``first`` and
    ``last`` the first and last pipeline stage's (the same stage when ``pipeline`` is 1)."""
    if stage not in STAGES:
        raise ValueError(f"stage must be one of {STAGES}, not {stage!r}")
    arch, counts = model_of(s.model)
    if stage == "heavier" or s.parallelism.pipeline == 1:
        t = training_peak(s, arch, counts)
        return t.peak + t.overhead
    _, peak = peak_of(stage_phases(s, arch, counts, stage == "first"))
    return peak + scenario_overhead(s, peak)
