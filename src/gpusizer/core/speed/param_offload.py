"""Parameter offload (``parallelism.offload_parameters``): the sharded weights live in host RAM
and cross the GPU's host link before each pass that uses them.

What moves, read at the sources:

- PyTorch FSDP ``CPUOffload(offload_params=True)`` (torch 2.1-2.2, the stack Answer.AI's
  fsdp_qlora ran; ``torch/distributed/fsdp/_flat_param.py`` and ``_runtime_utils.py``): a unit's
  flat-parameter shard lives on the CPU (``_local_shard``); ``_unshard`` first runs
  ``handle.pre_unshard()`` on the ``pre_unshard_stream``, which copies the shard host-to-device
  (``flat_param_to(self.device, non_blocking=True)``, or ``_use_low_precision_shard`` under a
  mixed-precision ``param_dtype``), then all-gathers it on the unshard stream. Both run beside
  the compute stream, so the next unit's copy hides behind this unit's compute
  (``BACKWARD_PRE`` prefetch in the backward; the CPU running ahead under ``limit_all_gathers``
  in the forward). The unit is resharded after its forward (``FULL_SHARD``), so the backward
  copies it again; under reentrant activation checkpointing the recompute re-gathers each unit
  too (docs/evidence/training.md, the FSDP-QLoRA section), so a fully recomputed micro-batch
  copies each shard three times. The reduced gradient shard is copied device-to-host and the
  optimizer steps on the CPU (``CPUOffload`` docstring: "this offloads gradients to CPU as well,
  meaning that the optimizer step runs on CPU"), as ``offload_optimizer`` already prices
  (core/speed/train_dp.py ``cpu_optimizer_seconds``); the updated weights stay in host RAM, so
  that step uploads none.
- DeepSpeed ZeRO-3 ``offload_param`` (ZeRO-Infinity, Rajbhandari et al. 2021, arXiv
  2104.07857, §5-6): parameters are fetched to the GPU before each module's forward and backward
  (and the recompute's forward), each rank fetching its own partition over its own PCIe link
  ("bandwidth-centric partitioning": the aggregate host bandwidth grows with the GPUs) and then
  all-gathering; an overlap-centric design prefetches the next modules' parameters during the
  current compute.

So per micro-batch each GPU moves its shard of every layer's weights, in their stored dtype (NF4
for a QLoRA base: ``base_weight_dtype``), once per pass that runs the layer (forward; recompute;
backward), over its host link at the catalog's rate (core/speed/host_link.py) times the achieved
share measured for a Gen4 x16 link (25 of 32 GB/s, ``HOST_LINK_BYTES_PER_S``). Each layer's copy
hides behind one layer's compute of the same pass; what it cannot hide is exposed, plus the first
layer's copy: the pass takes at least max(compute, transfer). Not modelled: GPUs that share one
host link (a PCIe switch, x8/x8 boards), and the all-gather that, without peer-to-peer, crosses
the same link (core/speed/train_dp.py prices it on its own link).
"""

from __future__ import annotations

from typing import NamedTuple

from ..model.specs import GPUSpec, Scenario
from .host_link import PCIE_GEN4_X16, host_link_gb_per_s
from .train_dp import HOST_LINK_BYTES_PER_S

# the achieved share of a link's specified rate, measured on PCIe Gen4 x16 (train_dp.py)
HOST_EFFICIENCY = HOST_LINK_BYTES_PER_S / (PCIE_GEN4_X16 * 1e9)


class OffloadedLayers(NamedTuple):
    """One GPU's layers under parameter offload and the compute their copies hide behind."""

    layers: int  # layers on the stage
    layer_bytes: float  # one layer's weights on one GPU before data-parallel sharding, bytes
    ranks: int  # data-parallel ranks the weights are sharded over (ZeRO-3)
    forward: float  # seconds of one layer's forward compute, one micro-batch
    backward: float  # seconds of one layer's backward (with its recompute), one micro-batch
    microbatches: int


def host_bytes_per_s(gpu: GPUSpec) -> float:
    """Bytes per second one GPU achieves host-to-device (module docstring)."""
    return host_link_gb_per_s(gpu) * 1e9 * HOST_EFFICIENCY


def fetches(s: Scenario) -> int:
    """Copies of each weight shard a micro-batch makes: forward and backward, and the recompute's
    forward under full recompute (selective recompute reruns no weight's matmul)."""
    return 3 if s.parallelism.recompute == "full" else 2


def shard_bytes(s: Scenario, g: OffloadedLayers) -> float:
    """Bytes of one layer's weights one GPU copies up: its ZeRO-3 shard (the whole layer's share
    of the model-parallel split at a lower stage, where every rank holds it all)."""
    ranks = g.ranks if s.parallelism.zero_stage >= 3 else 1
    return g.layer_bytes / max(1, ranks)


def offload_seconds(s: Scenario, gpu: GPUSpec, g: OffloadedLayers) -> float:
    """Exposed seconds one step spends copying offloaded weights up (0 without
    ``offload_parameters``): per micro-batch, each layer's forward copy beyond its forward
    compute, its backward's copies (recompute's and backward's) beyond its backward compute, and
    the first copy, which nothing hides."""
    if not s.parallelism.offload_parameters or g.layers <= 0:
        return 0.0
    one = shard_bytes(s, g) / host_bytes_per_s(gpu)
    back = one * (fetches(s) - 1)
    per_micro = g.layers * (max(0.0, one - g.forward) + max(0.0, back - g.backward)) + one
    return per_micro * max(1, g.microbatches)


def transfer_seconds(s: Scenario, gpu: GPUSpec, g: OffloadedLayers) -> float:
    """Seconds of all one step's copies, hidden or not (the transfer the step is at least)."""
    if not s.parallelism.offload_parameters:
        return 0.0
    one = shard_bytes(s, g) / host_bytes_per_s(gpu)
    return one * fetches(s) * max(1, g.layers) * max(1, g.microbatches)
