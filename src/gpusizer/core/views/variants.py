"""Variants: training vs inference for one model, the same weights, very different memory.

For the scenario's model, each variant (every workload kind at the weight dtypes its registry
entry names, core/registry/workloads.py: pre-training, full fine-tune, LoRA, QLoRA, inference at FP16,
FP8 and INT4) is estimated as if the whole job sat on one GPU of unlimited size: the
parallelism is reset to a single GPU, precisions are the recipe's defaults, and the workload
sizes (sequence length, micro-batch, LoRA rank, prompt and generated tokens) are the user's.
The bar of a variant is its peak in bytes; the GPUs it needs is ``ceil(peak / capacity)``, a
capacity equivalent (the seed articles' "81 H100s"), not a training plan.

A serving engine that reserves its memory up front (vLLM, SGLang, TensorRT-LLM: its pool
fills the GPU whatever the weights) would draw FP16, FP8 and INT4 at the same height. Their
bars hold what each needs instead (``VariantBar.needs``): the pool's weights, profile peak and
overheads, and the KV cache of the scenario's load as the engine's memory rule counts it (the
users' KV within the pool, block-rounded: ``pool_line``, core/serving/rules); the pool as
reserved is kept beside it (``reserved``).

The seed story for Llama 3.1 405B (shared/seeds/000, shared/docs/reference-figures.md): model
states at 16 B/param ≈ 6.49 TB; checkpoint weights 810 / 405 / 203 GB at FP16 / FP8 / INT4;
an 8x H100 node has 640 GB.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ScenarioError
from ..model.result import COMPONENTS, Estimate
from ..model.specs import ParallelismSpec, PrecisionSpec, Scenario
from ..pipeline.estimate import estimate
from ..pipeline.scenario import parse_scenario
from ..registry.dtypes import nbytes
from ..registry.frameworks import FRAMEWORKS, frameworks_for
from ..registry.workloads import WORKLOAD_KINDS


def variant_list() -> list[tuple[str, str, str, str]]:
    """(key, label, workload kind, weight dtype) of every variant, left to right: each kind of
    the registry at each of its ``variant_weights``."""
    out = []
    for kind in WORKLOAD_KINDS.values():
        many = len(kind.variant_weights) > 1
        for w in kind.variant_weights:
            out.append(
                (
                    f"{kind.id}_{w}" if many else kind.id,
                    f"{kind.short_label} {w.upper()}" if many else kind.short_label,
                    kind.id,
                    w,
                )
            )
    return out


@dataclass(frozen=True)
class VariantBar:
    """One variant, whole job on one GPU. Byte figures are integers in bytes."""

    key: str
    label: str
    kind: str
    weights_dtype: str
    parts: dict[str, int]  # every component, as the estimate reports it
    at_peak: dict[str, int]  # the components alive at the peak (what the bar stacks)
    total: int  # the peak (bytes)
    model_states: int  # weights + gradients + optimizer (bytes)
    nominal_weights: int  # parameters x bytes per value of the weight dtype (checkpoint arithmetic)
    gpus_needed: int  # ceil(total / capacity of one chosen GPU)
    peak_phase: str
    reserved: int = 0  # bytes an engine reserves up front (its pool fills the GPU); 0: none
    engine: str = ""  # the framework's label when ``reserved``
    host: int = 0  # bytes the job keeps in host RAM beside the GPU (layers llama.cpp leaves on
    # the CPU, optimizer states or weights offloaded): drawn above the GPU's part, not counted
    # in ``total`` or ``gpus_needed``
    starts: bool = True  # the serving engine starts on one GPU (``Estimate.runs``): a pool
    # too small for one request of ``serving.max_context`` stops it though ``total`` fits


@dataclass(frozen=True)
class Variants:
    """All variants of one model against the chosen GPU."""

    model_name: str
    parameters: int
    gpu_name: str
    capacity_bytes: int  # usable bytes of one GPU
    memory_as_sold_gb: float  # the datasheet figure of one GPU (80 for an H100)
    gpus_per_node: int
    bars: tuple[VariantBar, ...]
    unified: bool = False  # the GPU shares the machine's RAM (Apple, DGX Spark, Strix Halo)

    @property
    def node_capacity_bytes(self) -> int:
        """Usable bytes of one node (gpus_per_node x capacity)."""
        return self.capacity_bytes * self.gpus_per_node


def variant_scenario(base: Scenario, kind: str, weights: str) -> Scenario:
    """The base scenario as one variant: one GPU, default precisions with ``weights``."""
    framework = base.framework
    info = WORKLOAD_KINDS[kind]
    if not base.profile.fits(info):  # vLLM / llama.cpp only serve: train the default way
        framework = frameworks_for(info)[0].id
    p = base.parallelism  # the training techniques stay (loss, offload, step in backward)
    par = ParallelismSpec(
        recompute=p.recompute,
        attention=p.attention,
        optimizer_in_backward=p.optimizer_in_backward,
        activation_offload=p.activation_offload,
    )
    # Reset global_batch_size: with one GPU it would mean gradient accumulation the user
    # chose for a cluster, not for this single-GPU comparison.
    work = base.workload.model_copy(update={"kind": kind, "global_batch_size": None})
    if info.from_scratch:  # a preference step is a fine-tune's (registry/workloads.py)
        work = work.model_copy(update={"preference": None})
    # the recipe's precisions: the defaults, or the profile's (torchtune: bf16, no master)
    defaults = {f: v for b, f, v in FRAMEWORKS[framework].scenario_defaults if b == "precision"}
    return base.model_copy(
        update={
            "workload": work,
            "parallelism": par,
            "framework": framework,
            "precision": PrecisionSpec.model_validate({**defaults, "weights": weights}),
        }
    )


def _bar(key: str, label: str, est: Estimate) -> VariantBar:
    mem = est.memory
    parts = {c: int(getattr(mem, c)) for c in COMPONENTS}
    at_peak = {c: parts[c] for c in COMPONENTS if c in mem.alive_at_peak}
    s = est.scenario
    nominal = est.parameters_total * nbytes(s.precision.weights)
    reserved, total = 0, int(mem.total)
    line = est.pool
    if line is not None and line.reserved:  # the needs, not the pool
        reserved = total
        at_peak = {**at_peak, "kv_cache": int(line.used_kv_bytes)}
        total = sum(at_peak.values())
    return VariantBar(
        key=key,
        label=label,
        kind=s.workload.kind,
        weights_dtype=s.precision.weights,
        parts=parts,
        at_peak=at_peak,
        total=total,
        model_states=parts["weights"] + parts["gradients"] + parts["optimizer"],
        nominal_weights=round(nominal),
        gpus_needed=max(1, math.ceil(total / est.capacity_bytes)),
        peak_phase=mem.peak_phase,
        reserved=reserved,
        engine=s.profile.label if reserved else "",
        host=_host_bytes(est),
        starts=est.runs,
    )


def _host_bytes(est: Estimate) -> int:
    """Host RAM the job uses beside the GPU (bytes): the serving engine's own figure where it
    keeps layers or KV on the CPU (llama.cpp's ``gpu_layers``), else the training offloads."""
    serving = est.serving.host_memory_bytes if est.serving is not None else 0
    return int(max(serving, est.memory.host_memory, 0))


def variants(scenario: Scenario | dict) -> Variants:
    """Estimate every variant of the scenario's model (see the module docstring)."""
    base = parse_scenario(scenario)
    bars, ests = [], []
    for key, label, kind, weights in variant_list():
        try:
            est = estimate(variant_scenario(base, kind, weights))
        except ScenarioError:
            continue  # a variant the model cannot run (kept out rather than failing the chart)
        bars.append(_bar(key, label, est))
        ests.append(est)
    if not ests:
        raise ScenarioError("model", "no training or inference variant can be estimated")
    one = ests[0]
    return Variants(
        model_name=base.model.name,
        parameters=one.parameters_total,
        gpu_name=one.gpu.name,
        capacity_bytes=one.capacity_bytes,
        memory_as_sold_gb=one.gpu.memory_gb_as_sold,
        gpus_per_node=base.hardware.gpus_per_node,
        bars=tuple(bars),
        unified=one.gpu.unified_memory,
    )
