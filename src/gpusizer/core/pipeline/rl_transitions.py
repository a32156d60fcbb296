"""What a colocated RL step pays between its phases (``rl.placement: "colocated"``), per GPU:
bytes moved over a stated link at a stated rate, one transition each.

The order of one step as NeMo RL runs it (NVIDIA-NeMo/RL ``nemo_rl/algorithms/grpo.py``
``refit_policy_generation``; ``models/policy/workers/megatron_policy_worker.py``
``prepare_for_training``, ``offload_before_refit``, ``offload_after_refit``;
``models/generation/vllm/vllm_worker.py`` ``sleep``), which verl's hybrid engine follows too
(``verl/workers/sharding_manager``: wake the engine, load the FSDP state, sleep it again):

1. ``engine_sleep``: after rollout the engine sleeps (NeMo RL ``llm.sleep(level=1)``). vLLM
   sleep level 1 copies its weights to host RAM and drops the KV pool; level 2 drops both (vLLM
   docs "Sleep Mode": level 2 for RLHF weight updates, where the old weights are not needed).
2. ``state_reload``: the training states come back (``prepare_for_training``: the parameter
   buffer ``reload_from_cpu`` and ``move_optimizer("cuda")``): 16-bit weights and optimizer
   states host-to-device. Megatron frees the gradient buffer rather than copying it
   (Megatron-LM ``param_and_grad_buffer.py`` ``offload_to_cpu``: ``grad_data.storage().resize_(0)``),
   so gradients move no bytes. An offloaded reference comes back for its forward (its host copy
   stays valid, so it is not copied back down).
3. ``state_offload``: after training, optimizer states (``offload_before_refit``) and weights
   (``offload_after_refit``, ``param_data_cpu.copy_``) device-to-host.

   verl with ``param_offload`` (``rl.policy.offload_per_call``) moves the policy's weights around
   every worker call instead (``verl/workers/fsdp_workers.py`` at June 2025: ``load_fsdp_model_to_gpu``
   first and ``offload_fsdp_model_to_cpu`` last in ``compute_log_prob`` and ``update_actor``, the
   rollout's sharding manager ``fsdp_vllm.py`` ``__enter__`` likewise around its weight sync), the
   optimizer states around ``update_actor`` only: a round trip of the weights per call
   (:data:`Resident.reloads`), both moves counted in ``state_reload`` and ``state_offload``.
4. ``engine_wake``: ``prepare_for_generation(tags=["weights"])``: level 1 copies the weights
   back host-to-device; level 2 only maps memory (the refit fills it).
5. The refit itself is the ``weight_sync`` phase (:func:`refit_seconds`): every training rank
   exports the whole model in 16-bit Hugging Face layout (Megatron-Bridge ``export_hf_weights``
   all-gathers TP/EP shards and broadcasts each pipeline stage's tensors; verl's FSDP
   ``state_dict`` gathers the shards likewise) and streams it by CUDA IPC into its colocated
   engine, which keeps its own shard. The bytes a GPU receives from others cross NVLink inside
   the node and the network beyond it; the pack of the whole model into the IPC buffers (a read
   and a write of HBM, overlapping the engine's load of its shard) follows.

Host link (:func:`host_link_gb_per_s`, core/speed/host_link.py): PCIe x16 per direction, Gen5
(64 GB/s) from compute capability 9 and on AMD Instinct, Gen4 (32 GB/s) before; NVLink-C2C, 450
GB/s per direction, on a Grace CPU, shared by its superchip's GPUs (GH200 450, GB200 and GB300 225
a GPU: 176 GB/s achieved, as Megatron-LM #6491 measured with every GPU of a tray copying);
unified-memory devices at their memory bandwidth. Achieved: :data:`HOST_EFFICIENCY` of that,
the measured host-to-device share of a PCIe Gen4 x16 link (25 of 32 GB/s, core/speed/train_dp.py).
``rl.host_link_gb_per_s`` replaces the rate.

Pageable optimizer states (``rl.offload_memory: "pageable"``): NeMo RL moves each optimizer
state tensor on its own with ``state[k] = v.to("cpu")`` (``offload_before_refit``, inside the
``prepare_for_generation`` timer) and ``v.to("cuda")`` (``prepare_for_training``, the
``training_prep`` timer): Megatron and DTensor workers at tags v0.3.0 and v0.4.0,
``move_optimizer`` at v0.6.0. The host tensor is new each step and unpinned, so the copy out
first faults its pages in and the CUDA driver stages both directions through a pinned bounce
buffer. Rates measured by dask-cuda (rapidsai/dask-cuda PR #98, 2019, device-to-host spilling):
host allocation about 5 GB/s, transfers without pinned memory 5-6 GB/s against 11-12 GB/s
pinned (:data:`PAGEABLE_ALLOC_BYTES_PER_S`, :data:`PAGEABLE_COPY_BYTES_PER_S`): both set by the
host CPU's page handling and memcpy, not by the link, so taken as they are on a PCIe Gen5 host
(no H100-host figure found). A Grace host reaches pageable memory over NVLink-C2C at about the
pinned rate (vortex-data/vortex PR #7815, GH200: pageable 93 GiB/s, pinned 97): there the link's
rate stands (:func:`pageable_host`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import GPUSpec
from ..speed.host_link import GRACE_GPUS, PCIE_GEN4_X16
from ..speed.host_link import host_link_gb_per_s as host_link_gb_per_s  # read here by RL callers
from ..speed.train_dp import HOST_LINK_BYTES_PER_S

HOST_EFFICIENCY = HOST_LINK_BYTES_PER_S / (PCIE_GEN4_X16 * 1e9)  # 25 of 32 GB/s
# The refit's gather pays per exported tensor beyond its bytes: NeMo RL's refit blog ("NeMo-RL:
# Journey of Optimizing Weight Transfer in Large MoE Models by 10x", 2025-08-12, Table 1)
# measured DeepSeek V3's "policy parameter gather" at 12.2 s (v0.3, EP 64 PP 8) against 3.3 s
# at the speed of light of its bytes, for "over 90 thousand" tensors: (12.2 - 3.3) / 90,000 s,
# 99 us per tensor (a collective, the name and layout conversion and the Python loop each).
EXPORT_SECONDS_PER_TENSOR = (12.2 - 3.3) / 90_000
TRANSITIONS = ("engine_sleep", "state_reload", "state_offload", "engine_wake")
PAGEABLE_ALLOC_BYTES_PER_S = 5e9  # dask-cuda PR #98: "roughly 5 GB/s for host memory allocation"
PAGEABLE_COPY_BYTES_PER_S = 5.5e9  # dask-cuda PR #98: "without pinned memory ... 5-6 GB/s"


@dataclass(frozen=True)
class Resident:
    """Bytes one GPU holds of each thing a transition moves: the engine's weights, the trained
    roles' 16-bit weights and optimizer states, and an offloaded reference's weights (0: none)."""

    engine: int
    weights: int
    optimizer: int
    reference: int
    reloads: int = 1  # times a step the weights come to the GPU and go back (one: NeMo RL's)


@dataclass(frozen=True)
class Transition:
    """One move between phases: its name, bytes per GPU, the link, its rate (GB/s as specified)
    and the seconds at the achieved share of it."""

    name: str
    bytes: int
    link: str
    gb_per_s: float
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "bytes": self.bytes,
            "link": self.link,
            "gb_per_s": self.gb_per_s,
            "seconds": self.seconds,
        }


def transitions(
    r: Resident, sleep_level: int, offload_states: bool, host_gb: float, pageable: bool = False
) -> list[Transition]:
    """The colocated step's host-link moves in the order they run (empty names are kept, at 0 s,
    so every colocated report lists the same four). ``pageable``: the optimizer states go to and
    from pageable host memory (module docstring), the rest over the link."""
    rate = host_gb * 1e9 * HOST_EFFICIENCY
    engine = r.engine if sleep_level == 1 else 0
    # the weights make ``reloads`` round trips, the optimizer states one (used by the update only)
    states = (r.weights * r.reloads + r.optimizer) if offload_states else 0
    moved = {
        "engine_sleep": engine,
        "state_reload": states + r.reference,
        "state_offload": states,
        "engine_wake": engine,
    }
    seconds = {n: b / rate if rate else 0.0 for n, b in moved.items()}
    if pageable and offload_states and rate:
        # the optimizer's share leaves the link's rate: out, its pages faulted in then copied;
        # back, copied through the driver's bounce buffer
        on_link = r.optimizer / rate
        seconds["state_offload"] += r.optimizer / PAGEABLE_ALLOC_BYTES_PER_S
        seconds["state_offload"] += r.optimizer / PAGEABLE_COPY_BYTES_PER_S - on_link
        seconds["state_reload"] += r.optimizer / PAGEABLE_COPY_BYTES_PER_S - on_link
    return [Transition(n, b, "host", host_gb, seconds[n]) for n, b in moved.items()]


def pageable_host(gpu: GPUSpec) -> bool:
    """Whether pageable host memory costs more than the link: a PCIe host; not a Grace CPU's
    NVLink-C2C or a unified-memory device (module docstring)."""
    return not gpu.unified_memory and gpu.id not in GRACE_GPUS


def refit_seconds(
    weight_bytes: float,
    shard_holders: int,
    gpus_per_node: int,
    engine_shard: float,
    links: tuple[float, float, float],
    tensors: int = 0,
) -> float:
    """The colocated refit, seconds: the whole 16-bit model (``weight_bytes``) gathered on every
    GPU from the ``shard_holders`` GPUs that hold its parts, then copied through the IPC buffers
    into the engine. ``links``: achieved bytes/s of (NVLink, one GPU's network link, HBM).
    ``tensors``: the exported model's tensors, each gathered one by one (Megatron-Bridge
    ``export_hf_weights`` yields one Hugging Face tensor at a time, its TP/EP shards all-gathered
    and its pipeline stage broadcast): :data:`EXPORT_SECONDS_PER_TENSOR` each, measured by NeMo
    RL for the gather alone.

    The gather's bytes: a node receives the part held beyond it once, spread over its GPUs'
    network links (NCCL's rings cross each node boundary once per channel, the channels on the
    node's NICs), and each GPU receives all it lacks over NVLink, the two pipelined (the slower
    sets the time). NeMo RL's refit blog (Table 1, DeepSeek V3 EP 64 PP 8 on DGX H100) gives
    the gather's speed of light as 3.3 s: the 1.34 TB model's 63/64 beyond a node through its
    8 x 50 GB/s, as here (the whole model through one GPU's link would be 26 s).

    The copy, from NeMo RL at v0.4.0 and v0.6.0 (``nemo_rl/models/policy/utils.py``
    ``stream_weights_via_ipc_zmq_impl``, ``models/generation/vllm/vllm_backend.py``
    ``update_weights_via_ipc_zmq``): each training rank packs every exported tensor, the whole
    model, into a ping-pong pair of GPU buffers (``pack_tensor``: a read and a write of HBM per
    byte), and its engine rank loads its shard from the other buffer meanwhile (vLLM
    ``load_weights``: read and write of ``engine_shard``); the buffers alternate, so the slower
    of the two, the pack, sets the time."""
    nvlink, network, hbm = links
    holders = max(1, shard_holders)
    node = max(1, gpus_per_node)
    local = min(holders, node)
    lacking = weight_bytes * (holders - 1) / holders
    beyond = weight_bytes * (holders - local) / holders
    seconds = max(lacking / nvlink if nvlink else 0.0, beyond / (network * node) if network else 0.0)
    seconds += tensors * EXPORT_SECONDS_PER_TENSOR
    return seconds + (2 * max(weight_bytes, engine_shard) / hbm if hbm else 0.0)
