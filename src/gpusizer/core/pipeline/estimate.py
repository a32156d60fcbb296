"""``estimate(scenario) -> Estimate``: the one entry point every view renders."""

from __future__ import annotations

from ..memo import Memo, clear_all
from ..memory.lora import scenario_lora
from ..memory.optimizer_states import state_format
from ..memory.overhead import scenario_overhead
from ..memory.phases import Phases, memory_at, peak_of
from ..memory.stage_activations import kernel_assumptions
from ..memory.techniques import host_note, technique_assumptions
from ..memory.training import base_weight_dtype, stage_phases
from ..model.architecture import Arch, memo_by_identity, resolve
from ..model.module_bytes import rule_id, rule_note
from ..model.params import ParamCounts, count_parameters
from ..model.presets import scenario_gpu
from ..model.result import Estimate, Memory, Serving
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..model.unified import memory_share_note
from ..registry.dtypes import DTYPES
from ..serving.engine_memory import engine_memory, serving_notes, serving_result
from ..serving.rules import memory_rule
from ..speed.compute import compute_estimate
from .scenario import parse_scenario


@memo_by_identity
def _model(spec: ModelSpec) -> tuple[Arch, ParamCounts]:
    """Architecture and counts of a model (one cache lookup per estimate)."""
    return resolve(spec), count_parameters(spec)


def training_peak(
    s: Scenario, arch: Arch, counts: ParamCounts, data: int | None = None
) -> tuple[Phases, str, int, int]:
    """The heavier stage (by tensor peak; the first on a tie): its phases, peak phase, tensor
    peak and the overhead on it; ``data``: the DP degree to take instead of the scenario's."""
    ph = stage_phases(s, arch, counts, True, data)
    phase, peak = peak_of(ph)
    if s.parallelism.pipeline > 1:
        last = stage_phases(s, arch, counts, False, data)
        last_phase, last_peak = peak_of(last)
        if last_peak > peak:
            ph, phase, peak = last, last_phase, last_peak
    return ph, phase, peak, scenario_overhead(s, peak, data)


def _training(s: Scenario, arch: Arch, counts: ParamCounts) -> Memory:
    """Only the heavier stage's memory is built (the advisor asks thousands of times)."""
    return memory_at(*training_peak(s, arch, counts))


def training_total(s: Scenario, data: int) -> tuple[int, int]:
    """(total, activations) bytes of :func:`sizing_memory` for a valid training scenario
    with DP ``data`` instead of its own, without building the scenario or its memory (the
    layout search's DP searches)."""
    arch, counts = _model(s.model)
    ph, _, peak, over = training_peak(s, arch, counts, data)
    return peak + over, int(ph.activations)


def _assumptions(s: Scenario, arch: Arch) -> tuple[str, ...]:
    p, prec, w = s.parallelism, s.precision, s.workload
    base = base_weight_dtype(s)
    out = [
        f"{s.profile.label} memory layout",
        f"weights {DTYPES[base].label}",
        f"activations {prec.activations}",
    ]
    if rule_id(s, base) != "uniform" or prec.modules:
        out.append(rule_note(s, arch, base))
    if w.is_adapter:
        out += [
            f"LoRA rank {w.lora_rank} on {','.join(w.lora_targets)}",
            f"adapters {prec.adapters}, {prec.optimizer} states {state_format(s)}",
        ]
    elif w.is_training:
        out += [
            f"{prec.optimizer} states {state_format(s)}",
            f"master weights {prec.master_weights or 'none'}",
        ]
    if w.is_training:
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
    if arch.inferred:
        out.append("architecture inferred from the parameter count")
    return tuple(out) + _model_assumptions(s, arch)


def _model_assumptions(s: Scenario, arch: Arch) -> tuple[str, ...]:
    """What hybrid layers and vision towers change (core/state.py, core/mixers.py)."""
    out = []
    if arch.mixer_layers:
        kind = "Gated DeltaNet" if s.model.linear_attention else "Mamba-2"
        out.append(
            f"{arch.mixer_layers} of {arch.layers} layers {kind}: a fixed-size recurrent "
            f"state per sequence (in the KV cache), not a growing KV cache; "
            f"{arch.attention_layers} attention layers hold the KV cache"
        )
    w, limit = s.workload, s.model.max_context
    tokens = w.sequence_length if w.is_training else w.prompt_tokens + w.generated_tokens
    if limit and tokens > limit:
        what = "sequence" if w.is_training else "request"
        out.append(
            f"the {what} of {tokens:,} tokens is longer than the model's max_context "
            f"({limit:,}): it was not trained for it"
        )
    vision = _model(s.model)[1].vision  # the counts this estimate already has
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

    return _SERVED.get((id(s), id(gpu)), compute, (s, gpu))


def estimate(scenario: Scenario | dict) -> Estimate:
    """Estimate the per-GPU memory and compute of a scenario (dict input is validated)."""
    s = parse_scenario(scenario)
    arch, counts = _model(s.model)
    lora = scenario_lora(s)
    w = s.workload
    full = counts.total + counts.vision  # the vision tower trains with the model
    trainable = (lora[0] if w.is_adapter else full) if w.is_training else 0
    gpu = scenario_gpu(s)
    gpus = s.parallelism.gpus
    notes: tuple[str, ...] = ()
    served = None
    if w.is_training:
        memory = _memory(s, arch, counts)
        note = host_note(s, memory)
        notes = (note,) if note else ()
        extra = technique_assumptions(s, memory) + kernel_assumptions(s, arch) + notes
    else:
        memory, served, extra = _served(s, arch, counts, gpu)
    return Estimate(
        scenario=s,
        gpu=gpu,
        parameters_total=counts.total,
        parameters_active=counts.active,
        parameters_embedding=counts.embedding,
        parameters_trainable=trainable,
        memory=memory,
        gpus=gpus,
        compute=compute_estimate(s, counts, gpu, gpus, arch, lora[0]),
        assumptions=_assumptions(s, arch) + _memory_share(s, gpu) + extra,
        serving=served,
        parameters_vision=counts.vision,
        notes=notes,
        sized_by_engine=served is not None and not memory_rule(s.profile).allocates_on_demand,
    )


def _memory_share(s: Scenario, gpu: GPUSpec) -> tuple[str, ...]:
    note = memory_share_note(gpu, s.hardware.gpu_memory_fraction)
    return (note,) if note else ()
