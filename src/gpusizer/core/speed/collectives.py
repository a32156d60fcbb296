"""Collectives at alpha + bytes / beta for the link they cross (inference TP/EP/PP in
core/speed/step_terms.py; training's TP, DP and PP collectives use the same functions).

A collective over ``n`` ranks costs a latency ``alpha`` per call plus its bytes over the bus
bandwidth ``beta`` (NCCL docs "Performance": busBw = algBw x 2(n-1)/n for all-reduce,
(n-1)/n for all-gather, reduce-scatter and all-to-all). The link is the slowest one the group
crosses: NVLink/NVSwitch (or another scale-up fabric) inside a node when the catalog's
``interconnect_gb_per_s`` says so, PCIe when it is a PCIe card, the network once the group
spans nodes.

- NVLink: ``alpha`` 8 us: vLLM's custom all-reduce on H100 takes 9.1-10.1 us at 512 B and
  8.7-11.8 us at 32 KB for TP 2-8 (sgl-project/sglang PR #2904, "vllm" table; SGLang's own
  3.7-5.9 us); ``beta`` = 0.82 x the catalog's per-direction rate: NCCL reaches "an effective
  NVLink bandwidth of 370GB/s" of the 450 GB/s line rate on H100 (NVIDIA/nccl-tests#212).
- PCIe: ``alpha`` 6.8 + 5.1 x (n - 1) us, through 11.9 us for 2 RTX 4090 (8 B all-to-all, P2P
  off: tinygrad/open-gpu-kernel-modules#17) and 42.6 us for 8 (8 B all-reduce, NCCL tree:
  NVIDIA/nccl#1530); ``beta`` = 0.7 x the catalog's PCIe rate (the product's interconnect
  efficiency); NCCL's ring over more than two PCIe GPUs at most the host-bound bus bandwidth
  measured on 8 x RTX 5090 (PCIe Gen5): 35 GB/s for 4 GPUs, 28 for 8 (NVIDIA/nccl#1639,
  :func:`pcie_bus`).
- Network: ``alpha`` 47 us (2 nodes x 8 H20, NDR, 4 B-1 KB all-reduce: 46-48 us,
  NVIDIA/nccl#1244); ``beta`` 47 GB/s per GPU: "For NDR @ 400Gbps you should see 46-48GB/s
  per NIC" (NVIDIA/nccl-tests#290), one 400 Gb/s NIC per GPU as DGX/HGX H100 and B200 ship.

NCCL's ring inside a node (:func:`nccl_ring_seconds`): a ring collective over ``n`` ranks takes
``steps`` hops (all-reduce 2(n - 1), all-gather and reduce-scatter n - 1), each with a latency,
and NCCL picks per size the fastest of three protocols, as its own cost model does
(NVIDIA/nccl ``src/graph/tuning.cc``, master of June 2026: time = baseLat + steps x hwLat +
bytes / bandwidth): LL (base 6.6 us; per hop 0.6 us over NVLink, 1.0 over PCIe; half the bus
bandwidth, at most ``llMaxBws`` 141 GB/s on Hopper and 282 on Blackwell, 0.38 of NCCL's
effective NVLink rate on both), LL128 (14 us; 1.9 / 2.5 us; 0.92 of it: 120 of 128 bytes) and
Simple (8.4 us; 3.4 / 5.7 us; all of it). So a mid-size message (1-64 MB) runs well below the
link rate. Checked on published NCCL timings on 8 x H100 (tests/core/test_speed_step.py):
vLLM PR #42324's pynccl all-reduce, 1 MiB 25 us, 4 MiB 50, 32 MiB 195, 128 MiB 561 (model 28,
62, 213, 691: NCCL runs the largest on NVLink SHARP, not modelled), all 9 sizes within 25 %;
a 33.5 MB 16-bit all-gather in 125 us (NVIDIA aiconfigurator 0.12's NCCL 2.29 table, a check,
not a fit), model 111 us; on 8 x B200 the same gather's 114 us is not reached (70 us: NCCL's
own cost model is as short there). The network keeps its measured
alpha and beta (its figures are whole multi-node runs). Engines' own all-reduce kernels for
decode (vLLM's custom all-reduce, TensorRT-LLM's one-shot / two-shot) are not NCCL: the step's
tensor-parallel all-reduce keeps alpha + bytes / beta (``library="custom"``) where the engine's
release runs its kernel for the group and the message (core/registry/all_reduce.py), NCCL's
ring elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

LinkKind = Literal["none", "nvlink", "pcie", "network"]

us = 1e-6
NVLINK_ALPHA = 8.0 * us
NVLINK_EFFICIENCY = 370 / 450
PCIE_ALPHA = 6.8 * us
PCIE_ALPHA_PER_RANK = 5.1 * us
PCIE_EFFICIENCY = 0.7
NETWORK_ALPHA = 47.0 * us
NETWORK_BETA = 47e9  # bytes/s per GPU
# NCCL's ring protocols LL, LL128, Simple (tuning.cc): base latency (us), latency per hop (us)
# per scale-up link, LL128's share of the bus bandwidth (NVLink only: NCCL enables it there)
NCCL_BASE_US = (6.6, 14.0, 8.4)
NCCL_HOP_US: dict[str, tuple[float, float, float]] = {"nvlink": (0.6, 1.9, 3.4), "pcie": (1.0, 2.5, 5.7)}
NCCL_LL128_SHARE = 0.92
# LL: half the bus bandwidth, over NVLink capped at llMaxBws (141 GB/s of Hopper's 370 effective)
NCCL_LL_SHARE = {"nvlink": 141 / 370, "pcie": 0.5}
# NCCL's ring bus bandwidth over PCIe is bound by the host (CPU root complex and memory) once
# the group spans more than a pair: all_reduce_perf on 8 x RTX 5090 (PCIe Gen5 x16, 2 x Xeon
# 8480+, ACS off), 1-8 GB messages, "8 GPU max performance: bwbus 28GB/s, 4GPU ... 35GB/s";
# NCCL's maintainer: "On PCI systems, the performance you get is usually determined by the
# bandwidth your CPU and memory can deliver" (NVIDIA/nccl#1639). (ranks up to, bytes/s)
NCCL_PCIE_HOST_BUS = ((2, float("inf")), (4, 35e9), (8, 28e9))
# Faster than any PCIe generation: a scale-up fabric (NVLink, Infinity Fabric, Gaudi's links)
SCALE_UP_GB_PER_S = 100.0


class Device(Protocol):
    """What the links read of a GPU (core/model/specs.GPUSpec)."""

    @property
    def interconnect_gb_per_s(self) -> float: ...


@dataclass(frozen=True)
class Link:
    """The link a collective crosses: its kind, latency per call (s) and bus bandwidth
    (bytes/s per GPU)."""

    kind: LinkKind
    alpha: float
    beta: float

    def latency(self, ranks: int) -> float:
        """``alpha`` for a group of ``ranks`` (PCIe's grows with the ranks)."""
        if self.kind == "pcie":
            return self.alpha + PCIE_ALPHA_PER_RANK * max(0, ranks - 2)
        return self.alpha


NO_LINK = Link("none", 0.0, 0.0)


def link(gpu: Device, ranks: int, gpus_per_node: int, efficiency: float | None = None) -> Link:
    """The slowest link a group of ``ranks`` GPUs crosses when it fills nodes of
    ``gpus_per_node`` in order (``efficiency``: a user's share of the link rate, replacing the
    measured one)."""
    if ranks <= 1:
        return NO_LINK
    rate = gpu.interconnect_gb_per_s * 1e9
    if ranks > max(1, gpus_per_node) or rate <= 0:
        return Link("network", NETWORK_ALPHA, NETWORK_BETA * (efficiency / 0.7 if efficiency else 1.0))
    if gpu.interconnect_gb_per_s >= SCALE_UP_GB_PER_S:
        return Link("nvlink", NVLINK_ALPHA, rate * (efficiency or NVLINK_EFFICIENCY))
    return Link("pcie", PCIE_ALPHA + PCIE_ALPHA_PER_RANK, rate * (efficiency or PCIE_EFFICIENCY))


def pcie_bus(ln: Link, ranks: int) -> float:
    """The bus bandwidth (bytes/s) NCCL's ring reaches over ``ln`` for a group of ``ranks``:
    the link's own, over PCIe at most the host-bound figure of the group's size
    (``NCCL_PCIE_HOST_BUS``; a Gen4 card's link rate is below it already)."""
    if ln.kind != "pcie":
        return ln.beta
    cap = next((b for n, b in NCCL_PCIE_HOST_BUS if ranks <= n), NCCL_PCIE_HOST_BUS[-1][1])
    return min(ln.beta, cap)


def host_shared(ln: Link, flows: int) -> Link:
    """``ln`` as it runs while ``flows`` GPUs of the node move data through the host at once: over
    PCIe its bus bandwidth at most the host-bound figure for that many GPUs
    (``NCCL_PCIE_HOST_BUS``), since the ring's bandwidth is "determined by the bandwidth your
    CPU and memory can deliver ... with 8 GPUs, that's 8 flows at 28GB/s" (NVIDIA/nccl#1639),
    whichever groups the flows belong to. A pipeline's stages run the same layers on their own
    micro-batches in step (one micro-batch a stage in flight: TensorRT-LLM
    tensorrt_llm/_torch/pyexecutor/py_executor.py ``self.num_micro_batches = self.dist.pp_size``;
    core/speed/step.py's pipeline model), so every stage's group runs its collectives at the same
    time as the others' (the serving step, core/speed/step_model.py). Other links unchanged."""
    if ln.kind != "pcie" or flows <= 2:
        return ln
    cap = next((b for n, b in NCCL_PCIE_HOST_BUS if flows <= n), NCCL_PCIE_HOST_BUS[-1][1])
    return Link(ln.kind, ln.alpha, min(ln.beta, cap))


def nccl_ring_seconds(ln: Link, bus_bytes: float, steps: int, ranks: int = 2) -> float:
    """NCCL's ring over a scale-up link (module docstring): the fastest protocol's base
    latency + ``steps`` hops + ``bus_bytes`` (the bytes each rank moves: the algorithm's factor
    times the tensor) at that protocol's share of the bus bandwidth (:func:`pcie_bus` for a
    group of ``ranks``)."""
    beta = pcie_bus(ln, ranks)
    hops = NCCL_HOP_US[ln.kind]
    shares = (NCCL_LL_SHARE[ln.kind], NCCL_LL128_SHARE if ln.kind == "nvlink" else 0.0, 1.0)
    best = float("inf")
    for base, hop, share in zip(NCCL_BASE_US, hops, shares, strict=True):
        if share > 0:
            best = min(best, (base + steps * hop) * us + bus_bytes / (beta * share))
    return best


def all_reduce_seconds(ln: Link, nbytes: float, ranks: int, library: str = "nccl") -> float:
    """One all-reduce of ``nbytes`` (the tensor each rank holds) over ``ranks``; ``library``
    "custom": an engine's own all-reduce kernel (alpha + bytes / beta), else NCCL's ring."""
    if ranks <= 1 or ln.beta <= 0:
        return 0.0
    bus = 2 * (ranks - 1) / ranks * nbytes
    if library == "nccl" and ln.kind in NCCL_HOP_US:
        return nccl_ring_seconds(ln, bus, 2 * (ranks - 1), ranks)
    return ln.latency(ranks) + bus / ln.beta


def all_gather_seconds(ln: Link, nbytes: float, ranks: int) -> float:
    """One all-gather (or reduce-scatter) whose full, gathered tensor is ``nbytes``."""
    if ranks <= 1 or ln.beta <= 0:
        return 0.0
    bus = (ranks - 1) / ranks * nbytes
    if ln.kind in NCCL_HOP_US:
        return nccl_ring_seconds(ln, bus, ranks - 1, ranks)
    return ln.latency(ranks) + bus / ln.beta


def all_to_all_seconds(ln: Link, nbytes: float, ranks: int) -> float:
    """One all-to-all in which each rank holds ``nbytes`` to spread over the group: its sends
    to every peer go at once (no ring of hops), alpha + bytes / beta."""
    if ranks <= 1 or ln.beta <= 0:
        return 0.0
    return ln.latency(ranks) + (ranks - 1) / ranks * nbytes / ln.beta


def send_seconds(ln: Link, nbytes: float) -> float:
    """A point-to-point send (pipeline stages)."""
    if ln.beta <= 0:
        return 0.0
    return ln.alpha + nbytes / ln.beta
