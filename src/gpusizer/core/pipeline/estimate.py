"""``estimate(scenario) -> Estimate``: the one entry point every view renders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..memo import clear_all
from ..memory.kv_cap import cap_note
from ..memory.lora import scenario_lora
from ..memory.training import base_weight_dtype
from ..model.module_bytes import rule_assumption
from ..model.presets import scenario_gpu
from ..model.redundant import physical_experts, redundant
from ..model.result import Estimate, Memory
from ..model.specs import Scenario
from ..model.unified import memory_share_note
from ..registry.dtypes import DTYPES, iquant_note
from ..serving.context_limit import derived_context
from ..speed.compute import compute_estimate
from .quant_capability import check_quant_capability
from .runs_on import check_runs_on
from .scenario import parse_scenario
from .work import Job, builder_of, model_of, training_peak


class TrainingTotal(NamedTuple):
    """Bytes per GPU: the total (:func:`sizing_memory`'s) and the activations in it."""

    total: int
    activations: int


def training_total(s: Scenario, data: int) -> TrainingTotal:
    """The total and activation bytes of a valid training scenario with DP ``data`` instead
    of its own, without building the scenario or its memory (the layout search's DP
    searches)."""
    arch, counts = model_of(s.model)
    t = training_peak(s, arch, counts, data)
    return TrainingTotal(t.peak + t.overhead, int(t.phases.activations))


@dataclass(frozen=True)
class Notes:
    """What the weights' storage, the optimizer and the GPU add to the assumptions (each asked
    once, on the walk through the estimate)."""

    base: str  # the stored dtype of the base weights
    rule: str | None  # the weights' quantisation rule, where it is not plain uniform storage
    states: str | None  # the optimizer states' format (training)
    share: str | None  # the share of a unified-memory GPU's RAM it may use


def _assumptions(job: Job, n: Notes, settings: list[str]) -> tuple[str, ...]:
    """The estimate's assumptions: the layout and weights, the work's own ``settings``
    (its kind's builder says them), the layout of GPUs, the model's."""
    p, prec = job.s.parallelism, job.s.precision
    out = [
        f"{job.profile.label} memory layout",
        f"weights {DTYPES[n.base].label}",
        f"activations {prec.activations}",
    ]
    if n.rule is not None:
        out.append(n.rule)
    iquant = iquant_note(prec.weights, prec.modules, job.gpu.vendor)  # priced on NVIDIA only
    out += [iquant] if iquant else []
    out += settings
    out.append(
        f"TP {p.tensor} x PP {p.pipeline} x DP {p.data} x CP {p.context}"
        + (f", EP {p.expert}" if p.expert > 1 else "")
        + (f", expert TP {p.expert_tensor}" if p.expert_tensor is not None else "")
        + (f", attention DP {p.attention_data}" if p.attention_data > 1 else "")
        + _replicas(job.s)
    )
    if job.arch.inferred:
        out.append("architecture inferred from the parameter count")
    cap = cap_note(job.s, job.arch)  # serving.max_kv_size (core/memory/kv_cap.py)
    if cap is not None:
        out.append(cap)
    return tuple(out) + _model_assumptions(job) + ((n.share,) if n.share else ())


def _model_assumptions(job: Job) -> tuple[str, ...]:
    """What hybrid layers and vision towers change (core/model/state.py, core/model/mixers.py)."""
    arch, out = job.arch, []
    if arch.mixer_layers:
        kind = "Gated DeltaNet" if job.s.model.linear_attention else "Mamba-2"
        out.append(
            f"{arch.mixer_layers} of {arch.layers} layers {kind}: a fixed-size recurrent "
            f"state per sequence (in the KV cache), not a growing KV cache; "
            f"{arch.attention_layers} attention layers hold the KV cache"
        )
    tokens, what = job.work.context(job)
    past = _past_context(job.s, tokens, what)
    if past:
        out.append(past)
    vision = job.counts.vision
    if vision:
        out.append(f"vision tower {vision / 1e9:.2f}B parameters stored with the weights (text-only FLOPs)")
    return tuple(out)


def _past_context(s: Scenario, tokens: int, what: str) -> str | None:
    """The note on a request past the model's ``max_context`` (tokens). A stated RoPE scaling
    (``model.rope_scaling_factor``) stretches the length the model reads: Qwen3's model card
    ("Processing Long Texts": YaRN ``factor`` 4.0 over ``original_max_position_embeddings``
    32,768 serves 131,072 tokens) and vLLM's derived length (core/serving/context_limit.py).
    Within that length the note names the scaling, not an untrained length."""
    limit = s.model.max_context
    if not limit or tokens <= limit:
        return None
    factor, scaled = s.model.rope_scaling_factor, derived_context(s.model) or limit
    if factor is None or tokens > scaled:
        return (
            f"the {what} of {tokens:,} tokens is longer than the model's max_context "
            f"({limit:,}): it was not trained for it"
        )
    return (
        f"the {what} of {tokens:,} tokens is past the model's max_context ({limit:,}), within the "
        f"{scaled:,} its RoPE scaling (model.rope_scaling_factor {factor:g}) stretches it to"
    )


def _replicas(s: Scenario) -> str:
    """The layout's note where the EP ranks hold redundant expert replicas (core/model/redundant.py)."""
    r = redundant(s)
    return f", {physical_experts(s)} physical experts ({r} redundant) over the EP ranks" if r else ""


def clear_caches() -> None:
    """Forget every memo of the estimator (benchmarks measure cold; tests of caching)."""
    clear_all()


def memory_only(s: Scenario) -> Memory:
    """Per-GPU memory of a validated scenario, without compute or assumptions (sweeps)."""
    return builder_of(s.workload.info).memory(s)


def starts(s: Scenario) -> bool:
    """Whether the work of a validated scenario starts: a serving engine's start check
    (``Estimate.runs``), without the rest of the estimate (sweeps)."""
    return builder_of(s.workload.info).starts(s)


def sizing_memory(s: Scenario) -> Memory:
    """What the sizing advisor compares with a GPU's capacity: the peak (training,
    transformers) or, for an engine that reserves its memory, what it needs to start and hold
    the workload (the report's ``serving.required_bytes``), with the KV cache it needs."""
    return builder_of(s.workload.info).sizing_memory(s)


def refused_unchecked(s: Scenario) -> bool:
    """Whether :func:`sizing_memory` would refuse ``s`` (a layout not yet checked) whether
    its checks pass or not (``WorkBuilder.refused_unchecked``): the layout search skips both."""
    return builder_of(s.workload.info).refused_unchecked(s)


def _job(s: Scenario) -> Job:
    """The scenario read once, its model resolved and counted, its GPU looked up."""
    kind, profile, gpus = s.workload.info, s.profile, s.parallelism.gpus
    arch, counts = model_of(s.model)
    return Job(s, kind, profile, gpus, arch, counts, scenario_gpu(s), builder_of(kind))


def estimate(scenario: Scenario | dict) -> Estimate:
    """Estimate the per-GPU memory and compute of a scenario (dict input is validated).

    One pass (tests/core/test_walk.py): the scenario, its model and GPU; the adapters; the
    base weights' storage and the memory of the work (training: the heavier stage and what
    adds to it; serving: the engine: the work its kind builds, core/pipeline/work.py); the
    weights' quantisation rule; the speed; the answer. A framework on a GPU it does not run on
    is refused (core/pipeline/runs_on.py)."""
    s = parse_scenario(scenario)
    check_runs_on(s)
    check_quant_capability(s)  # a weight format the engine does not load on this GPU
    job = _job(s)
    counts, gpu, builder = job.counts, job.gpu, job.work
    share = memory_share_note(gpu, s.hardware.gpu_memory_fraction)
    timed = builder.timed(job)  # the scenario whose speed is reported
    trainable_lora = scenario_lora(timed).total
    base = base_weight_dtype(s)
    work = builder.build(job)  # the kind builds its work
    notes = Notes(base, rule_assumption(s, job.arch, base), work.states, share)
    return Estimate(
        scenario=s,
        gpu=gpu,
        parameters_total=counts.total,
        parameters_active=counts.active,
        parameters_embedding=counts.embedding,
        parameters_trainable=builder.trainable(job, trainable_lora),
        memory=work.memory,
        gpus=job.gpus,
        compute=compute_estimate(timed, counts, gpu, job.gpus, job.arch, trainable_lora),
        assumptions=_assumptions(job, notes, builder.settings(job, work.states)) + work.extra,
        serving=work.serving,
        parameters_vision=counts.vision,
        notes=work.notes,
        sized_by_engine=work.sized_by_engine,
        engine=work.engine,
        pool=work.pool,
        served_scenario=work.served,
        rl=work.rl,
        layout_bytes=work.layout_bytes,
    )
