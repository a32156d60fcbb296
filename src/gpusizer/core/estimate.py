"""``estimate(scenario) -> Estimate``: the one entry point every view renders."""

from __future__ import annotations

from .architecture import Arch, memo_by_identity, resolve
from .compute import compute_estimate
from .dtypes import DTYPES
from .errors import ScenarioError
from .inference import inference_memory
from .lora import lora_trainable
from .overhead import overhead_bytes
from .params import ParamCounts, count_parameters
from .presets import gpu_spec
from .result import Estimate, Memory
from .scenario import parse_scenario
from .specs import GPUSpec, ModelSpec, Scenario
from .training import stage_memory

_INFERENCE_ONLY = ("vllm", "llama.cpp")


def _gpu(s: Scenario) -> GPUSpec:
    gpu = s.hardware.gpu
    return gpu if isinstance(gpu, GPUSpec) else gpu_spec(gpu)


@memo_by_identity
def _model(spec: ModelSpec) -> tuple[Arch, ParamCounts]:
    """Architecture and counts of a model (one cache lookup per estimate)."""
    return resolve(spec), count_parameters(spec)


def _lora(s: Scenario) -> tuple[int, int, int]:
    w = s.workload
    if w.kind in ("lora", "qlora"):
        return lora_trainable(s.model, w.lora_rank, w.lora_targets)
    return (0, 0, 0)


def _training(s: Scenario, arch: Arch, counts: ParamCounts) -> tuple[Memory, int]:
    if s.framework in _INFERENCE_ONLY:
        raise ScenarioError("framework", f"{s.framework} serves models; for training choose "
                            "huggingface, megatron, deepspeed or fsdp")
    first = stage_memory(s, arch, counts, True)
    if s.parallelism.pipeline == 1:
        return first
    last = stage_memory(s, arch, counts, False)
    return first if first[1] >= last[1] else last


def _with_overhead(s: Scenario, mem: Memory, peak: int) -> Memory:
    p = s.parallelism
    # Inference replicas (DP) never talk to each other; only TP/PP ranks need NCCL buffers.
    talking = p.gpus if s.workload.is_training else p.tensor * p.pipeline
    over = overhead_bytes(s.framework, s.overhead, peak, talking)
    return Memory(**{**mem.__dict__, "overhead": over, "total": peak + over})


def _assumptions(s: Scenario, arch: Arch) -> tuple[str, ...]:
    p, prec, w = s.parallelism, s.precision, s.workload
    weights = prec.weights
    if w.kind == "qlora" and not DTYPES[weights].quantized:
        weights = "nf4"  # QLoRA's base is quantised whatever the weights field says
    out = [f"{s.framework} memory layout", f"weights {DTYPES[weights].label}",
           f"activations {prec.activations}"]
    if w.kind in ("lora", "qlora"):
        out += [f"LoRA rank {w.lora_rank} on {','.join(w.lora_targets)}",
                f"adapters {prec.adapters}, {prec.optimizer} states {prec.optimizer_states}"]
    elif w.is_training:
        out += [f"{prec.optimizer} states {prec.optimizer_states}",
                f"master weights {prec.master_weights or 'none'}"]
    if w.is_training:
        out += [f"micro-batch {w.micro_batch_size} x {w.sequence_length} tokens",
                f"recompute {p.recompute}", f"{p.attention} attention", f"ZeRO {p.zero_stage}"]
    else:
        out += [f"KV cache {prec.kv_cache}",
                f"batch {w.batch_size} x ({w.prompt_tokens} + {w.generated_tokens}) tokens"]
    out.append(f"TP {p.tensor} x PP {p.pipeline} x DP {p.data} x CP {p.context}"
               + (f", EP {p.expert}" if p.expert > 1 else ""))
    if arch.inferred:
        out.append("architecture inferred from the parameter count")
    return tuple(out)


def clear_caches() -> None:
    """Forget every memo of the estimator (benchmarks measure cold; tests of caching)."""
    from . import sharding, training

    training._ACTS.clear()
    sharding._STAGES.clear()


def memory_only(s: Scenario) -> Memory:
    """Per-GPU memory of a validated scenario, without compute or assumptions (sweeps)."""
    arch, counts = _model(s.model)
    if s.workload.is_training:
        mem, peak = _training(s, arch, counts)
    else:
        mem, peak = inference_memory(s, arch, counts)
    return _with_overhead(s, mem, peak)


def estimate(scenario: Scenario | dict) -> Estimate:
    """Estimate the per-GPU memory and compute of a scenario (dict input is validated)."""
    s = parse_scenario(scenario)
    arch, counts = _model(s.model)
    lora = _lora(s)
    if s.workload.is_training:
        mem, peak = _training(s, arch, counts)
        trainable = lora[0] if s.workload.kind in ("lora", "qlora") else counts.total
    else:
        mem, peak = inference_memory(s, arch, counts)
        trainable = 0
    mem = _with_overhead(s, mem, peak)
    gpu = _gpu(s)
    gpus = s.parallelism.gpus
    return Estimate(
        scenario=s, gpu=gpu, parameters_total=counts.total, parameters_active=counts.active,
        parameters_embedding=counts.embedding, parameters_trainable=trainable, memory=mem,
        gpus=gpus, compute=compute_estimate(s, counts, gpu, gpus, arch, lora[0]),
        assumptions=_assumptions(s, arch),
    )
