"""The work a workload kind builds (its ``work`` key, core/registry/workloads.py): one
:class:`WorkBuilder` per way of working, registered where it is defined.

- ``training`` (pre-training, fine-tuning, LoRA, QLoRA): the heavier pipeline stage at its
  peak (core/memory/training.py), its optimizer states, overhead, techniques and kernels;
- ``serving`` (inference): the engine's memory rule (core/serving/rules), its serving block,
  its notes and the line the memory chart draws;
- ``roles`` (core/pipeline/work_roles.py): a kind made of roles that share the GPUs (RL
  post-training: a policy trained beside a rollout engine, verl's hybrid engine), each role's
  work built by its own kind on the scenario's model and GPUs.

The estimate (core/pipeline/estimate.py) asks the kind's builder for the memory, the
assumptions of its settings and the trainable parameters; nothing outside the kinds asks
whether a kind trains.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, ClassVar, NamedTuple, TypeVar, cast, overload

from ..memo import Memo
from ..memory.optimizer_states import state_format
from ..memory.overhead import scenario_overhead
from ..memory.phases import Phases, memory_at
from ..memory.stage_activations import kernel_assumptions
from ..memory.techniques import host_note, technique_assumptions
from ..memory.training import heavier_stage
from ..model.architecture import Arch, memo_by_identity, resolve
from ..model.params import ParamCounts, count_parameters
from ..model.presets import scenario_gpu
from ..model.result import EngineMemory, Memory, PoolLine, Serving
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..registry.frameworks import FrameworkProfile
from ..registry.table import add_keyed
from ..registry.workloads import WorkloadKind


@memo_by_identity
def model_of(spec: ModelSpec) -> tuple[Arch, ParamCounts]:
    """Architecture and counts of a model (one cache lookup per estimate)."""
    return resolve(spec), count_parameters(spec)


class Job(NamedTuple):
    """One scenario on its way through the estimate: the scenario and what it is (its kind
    of work, framework profile and GPU count, read once), its model resolved and counted, and
    the GPU it runs on, and the builder of its kind's work."""

    s: Scenario
    kind: WorkloadKind
    profile: FrameworkProfile
    gpus: int
    arch: Arch
    counts: ParamCounts
    gpu: GPUSpec
    work: WorkBuilder


@dataclass(frozen=True)
class Work:
    """The memory of the work (training: the heavier stage; serving: the engine's), the
    serving block, and what the estimate says about it (notes; assumptions of the techniques,
    kernels or engine; the optimizer states' format); serving also keeps the engine's memory
    and the pool line for the views."""

    memory: Memory
    serving: Serving | None = None
    states: str | None = None
    notes: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    engine: EngineMemory | None = None
    pool: PoolLine | None = None
    sized_by_engine: bool = False
    served: Scenario | None = None  # the scenario the engine served
    rl: dict[str, Any] | None = None  # RL post-training: the report's ``rl`` block (rl_report.py)
    layout_bytes: int | None = None  # what the layout's GPUs need, where not the peak (Estimate's)


@dataclass(frozen=True)
class TrainingPeak:
    """The heavier pipeline stage at its peak (memory/training.heavier_stage) and the
    framework's overhead on it (memory/overhead.py), in bytes per GPU."""

    phases: Phases
    phase: str
    peak: int  # tensor bytes
    overhead: int

    def memory(self) -> Memory:
        return memory_at(self.phases, self.phase, self.peak, self.overhead)


def training_peak(s: Scenario, arch: Arch, counts: ParamCounts, data: int | None = None) -> TrainingPeak:
    """The heavier stage (by tensor peak; the first on a tie) with its overhead; ``data``: the
    DP degree to take instead of the scenario's."""
    stage = heavier_stage(s, arch, counts, data)
    return TrainingPeak(stage.phases, stage.phase, stage.peak, scenario_overhead(s, stage.peak, data))


class WorkBuilder:
    """How a kind's work is built; one subclass per way of working."""

    key: ClassVar[str] = ""
    # Its memory is one training stage's peak (memory/training.py), so the layout search may
    # price another DP without a scenario (estimate.training_total) and bound layouts by the
    # stage's states and activations (core/sizing/layout_bounds.py). A kind whose peak is
    # another phase's (RL's rollout engine) is sized by estimates of its own work.
    stage_memory: ClassVar[bool] = False
    # Its estimate times the whole run itself (run_seconds): a deadline grows the count on it
    times_run: ClassVar[bool] = False
    # Its peak holds a share of the GPU (an engine's memory fraction beside other phases): the
    # catalog search sizes each GPU alone (core/sizing/search.search_catalog)
    memory_per_gpu: ClassVar[bool] = False

    def build(self, job: Job) -> Work:
        """The memory of the work, its serving block and what the estimate says about it."""
        raise NotImplementedError

    def memory(self, s: Scenario) -> Memory:
        """Per-GPU memory alone, of a validated scenario (sweeps and the sizing advisor ask
        thousands of times: no job is built)."""
        raise NotImplementedError

    def sizing_memory(self, s: Scenario) -> Memory:
        """What the sizing advisor compares with a GPU's capacity."""
        return self.memory(s)

    def starts(self, s: Scenario) -> bool:
        """Whether the work starts at all, of a validated scenario (the estimate's
        ``Estimate.runs``): a training run or an eager model always does."""
        return True

    def settings(self, job: Job, states: str | None) -> list[str]:
        """The assumptions its own settings add (the optimizer, the batch, the cache)."""
        raise NotImplementedError

    def trainable(self, job: Job, adapters: int) -> int:
        """Parameters it trains (``adapters``: the scenario's LoRA parameters)."""
        return 0

    def run_seconds(self, est: Any) -> float | None:
        """Seconds of the whole run where the kind's estimate times it itself (a deadline then
        grows the count until the estimate meets it); None: the layout search's training pace
        (``workload.training_tokens``) times it."""
        return None

    def run_seconds_of(self, s: Scenario) -> float | None:
        """:meth:`run_seconds` of ``s``'s estimate where the kind times its run without the
        whole estimate (a deadline's search asks at every count it tries); None: estimate."""
        return None

    def paced(self, s: Scenario) -> Scenario:
        """The scenario whose training step the layout search prices for a layout of ``s``
        (core/sizing/pace.TrainingClock): ``s`` itself, or a kind of phases' trained role's."""
        return s

    def timed(self, job: Job) -> Scenario:
        """The scenario whose speed the estimate reports (a kind made of roles: its first
        role's)."""
        return job.s

    def context(self, job: Job) -> tuple[int, str]:
        """(tokens of one sequence, what it is called) for the max_context note."""
        w = job.s.workload
        return w.prompt_tokens + w.generated_tokens, "request"


WORK_BUILDERS: dict[str, WorkBuilder] = {}
_B = TypeVar("_B", bound=WorkBuilder)


@overload
def register_work(builder: type[_B]) -> type[_B]: ...
@overload
def register_work(builder: _B) -> _B: ...
def register_work(builder: _B | type[_B]) -> _B | type[_B]:
    """Add a builder under its key (a DuplicateId if taken): an instance, or as a decorator
    the class, registered where it is defined."""
    return cast("_B | type[_B]", add_keyed(WORK_BUILDERS, builder, "work builder"))


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
        return [
            *out,
            f"micro-batch {w.micro_batch_size} x {w.sequence_length} tokens",
            f"recompute {p.recompute}",
            f"{p.attention} attention",
            f"ZeRO {p.zero_stage}",
        ]

    def trainable(self, job: Job, adapters: int) -> int:
        # the vision tower trains with the model
        return adapters if job.kind.is_adapter else job.counts.total + job.counts.vision

    def context(self, job: Job) -> tuple[int, str]:
        return job.s.workload.sequence_length, "sequence"


class Served(NamedTuple):
    """An inference scenario on its GPU: the engine's memory, the serving block, the engine's
    assumptions and the line the memory chart draws over its bar."""

    engine: EngineMemory
    serving: Serving
    notes: tuple[str, ...]
    pool: PoolLine


_SERVED: Memo[Served] = Memo(512)


def _rank_engine_memory(s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec) -> Any:
    """serving/engine_memory.py's, of one attention-DP rank's share of the engine (itself
    without): imported on the first serving estimate, as the serving engine's ~40 modules are
    never run by a training estimate, the window's first (start-up time)."""
    from ..serving.attention_dp import rank_view
    from ..serving.engine_memory import engine_memory as of_engine

    return of_engine(rank_view(s), arch, counts, gpu)


@register_work
class ServingWork(WorkBuilder):
    """Serving: the engine's memory rule, its serving block, notes and pool line."""

    key: ClassVar[str] = "serving"

    def _served(self, job: Job) -> Served:
        """Kept per frozen scenario and GPU, as the roofline block is."""
        from ..serving.budget import caps
        from ..serving.engine_memory import engine_pool_line, serving_notes, serving_result

        s, arch, counts, gpu = job.s, job.arch, job.counts, job.gpu

        def compute() -> Served:
            from ..serving.attention_dp import rank_view

            r = rank_view(s)  # one attention-DP rank's share of the engine (itself without)
            em, st = _rank_engine_memory(s, arch, counts, gpu)
            served = serving_result(r, gpu, em, st, s)
            return Served(em, served, serving_notes(r, arch, em, st, gpu), engine_pool_line(r, gpu, em))

        return _SERVED.get((id(s), id(gpu), caps()), compute, (s, gpu))  # a sizing call's runs apart

    def build(self, job: Job) -> Work:
        from ..serving.rules import memory_rule

        sv = self._served(job)
        by_engine = not memory_rule(job.profile).allocates_on_demand
        return Work(sv.engine.memory, sv.serving, None, (), sv.notes, sv.engine, sv.pool, by_engine, job.s)

    def memory(self, s: Scenario) -> Memory:
        arch, counts = model_of(s.model)
        return _rank_engine_memory(s, arch, counts, scenario_gpu(s))[0].memory

    def starts(self, s: Scenario) -> bool:
        """The engine's own start check (serving/engine_memory.py ``EngineMemory.starts``, the
        estimate's ``serving.starts``), from the one memo the estimate reads."""
        arch, counts = model_of(s.model)
        return bool(_rank_engine_memory(s, arch, counts, scenario_gpu(s))[0].starts)

    def sizing_memory(self, s: Scenario) -> Memory:
        """Transformers' peak, or for an engine that reserves its memory what it needs to start
        and hold the workload (the report's ``serving.required_bytes``), with the KV cache it
        needs."""
        from ..serving.rules import memory_rule

        if memory_rule(s.profile).allocates_on_demand:
            return self.memory(s)
        arch, counts = model_of(s.model)
        em, _ = _rank_engine_memory(s, arch, counts, scenario_gpu(s))
        need, m = em.required_bytes, em.memory
        rest = m.total - m.kv_cache
        return Memory(**{**m.__dict__, "kv_cache": max(0, need - rest), "total": max(need, rest)})

    def settings(self, job: Job, states: str | None) -> list[str]:
        prec, w = job.s.precision, job.s.workload
        return [
            f"KV cache {prec.kv_cache}",
            f"batch {w.batch_size} x ({w.prompt_tokens} + {w.generated_tokens}) tokens",
        ]
