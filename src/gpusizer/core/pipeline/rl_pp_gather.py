"""The refit gather's pipeline broadcast (``rl.refit_gather``): each GPU receives the other
stages' tensors through its own network link.

A Megatron policy's refit rebuilds the whole 16-bit model on every training GPU, tensor by
tensor, and each tensor reaches the stages that do not own it by a broadcast over the
pipeline-parallel group:

- ``"full"``: NeMo RL v0.3.x (``nemo_rl/models/megatron/refit_utils.py`` ``gather_params`` at tag
  v0.3.0): per key the owner all-gathers its TP slices first, then
  ``torch.distributed.broadcast(full_param, src=..., group=pp_group)`` sends the whole tensor,
  then an EP all-gather joins the routed experts: a GPU receives the other stages' dense
  tensors whole and their experts over EP.
- ``"shard"``: Megatron-Bridge ``export_hf_weights`` (NeMo RL v0.4.0 on; ``param_mapping.py``
  ``megatron_to_hf`` at Megatron-Bridge 62f4704, the commit NeMo RL v0.4.0 pins, and 95e5f38 at
  v0.6.0): ``broadcast_from_pp_rank`` sends each GPU's own shard, the TP / EP all-gather follows:
  a GPU receives its shard of the other stages.

Megatron-Core orders its ranks "tp-cp-ep-dp-pp" (``megatron/core/parallel_state.py``
``initialize_model_parallel``, its default ``order`` at Megatron-LM 2ff0f09, the commit NeMo RL
v0.3.0 pins): pipeline parallelism is outermost, so a pipeline group's ranks
stand TP x CP x DP GPUs apart. Where that stride reaches a node's GPU count, the stages of one
group sit on different nodes and each node holds one stage's data-parallel replicas: no GPU of
the node holds what another lacks, so each receives the other stages itself, over its own
network link (one NIC a GPU, NCCL's rail-aligned rings), not once per node as the TP and EP
all-gathers spread it (core/pipeline/rl_transitions.py ``refit_seconds``, which this adds to:
the broadcast follows each key's all-gather in the same loop).

Llama 3.1 70B at TP 4 PP 4 on 64 H100 (NeMo RL v0.3.0 ``grpo_math_70B_megatron.yaml``), ``"full"``:
3/4 of 141 GB, 106 GB a GPU, 3.0 s at 50 GB/s x 0.7, against 0.6 s for the whole refit before
(the node-shared gather and the pack)."""

from __future__ import annotations

from ..model.expert_tensor import expert_shards
from ..model.params import count_parameters
from ..model.specs import GPUSpec, Scenario
from ..speed.train_rates import network_gb_per_s
from .rl_check import rl_of

BF16 = 2  # bytes per exported weight (16-bit Hugging Face layout)


def pipeline_peers_beyond(s: Scenario) -> int:
    """Pipeline stages whose tensors reach a GPU from another node: PP minus the stages in its
    own node (ranks TP x CP x DP apart, Megatron-Core's "tp-cp-ep-dp-pp" order); 0 without PP or
    under ZeRO-3 / FSDP (no pipeline group)."""
    p = s.parallelism
    if p.pipeline <= 1 or p.zero_stage == 3:
        return 0
    stride = max(1, p.tensor * p.context * p.data)
    local = min(p.pipeline, max(1, s.hardware.gpus_per_node // stride))
    return p.pipeline - local


def broadcast_bytes(s: Scenario) -> float:
    """16-bit bytes of the whole model one GPU's pipeline broadcasts carry, before the share of
    stages beyond its node: ``"full"`` the dense tensors whole and the experts over EP; ``"shard"``
    the GPU's own shard (dense over TP, experts over TP x the expert shards); 0 for null."""
    mode = rl_of(s).refit_gather
    if mode is None:
        return 0.0
    p = s.parallelism
    counts = count_parameters(s.model)
    experts = counts.expert_params
    dense = counts.total - experts
    if mode == "full":
        return (dense + experts / max(1, p.expert)) * BF16
    return (dense / p.tensor + experts / (p.tensor * max(1.0, expert_shards(p)))) * BF16


def pipeline_broadcast_seconds(s: Scenario, gpu: GPUSpec) -> float:
    """Seconds a GPU spends receiving the other nodes' stages in the refit gather (module
    docstring): their share of :func:`broadcast_bytes` over one GPU's network link at the
    scenario's interconnect efficiency; 0 with ``rl.refit_gather`` null."""
    beyond = pipeline_peers_beyond(s)
    moved = broadcast_bytes(s) * beyond / max(1, s.parallelism.pipeline)
    if not moved:
        return 0.0
    net = (s.hardware.network_gb_per_s or network_gb_per_s(gpu)) * 1e9 * s.compute.interconnect_efficiency
    return moved / net if net else 0.0
