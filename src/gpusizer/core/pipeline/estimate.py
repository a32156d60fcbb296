"""``estimate(scenario) -> Estimate``: the one entry point every view renders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..memo import Memo, clear_all
from ..memory.lora import scenario_lora
from ..memory.optimizer_states import state_format
from ..memory.overhead import scenario_overhead
from ..memory.phases import Phases, memory_at
from ..memory.stage_activations import kernel_assumptions
from ..memory.techniques import host_note, technique_assumptions
from ..memory.training import base_weight_dtype, heavier_stage
from ..model.architecture import Arch, memo_by_identity, resolve
from ..model.module_bytes import rule_assumption
from ..model.params import ParamCounts, count_parameters
from ..model.presets import scenario_gpu
from ..model.result import Estimate, Memory, Serving
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..model.unified import memory_share_note
from ..registry.dtypes import DTYPES
from ..registry.frameworks import FrameworkProfile
from ..registry.workloads import WorkloadKind
from ..serving.budget import caps
from ..serving.engine_memory import engine_memory, serving_notes, serving_result
from ..serving.rules import memory_rule
from ..speed.compute import compute_estimate
from .scenario import parse_scenario


@memo_by_identity
def _model(spec: ModelSpec) -> tuple[Arch, ParamCounts]:
    """Architecture and counts of a model (one cache lookup per estimate)."""
    return resolve(spec), count_parameters(spec)


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


def _training(s: Scenario, arch: Arch, counts: ParamCounts) -> Memory:
    """Only the heavier stage's memory is built (the advisor asks thousands of times)."""
    return training_peak(s, arch, counts).memory()


class TrainingTotal(NamedTuple):
    """Bytes per GPU: the total (:func:`sizing_memory`'s) and the activations in it."""

    total: int
    activations: int


def training_total(s: Scenario, data: int) -> TrainingTotal:
    """The total and activation bytes of a valid training scenario with DP ``data`` instead
    of its own, without building the scenario or its memory (the layout search's DP
    searches)."""
    arch, counts = _model(s.model)
    t = training_peak(s, arch, counts, data)
    return TrainingTotal(t.peak + t.overhead, int(t.phases.activations))


@dataclass(frozen=True)
class Job:
    """One scenario on its way through :func:`estimate`: the scenario and what it is (its kind
    of work, framework profile and GPU count, read once), its model resolved and counted, and
    the GPU it runs on."""

    s: Scenario
    kind: WorkloadKind
    profile: FrameworkProfile
    gpus: int
    arch: Arch
    counts: ParamCounts
    gpu: GPUSpec


@dataclass(frozen=True)
class Notes:
    """What the weights' storage, the optimizer and the GPU add to the assumptions (each asked
    once, on the walk through the estimate)."""

    base: str  # the stored dtype of the base weights
    rule: str | None  # the weights' quantisation rule, where it is not plain uniform storage
    states: str | None  # the optimizer states' format (training)
    share: str | None  # the share of a unified-memory GPU's RAM it may use


def _assumptions(job: Job, n: Notes) -> tuple[str, ...]:
    s, kind = job.s, job.kind
    p, prec, w = s.parallelism, s.precision, s.workload
    out = [
        f"{job.profile.label} memory layout",
        f"weights {DTYPES[n.base].label}",
        f"activations {prec.activations}",
    ]
    if n.rule is not None:
        out.append(n.rule)
    if kind.is_adapter:
        out += [
            f"LoRA rank {w.lora_rank} on {','.join(w.lora_targets)}",
            f"adapters {prec.adapters}, {prec.optimizer} states {n.states}",
        ]
    elif kind.is_training:
        out += [
            f"{prec.optimizer} states {n.states}",
            f"master weights {prec.master_weights or 'none'}",
        ]
    if kind.is_training:
        out += [
            f"micro-batch {w.micro_batch_size} x {w.sequence_length} tokens",
            f"recompute {p.recompute}",
            f"{p.attention} attention",
            f"ZeRO {p.zero_stage}",
        ]
    else:
        out += [
            f"KV cache {prec.kv_cache}",
            f"batch {w.batch_size} x ({w.prompt_tokens} + {w.generated_tokens}) tokens",
        ]
    out.append(
        f"TP {p.tensor} x PP {p.pipeline} x DP {p.data} x CP {p.context}"
        + (f", EP {p.expert}" if p.expert > 1 else "")
    )
    if job.arch.inferred:
        out.append("architecture inferred from the parameter count")
    return tuple(out) + _model_assumptions(job) + ((n.share,) if n.share else ())


def _model_assumptions(job: Job) -> tuple[str, ...]:
    """What hybrid layers and vision towers change (core/state.py, core/mixers.py)."""
    arch, out = job.arch, []
    if arch.mixer_layers:
        kind = "Gated DeltaNet" if job.s.model.linear_attention else "Mamba-2"
        out.append(
            f"{arch.mixer_layers} of {arch.layers} layers {kind}: a fixed-size recurrent "
            f"state per sequence (in the KV cache), not a growing KV cache; "
            f"{arch.attention_layers} attention layers hold the KV cache"
        )
    w, limit, training = job.s.workload, job.s.model.max_context, job.kind.is_training
    tokens = w.sequence_length if training else w.prompt_tokens + w.generated_tokens
    if limit and tokens > limit:
        what = "sequence" if training else "request"
        out.append(
            f"the {what} of {tokens:,} tokens is longer than the model's max_context "
            f"({limit:,}): it was not trained for it"
        )
    vision = job.counts.vision
    if vision:
        out.append(f"vision tower {vision / 1e9:.2f}B parameters stored with the weights (text-only FLOPs)")
    return tuple(out)


def clear_caches() -> None:
    """Forget every memo of the estimator (benchmarks measure cold; tests of caching)."""
    clear_all()


def _memory(s: Scenario, arch: Arch, counts: ParamCounts) -> Memory:
    if s.workload.is_training:
        return _training(s, arch, counts)
    return engine_memory(s, arch, counts, scenario_gpu(s))[0].memory


def memory_only(s: Scenario) -> Memory:
    """Per-GPU memory of a validated scenario, without compute or assumptions (sweeps)."""
    arch, counts = _model(s.model)
    return _memory(s, arch, counts)


def sizing_memory(s: Scenario) -> Memory:
    """What the sizing advisor compares with a GPU's capacity: the peak (training,
    transformers) or, for an engine that reserves its memory, what it needs to start and hold
    the workload (the report's ``serving.required_bytes``), with the KV cache it needs."""
    if s.workload.is_training or memory_rule(s.profile).allocates_on_demand:
        return memory_only(s)
    arch, counts = _model(s.model)
    em, _ = engine_memory(s, arch, counts, scenario_gpu(s))
    need, m = em.required_bytes, em.memory
    rest = m.total - m.kv_cache
    return Memory(**{**m.__dict__, "kv_cache": max(0, need - rest), "total": max(need, rest)})


_SERVED: Memo[tuple[Memory, Serving, tuple[str, ...]]] = Memo(512)


def _served(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec
) -> tuple[Memory, Serving, tuple[str, ...]]:
    """Memory, serving block and engine assumptions of an inference scenario on its GPU (kept
    per frozen scenario and GPU, as the roofline block is)."""

    def compute() -> tuple[Memory, Serving, tuple[str, ...]]:
        em, st = engine_memory(s, arch, counts, gpu)
        served = serving_result(s, gpu, em, st)
        return em.memory, served, serving_notes(s, arch, em, st, gpu)

    return _SERVED.get((id(s), id(gpu), caps()), compute, (s, gpu))  # a sizing call's runs apart


def _job(s: Scenario) -> Job:
    """The scenario read once, its model resolved and counted, its GPU looked up."""
    kind, profile, gpus = s.workload.info, s.profile, s.parallelism.gpus
    arch, counts = _model(s.model)
    return Job(s, kind, profile, gpus, arch, counts, scenario_gpu(s))


@dataclass(frozen=True)
class Work:
    """The memory of the work (training: the heavier stage; serving: the engine's), the
    serving block, and what the estimate says about it (notes; assumptions of the techniques,
    kernels or engine; the optimizer states' format)."""

    memory: Memory
    serving: Serving | None = None
    states: str | None = None
    notes: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()


def _trained(job: Job) -> Work:
    """Training: the heavier stage, its optimizer states, overhead, techniques and kernels."""
    s, arch = job.s, job.arch
    stage = heavier_stage(s, arch, job.counts)
    states = state_format(s)
    memory = memory_at(stage.phases, stage.phase, stage.peak, scenario_overhead(s, stage.peak))
    note = host_note(s, memory)
    notes = (note,) if note else ()
    extra = technique_assumptions(s, memory) + kernel_assumptions(s, arch) + notes
    return Work(memory, None, states, notes, extra)


def _serving(job: Job) -> Work:
    memory, served, extra = _served(job.s, job.arch, job.counts, job.gpu)
    return Work(memory, served, extra=extra)


def estimate(scenario: Scenario | dict) -> Estimate:
    """Estimate the per-GPU memory and compute of a scenario (dict input is validated).

    One pass (tests/core/test_walk.py): the scenario, its model and GPU; the adapters; the
    base weights' storage and the memory of the work (training: the heavier stage and what
    adds to it; serving: the engine); the weights' quantisation rule; the speed; the answer."""
    s = parse_scenario(scenario)
    job = _job(s)
    kind, counts, gpu = job.kind, job.counts, job.gpu
    share = memory_share_note(gpu, s.hardware.gpu_memory_fraction)
    trainable_lora = scenario_lora(s).total
    base = base_weight_dtype(s)
    work = _trained(job) if kind.is_training else _serving(job)
    notes = Notes(base, rule_assumption(s, job.arch, base), work.states, share)
    full = counts.total + counts.vision  # the vision tower trains with the model
    trainable = (trainable_lora if kind.is_adapter else full) if kind.is_training else 0
    return Estimate(
        scenario=s,
        gpu=gpu,
        parameters_total=counts.total,
        parameters_active=counts.active,
        parameters_embedding=counts.embedding,
        parameters_trainable=trainable,
        memory=work.memory,
        gpus=job.gpus,
        compute=compute_estimate(s, counts, gpu, job.gpus, job.arch, trainable_lora),
        assumptions=_assumptions(job, notes) + work.extra,
        serving=work.serving,
        parameters_vision=counts.vision,
        notes=work.notes,
        sized_by_engine=work.serving is not None and not memory_rule(job.profile).allocates_on_demand,
    )
