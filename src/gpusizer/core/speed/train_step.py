"""Training step time from the layout: one micro-batch on the slowest pipeline stage (its
layers from core/speed/train_layer.py, the LM head and loss on the last stage), the pipeline
schedule around it, data-parallel collectives overlapped as the framework overlaps them and
the optimizer step (core/speed/train_optimizer.py over core/speed/train_dp.py).

Per step: (m + (p - 1)/v) micro-batch times on the slowest stage for m micro-batches, p stages
and v virtual stages (1F1B; interleaved 1F1B divides the bubble by v: Narayanan et al. 2021
arXiv 2104.04473 §2.2). The stage part does not depend on data parallelism, so it is kept per
model, workload, precision, GPU and model-parallel layout: the sizing search prices a
data-parallel variant without recomputing it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import ceil, floor
from typing import NamedTuple

from ..memo import Memo
from ..memory.device_map import sequential_stages
from ..memory.training import base_weight_dtype
from ..memory.zeropp import gather_bytes, hpz_size, reduce_bytes
from ..model.expert_tensor import expert_data_ranks, expert_data_stride, expert_shards
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..registry.frameworks import FRAMEWORKS
from .param_offload import OffloadedLayers, offload_seconds
from .train_dp import DataParallel, data_parallel_seconds
from .train_layer import (
    StepParts,
    backward_share,
    frozen_layer,
    head_parts,
    layer_communication,
    layer_compute,
    layer_context,
    network,
)
from .train_optimizer import grad_bytes, optimizer_step, stepped
from .train_rates import group_link, replicated_compute_speedup
from .zero2_reduce import early_reduce_seconds, exposed_host_copies


@dataclass(frozen=True)
class TrainingStep:
    """One optimizer step of the layout: its seconds, tokens (all GPUs) and parts."""

    seconds: float
    tokens: float
    gpus: int
    microbatches: int
    parts: StepParts

    @property
    def tokens_per_second_per_gpu(self) -> float:
        return self.tokens / (self.seconds * self.gpus) if self.seconds else 0.0


class _Stage(NamedTuple):
    """One micro-batch on the slowest pipeline stage (what does not depend on data
    parallelism: the sizing search varies that around it), its layers and one layer's
    forward and backward seconds."""

    parts: StepParts
    layers: int
    forward: float
    backward: float
    bandwidth: float
    parameters: int
    expert_parameters: int  # routed experts' (all layers, before EP sharding)


class _Layer(NamedTuple):
    """One layer's parts of a micro-batch with its collectives, the LM head's, and what the
    stage passes on: all but the pipeline split (kept per layout without PP: the sizing search
    weighs up to 15 PP degrees of each)."""

    per_layer: StepParts
    head: StepParts
    layers: int
    forward: float
    backward: float
    bandwidth: float
    parameters: int
    expert_parameters: int


_LAYERS: Memo[_Layer] = Memo(4096)
_STAGES: Memo[_Stage] = Memo(4096)


def _build_layer(s: Scenario, gpu: GPUSpec) -> _Layer:
    c, head_rate = layer_context(s, gpu)
    layer = layer_compute(c)
    moe_share = c.ts.moe_layers / c.ts.layers
    per_layer = layer.parts.plus(layer_communication(c, layer, moe_share))
    # workload.lora_layers: the layers below the first adapter run forward only (one stage:
    # validation refuses PP), so the average layer is the mix of both
    k = backward_share(s, c.ts.layers)
    if k < 1.0:
        per_layer = per_layer.scaled(k).plus(frozen_layer(c, layer, moe_share).scaled(1.0 - k))
    head = head_parts(s, c, head_rate)
    # a preference fine-tune's no-grad forwards (its reference's, KTO's KL batch) on a share of
    # the rows: each layer's forward and the head's (core/memory/preference.py)
    more = s.workload.extra_forward_share
    if more:
        per_layer = per_layer.plus(frozen_layer(c, layer, moe_share).scaled(more))
        head = head.plus(StepParts(matmul=2 * c.ts.head / c.tp * c.tokens / head_rate * more))
    return _Layer(
        per_layer,
        head,
        c.ts.layers,
        layer.forward,
        layer.backward * k,
        c.bandwidth,
        c.ts.parameters,
        c.ts.expert_parameters,
    )


def _split(ly: _Layer, pp: int) -> tuple[StepParts, int]:
    """The slowest of the first stage (⌈layers/PP⌉ layers) and the last (⌊layers/PP⌋ and the
    LM head), and its layers."""
    hi, lo = ceil(ly.layers / pp), floor(ly.layers / pp)
    first, last = ly.per_layer.scaled(hi), ly.per_layer.scaled(lo).plus(ly.head)
    return (first, hi) if sum(first) >= sum(last) else (last, lo)


def _key(s: Scenario, gpu: GPUSpec) -> tuple[object, ...]:
    """What a stage depends on: the blocks and layout fields it reads (PP sixth)."""
    p, hw = s.parallelism, s.hardware
    return (
        id(s.model),
        id(s.workload),
        id(s.precision),
        id(gpu),
        s.framework,
        p.pipeline,
        p.tensor,
        p.context,
        p.expert,
        p.expert_tensor,
        p.sequence_parallel,
        p.recompute,
        p.attention,
        p.async_tensor_parallel,
        p.expert_routing,
        p.expert_dispatcher,
        p.expert_overlap,
        p.replicated_mixers,
        p.recompute_modules,
        hw.gpus_per_node,
        hw.network_gb_per_s,
    )


def _layer(s: Scenario, gpu: GPUSpec, key: tuple[object, ...]) -> _Layer:
    """:func:`_build_layer`, kept by all of ``key`` but PP."""
    return _LAYERS.get(
        key[:5] + key[6:], lambda: _build_layer(s, gpu), (s.model, s.workload, s.precision, gpu)
    )


def _build_stage(s: Scenario, gpu: GPUSpec, key: tuple[object, ...]) -> _Stage:
    ly = _layer(s, gpu, key)
    parts, layers = _split(ly, s.parallelism.pipeline)
    return _Stage(parts, layers, ly.forward, ly.backward, ly.bandwidth, ly.parameters, ly.expert_parameters)


def _stage(s: Scenario, gpu: GPUSpec) -> _Stage:
    """:func:`_build_stage`, kept by the blocks and layout fields it reads."""
    key = _key(s, gpu)
    return _STAGES.get(key, lambda: _build_stage(s, gpu, key), (s.model, s.workload, s.precision, gpu))


def layer_seconds(s: Scenario, gpu: GPUSpec) -> tuple[float, float, int]:
    """(seconds of one layer's micro-batch with its collectives, of the LM head and loss, the
    model's layers) of ``s``'s layout, its PP not read: the slowest of PP stages takes
    max(⌈layers/PP⌉ x layer, ⌊layers/PP⌋ x layer + head) (:func:`_split`), which
    :func:`data_parallel_pricer` scales by the micro-batches and the bubble before it adds
    the data-parallel collectives and the optimizer step."""
    ly = _layer(s, gpu, _key(s, gpu))
    return sum(ly.per_layer), sum(ly.head), ly.layers


def _replicated(parts: StepParts, microbatches: float, ranks: int) -> StepParts:
    """A replicated layout's micro-batch: its matmuls and attention keep the SMs a collective
    would take beside them (core/speed/train_rates.py :func:`replicated_compute_speedup`)."""
    k = 1.0 / replicated_compute_speedup(microbatches, ranks)
    return parts._replace(matmul=parts.matmul * k, attention=parts.attention * k)


def data_parallel_pricer(
    s: Scenario, gpu: GPUSpec, trainable: int | None = None
) -> Callable[[int], TrainingStep]:
    """One optimizer step of a training scenario's model-parallel shape at any data-parallel
    degree (``trainable``: parameters the optimizer steps, default all): the stage is worked
    out once, so that the sizing search prices each degree without a scenario of its own."""
    p, w = s.parallelism, s.workload
    st = _stage(s, gpu)
    params = trainable if trainable is not None else st.parameters
    share = params / st.parameters if st.parameters else 1.0
    grads = grad_bytes(s)
    weight_bytes = nbytes(base_weight_dtype(s))  # the stored base a ZeRO-3 gather moves (QLoRA: NF4)
    overlap = FRAMEWORKS[s.framework].param_gather_overlap
    net, node = network(s, gpu), s.hardware.gpus_per_node
    bubble = (p.pipeline - 1) / p.virtual_stages * sum(st.parts)
    # device_map: the stages run in turn for every micro-batch (core/memory/device_map.py)
    per_micro = sequential_stages(s)
    per_layer = p.tensor * p.pipeline * max(1, st.layers)
    layer_weights = (st.parameters - st.expert_parameters) / per_layer
    # Megatron: experts split by the expert TP (core/model/expert_tensor.py) and EP
    expert_weights = st.expert_parameters / expert_shards(p) / per_layer
    per_replica = p.gpus // p.data
    replicated = per_replica == 1 and p.expert == 1  # no TP/CP/PP/EP collective beside the compute

    def price(degree: int) -> TrainingStep:
        global_batch = w.global_batch_size or w.micro_batch_size * degree
        m = max(1.0, global_batch / (w.micro_batch_size * degree))
        ranks = degree * p.context
        hpz = hpz_size(s)
        dp = DataParallel(
            ranks=ranks,
            zero=p.zero_stage,
            layers=st.layers,
            layer_weights=layer_weights,
            weight_bytes=weight_bytes,
            grad_bytes=reduce_bytes(s, grads) * share,
            forward=st.forward,
            backward=st.backward,
            microbatches=round(m),
            pipelined=p.pipeline > 1,
            gather_overlap=overlap,
            link=group_link(gpu, ranks, p.tensor, node, net),
            expert_weights=expert_weights,
            expert_ranks=expert_data_ranks(p, ranks),
            expert_link=group_link(gpu, expert_data_ranks(p, ranks), expert_data_stride(p), node, net)
            if expert_weights
            else None,
            forward_bytes=gather_bytes(s, weight_bytes),
            hpz_ranks=hpz,
            hpz_link=group_link(gpu, hpz, p.tensor, node, net) if hpz > 1 else None,
        )
        # the weights' trip up from host RAM under parameter offload: the host leg of the ZeRO-3
        # gather (core/speed/param_offload.py; 0 without it)
        layer_bytes = (layer_weights + expert_weights) * weight_bytes
        host = OffloadedLayers(st.layers, layer_bytes, ranks, st.forward, st.backward, round(m))
        extra = StepParts(
            pipeline_bubble=bubble * m if per_micro else bubble,
            # plus DeepSpeed ZeRO-2's reductions in the backwards before the boundary (0 elsewhere)
            dp_communication=data_parallel_seconds(dp)
            + early_reduce_seconds(s, dp)
            + offload_seconds(s, gpu, host),
            # plus ZeRO-1/2 offload's per-backward host accumulation (0 elsewhere)
            optimizer=optimizer_step(s, params, ranks, st.bandwidth)
            + exposed_host_copies(s, stepped(s, params, ranks), round(m), st.layers, st.backward),
        )
        alone = replicated and (p.zero_stage < 3 or ranks <= 1)  # FSDP gathers beside every layer
        parts = (_replicated(st.parts, m, ranks) if alone else st.parts).scaled(m).plus(extra)
        tokens = global_batch * w.sequence_length
        return TrainingStep(sum(parts), tokens, per_replica * degree, round(m), parts)

    return price


def training_step(s: Scenario, gpu: GPUSpec, trainable: int | None = None) -> TrainingStep:
    """One optimizer step of a training scenario on its GPU (``trainable``: parameters the
    optimizer steps; default all)."""
    return data_parallel_pricer(s, gpu, trainable)(s.parallelism.data)


_STEPS: Memo[TrainingStep] = Memo(1024)


def step_for(s: Scenario, gpu: GPUSpec, trainable: int | None = None) -> TrainingStep:
    """:func:`training_step`, kept per frozen scenario and GPU (the estimate, the sweeps and
    the sizing search ask again for the same ones)."""
    return _STEPS.get((id(s), id(gpu), trainable), lambda: training_step(s, gpu, trainable), (s, gpu))


def step_block(step: TrainingStep, from_layout: bool) -> dict[str, float | bool]:
    """The report's ``compute.training_step`` block: one optimizer step of the layout, and
    whether the times came from it (false when ``compute.mfu`` overrides it)."""
    return {
        "from_layout": from_layout,
        "seconds": step.seconds,
        "tokens": step.tokens,
        "microbatches": step.microbatches,
        "tokens_per_second_per_gpu": step.tokens_per_second_per_gpu,
        **step.parts.as_dict(),
    }
