"""Data-parallel collectives of a training step, as the frameworks overlap them, and the
optimizer step (core/speed/train_step.py calls both).

- ZeRO-3 / FSDP: each layer's parameters are all-gathered before its forward and again before
  its backward (``reshard_after_forward``), its gradients reduce-scattered after; the next
  layer's all-gather is prefetched during the current layer's compute, and the reduce-scatter
  runs beside the next layer's backward (``torchtitan/docs/fsdp.md``: "FSDP2 always follows
  backward_prefetch=BACKWARD_PRE ... the only way to overlap collectives in backward"). So a
  layer waits only for what its own compute cannot hide, plus the first all-gather and the last
  reduce-scatter. Under pipeline parallelism torchtitan keeps the parameters gathered across
  micro-batches (``reshard_after_forward=False``): one all-gather and one reduce-scatter per
  step instead of per micro-batch.
- DeepSpeed ZeRO++ (core/memory/zeropp.py): qwZ's forward all-gather in INT8, hpZ's backward
  all-gather over the hpZ group's link, qgZ's reduction at 0.5 byte a value.
- ZeRO-0 (DDP): gradients all-reduced in buckets as backward produces them (PyTorch DDP
  docs, "Internal design": bucketed all-reduce overlapped with backward); the last bucket
  waits. ZeRO-1/2: the same with a reduce-scatter, then an all-gather of the updated
  parameters, overlapped with the next forward where the framework does (Megatron-LM
  ``--overlap-param-gather``), exposed after the step otherwise (DeepSpeed ZeRO-1/2).
- MoE expert weights (expert parallelism): each GPU holds 1/EP of the routed experts, so
  their gradients are reduced (and, under ZeRO, their shards gathered) only over the expert
  data-parallel group, the (DP x CP) / EP ranks that hold the same experts, not over all
  data-parallel ranks (Megatron-LM ``megatron/core/parallel_state.py`` ``_EXPERT_DATA_PARALLEL_GROUP``;
  ``distributed_data_parallel.py`` keeps ``expert_parallel_buffers`` reduced over
  ``get_expert_data_parallel_group()``): both groups' bytes go over the links in turn, behind
  the same backward.
- With gradient accumulation the reduction happens once per step (DDP ``no_sync``), on the
  last micro-batch's backward.
- Optimizer step: memory-bound. A fused AdamW reads the parameter (or fp32 master), gradient
  and states and writes the parameter and states once; torch.optim's foreach AdamW
  (``_multi_tensor_adamw``: lerp, mul, addcmul, sqrt, div, add, addcdiv, weight-decay mul)
  moves 80 bytes per fp32 parameter where the fused kernel moves 28: ``FOREACH`` = 80/28.
  Gradient-norm clipping reads the gradients twice and writes them once.
- Optimizer offloaded to the CPU (``parallelism.offload_optimizer``: DeepSpeed ZeRO-Offload,
  Ren et al. 2021 arXiv 2101.06840): the GPU sends its gradients down and gets its 16-bit
  weights back over PCIe (25 GB/s host-to-device of a Gen4 x16 link's 32), and the CPU steps
  Adam at 0.8e9 parameters/s (DeepSpeed CPU-Adam, Llama 2 1.2B in 1.5 s per step:
  deepspeedai/DeepSpeed#6695); not overlapped with the GPU's compute.
"""

from __future__ import annotations

from typing import NamedTuple

from .collectives import Link
from .train_rates import collective_seconds

FOREACH = 80.0 / 28.0
CPU_ADAM_PARAMS_PER_S = 0.8e9  # DeepSpeed CPU-Adam (deepspeedai/DeepSpeed#6695)
HOST_LINK_BYTES_PER_S = 25e9  # PCIe Gen4 x16 as measured host-to-device (of 32 GB/s)


class DataParallel(NamedTuple):
    """One stage's data-parallel group and the compute its collectives can hide behind."""

    ranks: int
    zero: int
    layers: int  # layers on the stage
    layer_weights: float  # parameters of one layer on one GPU before data-parallel sharding
    weight_bytes: float  # bytes per value all-gathered
    grad_bytes: float  # bytes per value reduced
    forward: float  # seconds of one layer's forward compute, one micro-batch
    backward: float  # seconds of one layer's backward compute, one micro-batch
    microbatches: int
    pipelined: bool
    gather_overlap: bool
    link: Link
    expert_weights: float = 0.0  # routed-expert parameters of one layer on one GPU (already / EP)
    expert_ranks: int = 1  # the expert data-parallel group: (DP x CP) / EP
    expert_link: Link | None = None
    # DeepSpeed ZeRO++ (core/memory/zeropp.py): the forward gather's bytes a value (qwZ; null:
    # ``weight_bytes``), the hpZ group the backward gathers over and its link (1: all ranks)
    forward_bytes: float | None = None
    hpz_ranks: int = 1
    hpz_link: Link | None = None


def _seconds(g: DataParallel, kind: str, per_value: float, layers: int) -> float:
    """One collective of kind over the stage's dense weights and, in turn, its experts'."""
    dense = collective_seconds(kind, g.layer_weights * layers * per_value, g.ranks, g.link)
    if not g.expert_weights or g.expert_ranks <= 1 or g.expert_link is None:
        return dense
    experts = g.expert_weights * layers * per_value
    return dense + collective_seconds(kind, experts, g.expert_ranks, g.expert_link)


def _backward_gather(g: DataParallel) -> float:
    """One layer's backward all-gather: over every rank, or (ZeRO++ hpZ) of the 16-bit
    secondary partition over the hpZ group only, experts included."""
    if g.hpz_ranks <= 1 or g.hpz_link is None:
        return _seconds(g, "all_gather", g.weight_bytes, 1)
    layer = (g.layer_weights + g.expert_weights) * g.weight_bytes
    return collective_seconds("all_gather", layer, g.hpz_ranks, g.hpz_link)


def data_parallel_seconds(g: DataParallel) -> float:
    """Exposed seconds of one step's data-parallel collectives."""
    if g.ranks <= 1:
        return 0.0
    layers = max(1, g.layers)
    if g.zero >= 3:
        ag = _seconds(g, "all_gather", g.weight_bytes if g.forward_bytes is None else g.forward_bytes, 1)
        rs = _seconds(g, "reduce_scatter", g.grad_bytes, 1)
        back = rs if g.pipelined else _backward_gather(g) + rs
        one = layers * (max(0.0, ag - g.forward) + max(0.0, back - g.backward)) + ag + rs
        return one * (1 if g.pipelined else g.microbatches)
    hide = layers * g.backward
    if g.zero == 0:
        ar = _seconds(g, "all_reduce", g.grad_bytes, layers)
        return max(ar - hide, ar / layers)
    rs = _seconds(g, "reduce_scatter", g.grad_bytes, layers)
    ag = _seconds(g, "all_gather", g.weight_bytes, layers)
    gather = max(ag - layers * g.forward, ag / layers) if g.gather_overlap else ag
    return max(rs - hide, rs / layers) + gather


def optimizer_seconds(
    params: float, master_bytes: float, state_bytes: float, grad_bytes: float, foreach: bool, bandwidth: float
) -> float:
    """Seconds of the optimizer step over ``params`` parameters on one GPU (bytes per value;
    ``state_bytes``: all states of one parameter; ``master_bytes``: the copy that is stepped)."""
    fused = 2 * (master_bytes + state_bytes) + grad_bytes
    moved = fused * (FOREACH if foreach else 1.0) + 3 * grad_bytes
    return params * moved / bandwidth


def cpu_optimizer_seconds(params: float, grad_bytes: float, weight_bytes: float) -> float:
    """Seconds of an optimizer step offloaded to the CPU over ``params`` parameters of one
    GPU: gradients down, weights back up, Adam on the CPU."""
    return params / CPU_ADAM_PARAMS_PER_S + params * (grad_bytes + weight_bytes) / HOST_LINK_BYTES_PER_S
