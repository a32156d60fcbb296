"""Miles' and slime's split weight sync (``rl.sync_transport: "stage_broadcast"``): each pipeline
stage's source rank gathers its Megatron parameters and broadcasts them, tensor by tensor, to a
group of itself and the engines' GPUs; the stages take turns.

Read at Miles 31f1ca96 (radixark/miles,
``miles/backends/megatron_utils/update_weight/update_weight_from_distributed/``):

- The source (``broadcast.py`` ``UpdateWeightFromDistributed._is_source``): the rank of data /
  context rank 0 and TP rank 0 of each pipeline stage; its NCCL group "miles-pp_{pp_rank}" is
  that rank and every engine GPU (``connect_rollout_engines_from_distributed``: ``world_size =
  sum(engine_gpu_counts) + 1``), not the training pool: the broadcast's bytes leave through the
  source GPU's own link.
- The gather (``mixin.py``): every Megatron parameter is all-gathered over TP
  (``_all_gather_update_unit``); the routed experts then over EP, one ``dist.all_gather`` a
  local expert tensor, issued ``async_op=True`` for a whole bucket (``_update_expert_bucket_
  weights``). Megatron holds a local expert as two tensors (``linear_fc1`` with gate and up
  fused, ``linear_fc2``), so a stage gathers its non-expert tensors and 2 x experts / EP per MoE
  layer: far fewer calls than the Hugging Face tensors ``convert_to_hf`` makes of them. Each
  gathered tensor is priced at NeMo RL's measured gather cost per tensor
  (:data:`EXPORT_SECONDS_PER_TENSOR`, core/pipeline/rl_transitions.py).
- The broadcast (``broadcast.py`` ``update_weights_from_distributed``): one ``dist.broadcast``
  per converted Hugging Face tensor of a bucket, each one NCCL call's latency, the 16-bit bytes
  at NCCL's measured network bus bandwidth a GPU (core/speed/collectives.py ``NETWORK_BETA``,
  nccl-tests#290: 46-48 GB/s per NDR NIC) across nodes, the GPU link within one; a scenario's
  own ``hardware.network_gb_per_s`` at ``compute.interconnect_efficiency`` replaces the measured
  rate. SGLang loads a bucket in one call (core/registry/rl_engine_loads.py): no walk per tensor.
- The stages (``_update_weight_implementation``: "Serialize NCCL broadcasts", a Ray lock taken
  per bucket): the broadcasts of the stages run one at a time while the other stages gather
  theirs. Within a stage, gather and broadcast alternate. So the sync is the longer of all the
  broadcasts in series and one stage's own share of gather and broadcast:
  max(B, (G + B) / PP), G + B without pipeline parallelism.
"""

from __future__ import annotations

from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.specs import GPUSpec, Scenario
from ..speed.collectives import NCCL_HOP_US, link, nccl_ring_seconds
from .rl_check import rl_of
from .rl_split_sync import BF16, broadcast_gb_per_s, in_one_node
from .rl_transitions import EXPORT_SECONDS_PER_TENSOR

HF_EXPERT_TENSORS = 3  # gate_proj, up_proj, down_proj of one routed expert (Hugging Face)
MEGATRON_EXPERT_TENSORS = 2  # linear_fc1 (gate and up fused), linear_fc2 of one local expert


def gathered_tensors(s: Scenario, exported: int) -> int:
    """Tensors the source ranks all-gather: the ``exported`` Hugging Face tensors with each
    routed expert's three as Megatron's two, over the EP ranks that each hold experts / EP."""
    arch = resolve(s.model)
    if arch.moe is None:
        return exported
    experts = arch.moe_layers * arch.moe.experts
    local = experts * MEGATRON_EXPERT_TENSORS / max(1, s.parallelism.expert)
    return max(0, exported - experts * HF_EXPERT_TENSORS) + round(local)


def stage_broadcast_rate(s: Scenario, gpu: GPUSpec) -> float:
    """Bytes/s the source GPU's broadcast runs at: the GPU link within one node (as the other
    split transports), NCCL's measured network bus bandwidth across nodes, or the scenario's
    ``hardware.network_gb_per_s`` at its interconnect efficiency."""
    eff = s.compute.interconnect_efficiency
    if in_one_node(s) or s.hardware.network_gb_per_s:
        return broadcast_gb_per_s(s, gpu) * 1e9 * eff
    return link(gpu, source_group_ranks(s), s.hardware.gpus_per_node).beta


def source_group_ranks(s: Scenario) -> int:
    """GPUs of one stage's NCCL group: its source rank and every engine GPU."""
    return 1 + rl_of(s).rollout.gpus


def source_latency(s: Scenario, gpu: GPUSpec) -> float:
    """Seconds of one broadcast call's latency over :func:`source_group_ranks`: NCCL's ring base
    and one hop a further rank on a scale-up link, the measured network latency across nodes
    (core/speed/collectives.py), as core/pipeline/rl_split_sync.py ``broadcast_latency``."""
    ranks = source_group_ranks(s)
    ln = link(gpu, ranks, s.hardware.gpus_per_node)
    if ln.kind in NCCL_HOP_US:
        return nccl_ring_seconds(ln, 0.0, ranks - 1, ranks)
    return ln.latency(ranks)


def stage_broadcast_seconds(s: Scenario, gpu: GPUSpec, exported: int) -> float:
    """The sync, seconds (module docstring): G the gathers, B the 16-bit model's bytes and one
    NCCL call's latency per exported tensor; max(B, (G + B) / PP)."""
    weights = count_parameters(s.model).total * BF16
    gather = gathered_tensors(s, exported) * EXPORT_SECONDS_PER_TENSOR
    rate = stage_broadcast_rate(s, gpu)
    broadcast = (weights / rate if rate else 0.0) + exported * source_latency(s, gpu)
    return max(broadcast, (gather + broadcast) / max(1, s.parallelism.pipeline))
