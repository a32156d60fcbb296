"""The links a layout's collectives cross (core/sizing/pace.py): inside a node, and between
nodes, each with a bandwidth per GPU (beta, bytes/s per direction at the scenario's
``compute.interconnect_efficiency``) and a latency per collective step (alpha).

An interim table until the catalog's systems (issue 22) state each system's scale-up link and
network per GPU and the speed issue (issue 20) its latency per link class:

- inside a node: the GPU's ``interconnect_gb_per_s`` (NVLink, Infinity Fabric, PCIe);
  alpha 10 us for a scale-up fabric (NCCL all-reduce of 32 B on 2 A100 SXM: 10.14 us,
  NVIDIA/nccl#583) and 54 us over PCIe (8 B on 8 RTX 3090: 54.18 us, NVIDIA/nccl#1439).
- between nodes: a datacenter board GPU has its own 400 Gb/s NIC (DGX H100/B200: eight
  ConnectX-7 400 Gb/s ports for the compute fabric, NVIDIA DGX H100 user guide): 50 GB/s; a
  PCIe server two 200 Gb/s NICs for its 8 cards (6.25 GB/s per GPU); a desktop, workstation
  or unified-memory machine one 10 GbE port for the box (1.25 GB/s, shared by its GPUs);
  a DGX Spark its 200 GbE port (its ``interconnect_gb_per_s``). Alpha 47 us (NCCL all-reduce
  of 4 B over 2 nodes of 8 H20 with NDR InfiniBand: 47.5 us, NVIDIA/nccl#1244; 45.8 us over
  TCP sockets, NVIDIA/nccl-tests#82).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import GPUSpec

FABRIC_GB_PER_S = 100.0  # faster than any PCIe x16 (64 GB/s Gen5): a scale-up fabric
FABRIC_ALPHA_S, PCIE_ALPHA_S, NETWORK_ALPHA_S = 10e-6, 54e-6, 47e-6
NIC_PER_GPU_GB_PER_S = 50.0  # 400 Gb/s per board GPU
PCIE_SERVER_GB_PER_S = 50.0  # 2 x 200 Gb/s per PCIe server
BOX_ETHERNET_GB_PER_S = 1.25  # 10 GbE per desktop or workstation


@dataclass(frozen=True)
class Link:
    name: str
    bytes_per_s: float
    alpha_s: float


@dataclass(frozen=True)
class Links:
    """A node of ``node`` GPUs: ``intra`` between its GPUs, ``inter`` per GPU to others."""

    node: int
    intra: Link
    inter: Link

    def group(self, size: int, stride: int) -> Link:
        """The slowest link a group of ``size`` ranks ``stride`` apart crosses (ranks are
        numbered node by node)."""
        return self.intra if size * stride <= self.node else self.inter

    def node_crossings(self, span: int) -> int:
        """Node boundaries inside ``span`` consecutive ranks starting a node."""
        return max(0, (span - 1) // self.node)


def links_for(gpu: GPUSpec, node: int, efficiency: float) -> Links:
    """The interim links of ``gpu`` in nodes of ``node`` (``efficiency``: the scenario's
    ``compute.interconnect_efficiency``)."""
    up = gpu.interconnect_gb_per_s
    fabric = up >= FABRIC_GB_PER_S
    intra = Link(
        "NVLink-class fabric" if fabric else "PCIe",
        max(up, 1e-3) * 1e9 * efficiency,
        FABRIC_ALPHA_S if fabric else PCIE_ALPHA_S,
    )
    if gpu.category == "datacenter" and fabric:
        net, name = NIC_PER_GPU_GB_PER_S, "InfiniBand"
    elif gpu.category == "datacenter":
        net, name = PCIE_SERVER_GB_PER_S / max(node, 1), "InfiniBand"
    elif gpu.unified_memory and up > 0:
        net, name = up, "Ethernet"
    else:
        net, name = BOX_ETHERNET_GB_PER_S / max(node, 1), "Ethernet"
    return Links(node, intra, Link(name, net * 1e9 * efficiency, NETWORK_ALPHA_S))
