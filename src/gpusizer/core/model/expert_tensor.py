"""Expert tensor parallelism apart from the attention's (``parallelism.expert_tensor``).

Megatron-Core lays a MoE layer's experts out on a grid of their own over the same ranks,
"MoE parallel folding": expert TP x EP x expert DP x PP, beside the dense layers' TP x CP x DP x
PP (NVIDIA/Megatron-LM ``megatron/core/parallel_state.py`` ``initialize_model_parallel`` at
core_v0.13.0: ``expert_decoder_rank_generator = RankGenerator(tp=expert_tensor_parallel_size,
ep=expert_model_parallel_size, dp=expert_data_parallel_size, pp=pipeline_model_parallel_size,
cp=1, order=order)``; ``megatron/core/transformer/moe/README.md`` "MoE Parallel Folding"). The
expert TP defaults to the tensor-parallel size (``expert_tensor_parallel_size = None`` ->
``tensor_model_parallel_size``, ``transformer_config.py``); NeMo RL's base config sets it to 1
for every recipe (NVIDIA-NeMo/RL ``examples/configs/grpo_math_1B.yaml`` tags v0.4.0-v0.7.0,
``policy.megatron_cfg.expert_tensor_parallel_size: 1``, passed on by
``megatron_policy_worker.py``).

What the field changes, for a MoE model under training:

- A GPU holds ``experts / (expert TP x EP)`` of the routed experts' weights, gradients and
  optimizer states, not ``experts / (TP x EP)``; the distributed optimizer shards them over the
  expert data-parallel group, world / (expert TP x EP x PP) ranks. Both reduce to one number the
  TP-based code already takes: EP in units of TP, :func:`expert_shards` = EP x expert TP / TP.
- The EP group's ranks are expert-TP apart (the rank generator's order "tp-cp-ep-dp-pp" with
  ``tp`` the expert TP and ``cp=1``), so an EP 8 group at expert TP 1 is eight neighbouring GPUs
  (one 8-GPU node) where at expert TP 2 it spans two nodes (:func:`ep_stride`).
- Each expert GEMM runs at the expert-TP shard of the expert's width over the tokens of
  EP x expert TP / TP micro-batch shares; the experts' TP all-gather and reduce-scatter around
  them span the expert TP ranks (none at expert TP 1).

The expert MLP's saved activations per GPU do not change: under a balanced load a GPU computes
and keeps 1/(TP x EP) of an EP group's routed work whichever way the experts are split (its
tokens times the full width at expert TP 1, or TP times the tokens at 1/TP of the width).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .workload_spec import ParallelismSpec


def expert_tensor(p: ParallelismSpec) -> int:
    """The experts' tensor-parallel size: the field, else the tensor-parallel size (Megatron's
    default)."""
    return p.tensor if p.expert_tensor is None else p.expert_tensor


def expert_shards(p: ParallelismSpec) -> float:
    """EP in units of the attention's TP: a GPU holds experts / (TP x this) of the routed experts,
    and the distributed optimizer shards them over (DP x CP) / this ranks. ``parallelism.expert``
    itself where the field is unset, so those answers stay as they were."""
    if p.expert_tensor is None:
        return p.expert
    return p.expert * p.expert_tensor / p.tensor


def ep_stride(p: ParallelismSpec) -> int:
    """Ranks between neighbours of an EP group: expert TP under the field (Megatron-Core's
    expert rank generator, CP folded in), else TP x CP as before."""
    return p.tensor * p.context if p.expert_tensor is None else p.expert_tensor


def expert_data_ranks(p: ParallelismSpec, ranks: int) -> int:
    """The expert data-parallel group over which the experts' gradients are reduced, from the
    dense one of ``ranks`` (DP x CP): (TP x DP x CP) / (expert TP x EP), at least 1."""
    if p.expert_tensor is None:
        return max(1, ranks // p.expert)
    return max(1, ranks * p.tensor // (p.expert * p.expert_tensor))


def expert_data_stride(p: ParallelismSpec) -> int:
    """Ranks between neighbours of the expert data-parallel group: expert TP x EP under the
    field, else TP x EP as before."""
    return (p.tensor if p.expert_tensor is None else p.expert_tensor) * p.expert
