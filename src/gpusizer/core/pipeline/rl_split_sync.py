"""The split placement's weight sync (the ``weight_sync`` phase with ``rl.placement: "split"``):
the training pool's 16-bit model gathered tensor by tensor and broadcast to the rollout pool.

Where the broadcast runs. verl's fully-async and one-step-off trainers form one NCCL group of
every training and every rollout worker (``verl/experimental/fully_async_policy/param_sync.py``
``_init_sync_group``: ``collective.create_collective_group(actor_wg.workers +
rollout_wg.workers, ...)``, commit b178a3cd); NeMo RL's non-colocated refit likewise joins the
training and generation workers in one group. When the two pools' GPUs fit one node
(training + rollout GPUs no more than ``hardware.gpus_per_node``), NCCL's ring stays on the
node's GPU link (NVLink), not the network: the whole model crosses that link once.

Tensor by tensor (``rl.broadcast_per_tensor``). With verl's checkpoint engine off, its sync
loop (``base_detach_sync.py`` ``_sync_vllm_weights``) runs, for each Hugging Face tensor of the
model, one ``collective.broadcast`` over that group and then, on each rollout rank,
``inference_model.load_weights([(key, tensor)])`` (verl ``verl/docs/advance/one_step_off.md``: "Model
parameters are broadcast tensor-by-tensor"). Each tensor then pays one NCCL call's latency over
the group (core/speed/collectives.py: NCCL's ring base and per-hop latency on a scale-up link,
the measured network latency across nodes) beyond its bytes. Where the engine loads each
tensor in its own call (core/registry/rl_engine_loads.py: vLLM's ``load_weights``, which
rebuilds ``dict(self.named_parameters())`` and scans the expert mapping on every call;
sgl-project/sglang#30848 saw the same walk cost ~60 s a sync of Qwen3-30B-A3B on H100), each
tensor also pays that Python walk over the engine model's parameter tensors
(:func:`engine_tensors`, at the rate ``scripts/measure_engine_load_call.py`` measured:
docs/evidence/rl.md section 34e). SGLang's bucketed load has no per-tensor walk.

NeMo RL's collective transport (``rl.sync_transport: "collective"``; tags v0.4.0 to v0.7.0,
``packed_broadcast_producer`` in ``nemo_rl/utils/packed_tensor.py``, the vLLM side
``packed_broadcast_consumer``). Every training rank runs Megatron-Bridge's ``export_hf_weights``
(the colocated refit's gather, tensor by tensor) and packs the 16-bit tensors into buckets of
min(2 % of the GPU's memory, 5 GiB); training rank 0 broadcasts each bucket (``src=0``) over one
NCCL communicator of every training and every rollout GPU (NeMo RL PR #1264, "inclusive comm
group": before it, the group was training rank 0 and the engines, which the null transport
prices). So the source node's GPUs all sit on NCCL's ring and its channels leave each node on
the node's NICs, as the gather's do (core/pipeline/rl_transitions.py ``refit_seconds``): the bytes
cross at the slower of the GPU link and the node's network links. Two buffers on two CUDA
streams (``NRL_REFIT_NUM_BUFFERS`` 2; PR #1379, "Overlap param iteration and the
packing/broadcasting") let the export of one bucket run beside the broadcast of the last, so the
slower of the two sets the time. The engines receive BF16 whatever their precision (vLLM's FP8
load casts each received tensor, ``quantization/fp8.py``), and the engine stops decoding while
it receives (``collective_rpc``): the sync still follows the slower pool."""

from __future__ import annotations

from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.specs import GPUSpec, Scenario
from ..registry.rl_engine_loads import ENGINE_LOADS, LOAD_CALL_SECONDS_PER_TENSOR
from ..speed.collectives import NCCL_HOP_US, link, nccl_ring_seconds
from ..speed.train_rates import network_gb_per_s
from .rl_check import rl_of
from .rl_time import sync_seconds
from .rl_transitions import EXPORT_SECONDS_PER_TENSOR

BF16 = 2  # bytes per weight of the broadcast model (16-bit)


def sync_group_ranks(s: Scenario) -> int:
    """GPUs in the sync's NCCL group: every training and every rollout GPU."""
    return s.parallelism.gpus + rl_of(s).rollout.gpus


def in_one_node(s: Scenario) -> bool:
    """Whether both pools fit one node, so the broadcast stays on the GPUs' own link."""
    return sync_group_ranks(s) <= max(1, s.hardware.gpus_per_node)


def broadcast_gb_per_s(s: Scenario, gpu: GPUSpec) -> float:
    """GB/s per direction the broadcast runs at: the GPU link within one node, else one GPU's
    network link (the scenario's, else the catalog's)."""
    if in_one_node(s) and gpu.interconnect_gb_per_s > 0:
        return gpu.interconnect_gb_per_s
    return s.hardware.network_gb_per_s or network_gb_per_s(gpu)


def broadcast_latency(s: Scenario, gpu: GPUSpec) -> float:
    """Seconds of one NCCL broadcast call's latency over the sync group (its bytes aside): on a
    scale-up link NCCL's fastest protocol's base latency plus one hop per further rank (the
    broadcast's ring is a chain), across nodes the network link's measured latency."""
    ranks = sync_group_ranks(s)
    ln = link(gpu, ranks, s.hardware.gpus_per_node)
    if ln.kind in NCCL_HOP_US:
        return nccl_ring_seconds(ln, 0.0, ranks - 1, ranks)
    return ln.latency(ranks)


def split_sync_seconds(s: Scenario, gpu: GPUSpec, tensors: int) -> float:
    """The split sync, seconds: the gather of ``tensors`` exported tensors (each
    :data:`EXPORT_SECONDS_PER_TENSOR`, core/pipeline/rl_transitions.py), the 16-bit model's
    bytes over :func:`broadcast_gb_per_s`, and with ``rl.broadcast_per_tensor`` one NCCL call's
    latency and the engine's load call (:func:`load_call_seconds`) per tensor (module docstring)."""
    weights = count_parameters(s.model).total * BF16
    seconds = tensors * EXPORT_SECONDS_PER_TENSOR
    seconds += sync_seconds(weights, broadcast_gb_per_s(s, gpu), s.compute.interconnect_efficiency)
    if rl_of(s).broadcast_per_tensor:
        seconds += tensors * (broadcast_latency(s, gpu) + load_call_seconds(s))
    return seconds


def engine_tensors(s: Scenario) -> int:
    """Parameter tensors of the engine's model as vLLM holds them: the Hugging Face tensors
    (core/model/params.py) with each attention layer's q, k, v (and their biases) fused into
    ``qkv_proj`` and each gated dense MLP's gate and up into ``gate_up_proj`` (vLLM
    ``QKVParallelLinear``, ``MergedColumnParallelLinear``); routed experts already two tensors."""
    spec = s.model
    arch = resolve(spec)
    fused = 0 if spec.mla or spec.fused_qkv else 2 * (1 + spec.qkv_bias)
    gated = 0 if spec.mlp == "plain" or spec.fused_gate_up else 1 + spec.mlp_bias
    shared = arch.moe_layers if arch.moe is not None and arch.moe.shared_experts else 0
    return (
        count_parameters(spec).tensors - arch.attention_layers * fused - (arch.dense_layers + shared) * gated
    )


def load_call_seconds(s: Scenario) -> float:
    """Host seconds of the engine's load call for one broadcast tensor: the walk over
    :func:`engine_tensors` where the engine loads tensor by tensor, else none."""
    if not ENGINE_LOADS[rl_of(s).rollout.engine].per_tensor:
        return 0.0
    return engine_tensors(s) * LOAD_CALL_SECONDS_PER_TENSOR


def collective_gb_per_s(s: Scenario, gpu: GPUSpec) -> float:
    """GB/s per direction of NeMo RL's collective broadcast: the GPU link within one node, else
    the slower of the source GPU's link and its node's network links (one per GPU, the scenario's
    rate, else the catalog's), over which NCCL's ring channels cross each node boundary."""
    if in_one_node(s) and gpu.interconnect_gb_per_s > 0:
        return gpu.interconnect_gb_per_s
    nics = (s.hardware.network_gb_per_s or network_gb_per_s(gpu)) * max(1, s.hardware.gpus_per_node)
    return min(gpu.interconnect_gb_per_s, nics) if gpu.interconnect_gb_per_s > 0 else nics


def collective_sync_seconds(s: Scenario, gpu: GPUSpec, export: float) -> float:
    """NeMo RL's collective sync, seconds: the export and packing (``export``, the colocated
    refit's gather and pack, core/pipeline/rl_colocated.py ``colocated_refit``) beside the 16-bit
    model's broadcast at :func:`collective_gb_per_s`, the slower of the two (module docstring)."""
    weights = count_parameters(s.model).total * BF16
    broadcast = sync_seconds(weights, collective_gb_per_s(s, gpu), s.compute.interconnect_efficiency)
    return max(export, broadcast)
