"""A colocated RL scenario's moves between phases and its refit, from the scenario's layout
(mechanisms and sources: core/pipeline/rl_transitions.py). Split placement has none: its engine
stays awake on its own GPUs and the training states stay on theirs."""

from __future__ import annotations

from ..memory.replicated_mixers import with_whole_mixers
from ..model.architecture import resolve
from ..model.expert_tensor import expert_shards, expert_tensor
from ..model.params import count_parameters
from ..model.sharding import stage_params
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..speed.train_rates import network_gb_per_s
from .rl_adapter_sync import adapter_sync_seconds
from .rl_check import rl_of
from .rl_memory import RLParts
from .rl_one_copy import shared_sync_seconds
from .rl_pp_gather import pipeline_broadcast_seconds
from .rl_roles import reference_in_policy, serves_adapter
from .rl_split_sync import collective_sync_seconds, split_sync_seconds
from .rl_stage_broadcast import stage_broadcast_seconds
from .rl_transitions import (
    Resident,
    Transition,
    host_link_gb_per_s,
    pageable_host,
    refit_seconds,
    transitions,
)

BF16 = 2  # bytes per weight of the exported model (Hugging Face layout, 16-bit)


def shard_holders(s: Scenario) -> int:
    """GPUs that hold distinct parts of the policy's weights: every GPU under ZeRO-3 / FSDP,
    else the model-parallel group (TP x PP x EP: Megatron replicates weights over data parallel
    and shards experts over EP ranks)."""
    p = s.parallelism
    if p.zero_stage == 3:
        return p.gpus
    # the experts' own grid where their TP differs (core/model/expert_tensor.py): EP x expert TP
    return min(p.gpus, p.pipeline * max(p.tensor, expert_tensor(p) * p.expert))


def exported_tensors(spec: ModelSpec) -> int:
    """Tensors of the 16-bit Hugging Face model the refit exports: the parameter tensors
    (core/model/params.py, where transformers 5 holds a layer's routed experts as two 3-D
    tensors) with each routed expert's own ``gate_proj``, ``up_proj`` and ``down_proj`` (the
    checkpoint layout Megatron-Bridge's ``export_hf_weights`` yields, one tensor at a time)."""
    arch = resolve(spec)
    experts = arch.moe.experts * 3 - 2 if arch.moe else 0
    return count_parameters(spec).tensors + arch.moe_layers * experts


def frozen_bytes(spec: ModelSpec, s: Scenario) -> int:
    """16-bit weights of a frozen role (reference, reward model) on one GPU, laid out as the
    policy is (verl and NeMo RL build it with the policy's parallel layout): the heavier
    pipeline stage's TP and EP shard (core/model/sharding.stage_params: routed experts over
    TP x EP), or all of it over the GPUs under ZeRO-3 / FSDP."""
    p, counts = s.parallelism, count_parameters(spec)
    if p.zero_stage == 3:
        return int(counts.total * BF16 / p.gpus)
    arch = resolve(spec)
    ep = expert_shards(p)  # experts over expert TP x EP (core/model/expert_tensor.py)
    # Miles swaps the reference into the policy's modules: its mixers whole on each TP rank too
    stages = (
        with_whole_mixers(s, arch, counts, stage_params(counts, arch, p.tensor, p.pipeline, ep, f)).total
        for f in (True, False)
    )
    return int(max(stages) * BF16)


def weight_reloads(s: Scenario) -> int:
    """Round trips of the policy's weights to the GPU a step: one, or with
    ``rl.policy.offload_per_call`` one per verl worker call that runs the policy (the rollout's
    weight sync, the old log-probs, the reference's when it is the LoRA policy's own base, the
    update; core/pipeline/rl_transitions.py)."""
    rl = rl_of(s)
    if not rl.policy.offload_per_call:
        return 1
    return 3 + reference_in_policy(rl)


def colocated_transitions(s: Scenario, gpu: GPUSpec, parts: RLParts) -> tuple[Transition, ...]:
    """The four host-link moves of a colocated step (empty for split placement)."""
    rl = rl_of(s)
    if rl.placement != "colocated":
        return ()
    critic = parts.critic
    resident = Resident(
        parts.engine.weights,
        parts.policy.weights + (critic.weights if critic else 0),
        parts.policy.optimizer + (critic.optimizer if critic else 0),
        parts.reference if parts.reference_offloaded else 0,
        weight_reloads(s),
    )
    host = rl.host_link_gb_per_s or host_link_gb_per_s(gpu)
    pageable = rl.offload_memory == "pageable" and pageable_host(gpu)
    # one copy: nothing goes to host (the base is the engine's; rl_one_copy.py)
    offload = rl.offload_states and not rl.rollout.shared_weights
    return tuple(transitions(resident, rl.rollout.sleep_level, offload, host, pageable))


def colocated_refit(s: Scenario, gpu: GPUSpec) -> float:
    """Seconds of the colocated refit (the ``weight_sync`` phase): the whole 16-bit model
    gathered on each GPU, then the engine's shard copied in; the gather's pipeline broadcast
    from stages on other nodes through each GPU's own link (core/pipeline/rl_pp_gather.py)."""
    rl, c = rl_of(s), s.compute
    weights = count_parameters(s.model).total * BF16
    net = s.hardware.network_gb_per_s or network_gb_per_s(gpu)
    links = (
        gpu.interconnect_gb_per_s * 1e9 * c.interconnect_efficiency,
        net * 1e9 * c.interconnect_efficiency,
        gpu.hbm_bandwidth_gb_per_s * 1e9 * c.bandwidth_efficiency,
    )
    node = s.hardware.gpus_per_node
    shard = weights / rl.rollout.tensor
    gather = refit_seconds(weights, shard_holders(s), node, shard, links, exported_tensors(s.model))
    return gather + pipeline_broadcast_seconds(s, gpu)


def weight_sync_seconds(s: Scenario, gpu: GPUSpec) -> float:
    """The ``weight_sync`` phase: colocated, the refit, or for a LoRA policy whose adapter the
    engine serves the adapter's hand-over (core/pipeline/rl_adapter_sync.py); split, the gather
    (the colocated refit's, tensor by tensor: NeMo RL's non-colocated refit blog, "completely
    identical to that of colocated refit") and the 16-bit model's broadcast to the engines over
    the network, or the node's GPU link where both pools fit one node
    (core/pipeline/rl_split_sync.py); with ``rl.sync_transport: "collective"`` NeMo RL's packed
    broadcast beside the export; with ``"stage_broadcast"`` Miles' stages' source ranks
    (core/pipeline/rl_stage_broadcast.py)."""
    rl = rl_of(s)
    if rl.rollout.shared_weights:  # the adapter handed over on the GPU (rl_one_copy.py)
        return shared_sync_seconds(s, gpu)
    if rl.placement != "split":
        return adapter_sync_seconds(s, gpu) if serves_adapter(rl) else colocated_refit(s, gpu)
    if rl.sync_transport == "collective":
        return collective_sync_seconds(s, gpu, colocated_refit(s, gpu))
    if rl.sync_transport == "stage_broadcast":
        return stage_broadcast_seconds(s, gpu, exported_tensors(s.model))
    return split_sync_seconds(s, gpu, exported_tensors(s.model))
