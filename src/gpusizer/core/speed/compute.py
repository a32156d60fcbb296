"""Compute and time: training FLOPs and duration, inference latency and throughput.

Training: FLOPs per token from core/model/flops.py (6·N plus attention, recompute and LoRA included;
Kaplan et al. 2020 arXiv 2001.08361 §2.1, Narayanan et al. 2021 arXiv 2104.04473 §5.1,
Korthikanti et al. 2022 arXiv 2205.05198 §5), times ``workload.training_tokens``. Time =
executed FLOPs / (GPUs × dense peak of the activation dtype × ``compute.mfu``). The setting is
applied to the FLOPs the GPUs execute (recompute included): in Korthikanti et al.'s end-to-end
results (530B on 2,240 A100) dropping full recompute raised MFU from 42.1% to 54.2% while
hardware FLOPs utilisation stayed near 56-57%, so recompute costs time here.
``model_flops_utilization`` reports the resulting MFU in PaLM's sense (model FLOPs only;
Chowdhery et al. 2022 arXiv 2204.02311 Appendix B).

Inference: time to first token, time per output token and throughput from the roofline
(core/speed/roofline.py); ~2·N FLOPs per generated token plus attention over the cache.

:func:`roofline_block` gives the report's ``roofline`` block (pipeline/report.py's
``roofline_points`` builds it for any scenario, the chart's).
"""

from __future__ import annotations

from ..memory.lora import scenario_lora
from ..model.architecture import Arch, resolve
from ..model.flops import (
    attention_flops_per_token,
    decode_attention_flops,
    matmul_params,
    training_flops_per_token,
)
from ..model.params import ParamCounts
from ..model.result import Compute
from ..model.specs import GPUSpec, Scenario
from .goodput import effective_time_share
from .roofline import RooflineModel, peak_tflops, roofline_model, step_ops
from .train_step import step_block, step_for

# Inference reports echo this as ``compute.mfu`` (the scenario's value before the
# training step was modelled; nothing uses it when serving).
INFERENCE_MFU = 0.4


def _cost(gpu: GPUSpec, gpu_hours: float) -> float | None:
    return gpu_hours * gpu.price_per_hour if gpu.price_per_hour is not None else None


def _training(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, gpus: int, adapters: int | None = None
) -> Compute:
    w = s.workload
    if adapters is None:
        adapters = scenario_lora(s).total
    f = training_flops_per_token(s, arch, counts, adapters)
    dtype, tflops = peak_tflops(gpu, s.precision.activations)
    peak = tflops * 1e12
    step = step_for(s, gpu, adapters if w.is_adapter else None)
    if s.compute.mfu is not None:  # the user's MFU replaces the step model, as before
        rate = peak * s.compute.mfu / f.executed if f.executed else 0.0
    else:
        rate = step.tokens_per_second_per_gpu
    tokens = w.training_tokens or 0.0
    total = f.executed * tokens
    seconds = tokens / (rate * gpus) if rate and tokens else 0.0
    hours = seconds * gpus / 3600
    return Compute(
        flops_per_token=f.executed,
        total_flops=total,
        time_seconds=seconds,
        mfu=f.executed * rate / peak if peak else 0.0,
        tokens_per_second=rate * gpus,
        gpu_hours=hours,
        cost=_cost(gpu, hours) if tokens else None,
        model_flops=f.model * tokens,
        attention_flops_per_token=3 * f.attention_forward,
        model_flops_utilization=f.model * rate / peak if peak else 0.0,
        compute_dtype=dtype,
        peak_flops_per_s=peak,
        tokens_per_second_per_gpu=rate,
        training_step=step_block(step, s.compute.mfu is None),
        effective_time_share=effective_time_share(s, gpus),
    )


def serving(
    model: RooflineModel, batch: int, prompt: int, generated: int, replicas: int = 1, gpus: int = 1
) -> dict[str, float]:
    """Latency and throughput of ``batch`` requests served together (static batch): time to
    first token, time per output token at the mean context prompt + generated/2, and output
    tokens per second over the whole request (prefill included), total and per GPU;
    ``decode_tokens_per_second`` counts decode steps only."""
    prefill = model.prefill_seconds(batch, prompt)
    decode = model.decode_seconds(batch, prompt + generated / 2) if generated else 0.0
    total = prefill + generated * decode
    tps = batch * generated * replicas / total if generated and total else 0.0
    return {
        "batch_size": batch,
        "prefill_seconds": prefill,
        "decode_seconds_per_token": decode,
        "request_seconds": total,
        "tokens_per_second": tps,
        "tokens_per_second_per_gpu": tps / max(1, gpus),
        "decode_tokens_per_second": batch * replicas / decode if decode else 0.0,
    }


def _inference(s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, gpus: int) -> Compute:
    w, p = s.workload, s.parallelism
    model = roofline_model(s, gpu)
    sv = serving(model, w.batch_size, w.prompt_tokens, w.generated_tokens, p.data, gpus)
    prompt, generated = w.prompt_tokens, w.generated_tokens
    m2 = 2.0 * matmul_params(counts)
    per_token = m2 + decode_attention_flops(arch, prompt + generated / 2)
    prefill_flops = prompt * (m2 + attention_flops_per_token(arch, prompt, p.attention == "flash"))
    seconds = sv["request_seconds"]
    hours = seconds * gpus / 3600
    return Compute(
        flops_per_token=per_token,
        mfu=INFERENCE_MFU if s.compute.mfu is None else s.compute.mfu,
        time_seconds=seconds,
        total_flops=w.batch_size * p.data * (prefill_flops + generated * per_token),
        prefill_seconds=sv["prefill_seconds"],
        decode_seconds_per_token=sv["decode_seconds_per_token"],
        tokens_per_second=sv["tokens_per_second"],
        gpu_hours=hours,
        cost=_cost(gpu, hours),
        compute_dtype=model.dtype,
        peak_flops_per_s=model.peaks["mm"],
        tokens_per_second_per_gpu=sv["tokens_per_second_per_gpu"],
        decode_tokens_per_second=sv["decode_tokens_per_second"],
    )


def compute_estimate(
    s: Scenario,
    counts: ParamCounts,
    gpu: GPUSpec,
    gpus: int,
    arch: Arch | None = None,
    adapters: int | None = None,
) -> Compute:
    """The report's ``compute`` block for a validated scenario (``arch``: resolve(s.model);
    ``adapters``: LoRA trainable parameters when the caller has them)."""
    arch = arch or resolve(s.model)
    if s.workload.trains:
        return _training(s, arch, counts, gpu, gpus, adapters)
    return _inference(s, arch, counts, gpu, gpus)


def _phase_points(
    model: RooflineModel, phase: str, batch: int, new: float, ctx: float
) -> list[dict[str, object]]:
    """One point per operation and one for the whole step (all-reduces in its seconds)."""
    bw = model.bandwidth * model.bandwidth_efficiency
    points: list[dict[str, object]] = []
    total_f = total_b = seconds = 0.0
    for op in step_ops(model.shape, batch, new, ctx, phase == "decode"):
        name, flops, moved, kind = op
        t_c, t_m = model.op_seconds(op)
        intensity = flops / moved if moved else 0.0
        points.append(
            {
                "name": name,
                "phase": phase,
                "flops": flops,
                "bytes": moved,
                "intensity": intensity,
                "attainable_flops_per_s": min(model.peaks[kind] * model.flops_efficiency, intensity * bw),
                "bound": "compute" if t_c >= t_m else "memory",
                "seconds": max(t_c, t_m),
            }
        )
        total_f, total_b, seconds = total_f + flops, total_b + moved, seconds + max(t_c, t_m)
    comm = model.allreduce_seconds(batch * new)
    intensity = total_f / total_b if total_b else 0.0
    roof = model.peaks["mm"] * model.flops_efficiency
    points.append(
        {
            "name": "step",
            "phase": phase,
            "flops": total_f,
            "bytes": total_b,
            "intensity": intensity,
            "attainable_flops_per_s": min(roof, intensity * bw),
            "bound": "compute" if intensity * bw >= roof else "memory",
            "seconds": seconds + comm,
            "allreduce_seconds": comm,
        }
    )
    return points


def roofline_block(model: RooflineModel, batch: int, prompt: int, generated: int) -> dict[str, object]:
    """The report's ``roofline`` block: the GPU's roofs for the dtype used and the points of
    every operation and whole step, prefill (batch × prompt) and one decode step."""
    peak, bw = model.peaks["mm"], model.bandwidth
    context = prompt + generated / 2
    return {
        "dtype": model.dtype,
        "peak_flops_per_s": peak,
        "bandwidth_bytes_per_s": bw,
        "ridge_intensity": peak / bw,
        "flops_efficiency": model.flops_efficiency,
        "bandwidth_efficiency": model.bandwidth_efficiency,
        "interconnect_efficiency": model.interconnect_efficiency,
        "effective_ridge_intensity": peak * model.flops_efficiency / (bw * model.bandwidth_efficiency),
        "batch_size": batch,
        "prompt_tokens": prompt,
        "decode_context": context,
        "points": [
            *_phase_points(model, "prefill", batch, prompt, prompt),
            *_phase_points(model, "decode", batch, 1, context),
        ],
    }
