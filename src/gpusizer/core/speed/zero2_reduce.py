"""DeepSpeed ZeRO-2 reduces the gradients in every backward, not once a step, and
``overlap_comm`` decides whether those reductions (and ZeRO-Offload's per-backward host copies)
run beside the backward or in line with it.

Read at DeepSpeed v0.15.4, v0.17.0 and ``edaa722`` (0.19.6 dev), the same in all three:

- ``deepspeed/runtime/zero/stage_1_and_2.py`` ``reduce_ready_partitions_and_remove_grads``
  (the gradient hook of every parameter): ``if self.partition_gradients or
  self.is_gradient_accumulation_boundary`` it buckets the gradient
  (``reduce_independent_p_g_buckets_and_remove_grads``), whose full buckets and the
  backward's epilogue (``engine.py`` ``allreduce_gradients``: "ZeRO stage >= 2 communicates
  during non gradient accumulation boundaries as well") go to ``reduce_ipg_grads`` ->
  ``average_tensor``. ZeRO-2 (``partition_gradients``) thus reduces all of its gradients in
  each of the step's m backwards; ZeRO-1 only in the boundary's one.
- What ``average_tensor`` runs: with ``reduce_scatter`` (default true) and
  ``use_multi_rank_bucket_allreduce`` (default true, ``zero/config.py``) the slices of every
  rank go into one bucket per process group and ``allreduce_and_scatter`` ->
  ``allreduce_bucket`` calls ``dist.all_reduce`` on it, each rank keeping its own slice; with
  ``reduce_scatter`` false ``gradient_reduction_w_predivide`` all-reduces too. So each
  backward before the boundary is priced as an all-reduce of the stage's gradients over the
  data-parallel group (MoE experts: over their expert data-parallel group,
  ``expert_dp_process_group``), in the gradient dtype.
- In line unless overlapped: ``average_tensor`` and ``reduce_ipg_grads`` run on
  ``reduction_stream`` only ``if self.overlap_comm``, otherwise on ``current_stream()``, the
  backward's own; ``zero/config.py`` ``overlap_comm_valid`` sets an unset ``overlap_comm`` to
  ``stage == ZeroStageEnum.weights``: on at stage 3 only. Beside the backward a reduction
  waits for what the backward cannot hide, and its last bucket waits in any case: the same
  ``max(x - hide, x / layers)`` as DDP's bucketed all-reduce (core/speed/train_dp.py).
- DeepSpeed's pipeline engine refuses ZeRO-2 (``pipe/engine.py``: "ZeRO-2 and ZeRO-3 are
  incompatible with pipeline parallelism"); a pipelined stage takes no such reductions.

The boundary backward's reduction stays core/speed/train_dp.py's (a reduce-scatter beside the
backward), so that one micro-batch a step, and every other framework and stage, is priced as
before; docs/evidence/speed.md records what that leaves.
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..model.workload_spec import ParallelismSpec
from .offload_grads import host_accumulation_seconds
from .train_dp import DataParallel
from .train_rates import collective_seconds


def overlap_comm(p: ParallelismSpec) -> bool:
    """DeepSpeed ``zero_optimization.overlap_comm``: as the scenario sets it, else DeepSpeed's
    default for the stage (``zero/config.py`` ``overlap_comm_valid``: true at stage 3 only)."""
    return p.overlap_comm if p.overlap_comm is not None else p.zero_stage >= 3


def beside_backward(seconds: float, layers: int, backward: float) -> float:
    """Exposed part of ``seconds`` of one backward's stream work run beside it: what
    ``layers`` x ``backward`` seconds of compute cannot hide, at least the last layer's share."""
    n = max(1, layers)
    return max(seconds - n * backward, seconds / n)


def early_reductions(s: Scenario, microbatches: int, pipelined: bool) -> int:
    """Backwards of one step that reduce before the accumulation boundary: m - 1 under a
    framework that reduces every backward (``FrameworkProfile.reduce_every_backward``) at
    ZeRO-2, 0 elsewhere (ZeRO-1 waits for the boundary; ZeRO-3 is train_dp.py's own)."""
    if not s.profile.reduce_every_backward or s.parallelism.zero_stage != 2 or pipelined:
        return 0
    return max(0, microbatches - 1)


def _all_reduce(g: DataParallel) -> float:
    """One all-reduce of the stage's gradients: the dense weights over the data-parallel
    group, then the routed experts over their expert data-parallel group."""
    layers = max(1, g.layers)
    seconds = collective_seconds("all_reduce", g.layer_weights * layers * g.grad_bytes, g.ranks, g.link)
    if g.expert_weights and g.expert_ranks > 1 and g.expert_link is not None:
        experts = g.expert_weights * layers * g.grad_bytes
        seconds += collective_seconds("all_reduce", experts, g.expert_ranks, g.expert_link)
    return seconds


def early_reduce_seconds(s: Scenario, g: DataParallel) -> float:
    """Exposed seconds of one step's reductions before the boundary: each an all-reduce,
    whole on the compute stream, or beside its backward with ``overlap_comm``."""
    n = early_reductions(s, g.microbatches, g.pipelined)
    if not n or g.ranks <= 1:
        return 0.0
    one = _all_reduce(g)
    if overlap_comm(s.parallelism):
        one = beside_backward(one, g.layers, g.backward)
    return n * one


def exposed_host_copies(
    s: Scenario, stepped: float, microbatches: int, layers: int, backward: float
) -> float:
    """Exposed seconds of ZeRO-Offload's per-backward host copies of ``stepped`` parameters
    (core/speed/offload_grads.py): whole on the compute stream, or, with ``overlap_comm``, on
    ``reduction_stream`` beside the backwards that make them (``reduce_ipg_grads``: ZeRO-2 each
    of the m, ZeRO-1 the boundary's)."""
    copies = host_accumulation_seconds(s, stepped, microbatches)
    if not copies or not overlap_comm(s.parallelism):
        return copies
    n = max(1, microbatches) if s.parallelism.zero_stage == 2 else 1
    return n * beside_backward(copies / n, layers, backward)
