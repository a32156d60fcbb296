"""The work a workload kind builds (its ``work`` key, core/registry/workloads.py): one
:class:`WorkBuilder` per way of working, registered where it is defined.

- ``training`` (pre-training, fine-tuning, LoRA, QLoRA): the heavier pipeline stage at its
  peak (core/memory/training.py), its optimizer states, overhead, techniques and kernels;
- ``serving`` (inference, core/pipeline/work_serving.py): the engine's memory rule
  (core/serving/rules), its serving block, its notes and the line the memory chart draws;
- ``roles`` (core/pipeline/work_roles.py): a kind made of roles that share the GPUs (RL
  post-training: a policy trained beside a rollout engine, verl's hybrid engine), each role's
  work built by its own kind on the scenario's model and GPUs.

The job, the work and the builders' base class and registry: core/pipeline/work_base.py (its
names are imported from here too). The training and serving builders register when this module
is imported, before any estimate; the roles and RL ones on their kind's first estimate.

The estimate (core/pipeline/estimate.py) asks the kind's builder for the memory, the
assumptions of its settings and the trainable parameters; nothing outside the kinds asks
whether a kind trains.
"""

from __future__ import annotations

from importlib import import_module
from typing import ClassVar

from ..memory.amp_outputs import reference_copy_note
from ..memory.optimizer_states import state_format
from ..memory.overhead import scenario_overhead
from ..memory.phases import memory_at
from ..memory.preference import rows_view
from ..memory.stage_activations import kernel_assumptions
from ..memory.techniques import host_note, technique_assumptions
from ..memory.training import heavier_stage
from ..model.preference_spec import preference_note
from ..model.result import Memory
from ..model.specs import Scenario
from ..registry.workloads import WorkloadKind

# registers the serving builder here, once and before any estimate: on the first serving
# estimate instead, its import would run inside that estimate (tests/core/test_walk.py)
from . import work_serving  # noqa: F401
from .work_base import (
    WORK_BUILDERS,
    Job,
    TrainingPeak,
    Work,
    WorkBuilder,
    model_of,
    register_work,
    training_peak,
)

# the frame's names where the estimate, the other builders and the tests import them
__all__ = [
    "RL_KEY",
    "WORK_BUILDERS",
    "Job",
    "TrainingPeak",
    "TrainingWork",
    "Work",
    "WorkBuilder",
    "builder_of",
    "model_of",
    "register_work",
    "training_peak",
]


# Builders registered in their own modules, imported on the first estimate of their kind: the
# RL work pulls in the serving engine, the step model and the RL roles (~60 modules), which a
# training estimate, the window's first, never runs (start-up time).
RL_KEY = "rl"  # RL post-training's builder (work_rl.py)
_DEFINED_IN = {RL_KEY: "work_rl", "roles": "work_roles"}


def builder_of(kind: WorkloadKind) -> WorkBuilder:
    """The builder of a kind's work."""
    if kind.work_key not in WORK_BUILDERS and kind.work_key in _DEFINED_IN:
        import_module(f"{__package__}.{_DEFINED_IN[kind.work_key]}")  # registers it
    return WORK_BUILDERS[kind.work_key]


@register_work
class TrainingWork(WorkBuilder):
    """Training: the heavier stage, its optimizer states, overhead, techniques and kernels."""

    key: ClassVar[str] = "training"
    stage_memory: ClassVar[bool] = True

    def build(self, job: Job) -> Work:
        s, arch = job.s, job.arch
        stage = heavier_stage(s, arch, job.counts)
        states = state_format(s)
        memory = memory_at(stage.phases, stage.phase, stage.peak, scenario_overhead(s, stage.peak))
        note = host_note(s, memory)
        notes = (note,) if note else ()
        extra = technique_assumptions(s, memory) + kernel_assumptions(s, arch) + notes
        return Work(memory, None, states, notes, extra)

    def memory(self, s: Scenario) -> Memory:
        """Only the heavier stage's memory is built (the advisor asks thousands of times)."""
        arch, counts = model_of(s.model)
        return training_peak(s, arch, counts).memory()

    def settings(self, job: Job, states: str | None) -> list[str]:
        p, prec, w = job.s.parallelism, job.s.precision, job.s.workload
        if job.kind.is_adapter:
            out = [
                f"LoRA rank {w.lora_rank} on {','.join(w.lora_targets)}",
                f"adapters {prec.adapters}, {prec.optimizer} states {states}",
            ]
        else:
            master = prec.master_weights or "none"
            if prec.master_weights_remainders and master == "fp32" and prec.weights == "bf16":
                master += " (16-bit remainders)"  # the memory model's condition (training.py)
            out = [f"{prec.optimizer} states {states}", f"master weights {master}"]
        note = preference_note(w)
        copy = reference_copy_note(job.s) if note else None
        note = f"{note}; {copy}" if copy else note
        return [
            *out,
            f"micro-batch {w.micro_batch_size} x {w.sequence_length} tokens",
            *((note,) if note else ()),
            f"recompute {p.recompute}",
            f"{p.attention} attention",
            f"ZeRO {p.zero_stage}",
        ]

    def trainable(self, job: Job, adapters: int) -> int:
        # the vision tower trains with the model
        return adapters if job.kind.is_adapter else job.counts.total + job.counts.vision

    def context(self, job: Job) -> tuple[int, str]:
        return job.s.workload.sequence_length, "sequence"

    def timed(self, job: Job) -> Scenario:
        """A preference fine-tune's step runs its rows (core/memory/preference.py)."""
        return rows_view(job.s)

    def paced(self, s: Scenario) -> Scenario:
        return rows_view(s)
