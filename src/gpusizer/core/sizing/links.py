"""The links a training layout's collectives cross (core/sizing/pace.py): inside a node and
between nodes, as the speed model's collectives see them (core/speed/collectives.py: alpha
per call, beta per GPU, NCCL's bus-bandwidth factors).

- Inside a node: the GPU's scale-up link (NVLink, Infinity Fabric) or PCIe, as
  :func:`collectives.link` gives it.
- Between nodes: the catalog's ``network_gb_per_s`` (issue 22: the system's scale-out per
  GPU, 400 Gb/s InfiniBand on an HGX H100, Thunderbolt 5 on a Mac) at the network's alpha.
  A card the catalog states no network for sits in a desktop or workstation with one 10 GbE
  port (1.25 GB/s, shared by its cards; a datacenter PCIe server has two 200 Gb/s NICs for
  8 cards): where nodes of such cards must talk, Ethernet sets the pace.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import GPUSpec
from ..speed.collectives import NETWORK_ALPHA, Link, link

BOX_ETHERNET_GB_PER_S = 1.25  # 10 GbE per desktop or workstation
PCIE_SERVER_GB_PER_S = 50.0  # 2 x 200 Gb/s per datacenter PCIe server


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

    def name(self, ln: Link) -> str:
        return {"nvlink": "NVLink-class fabric", "pcie": "PCIe"}.get(ln.kind, "network")


def links_for(gpu: GPUSpec, node: int, efficiency: float | None = None) -> Links:
    """The links of ``gpu`` in nodes of ``node`` GPUs (``efficiency``: a user's share of the
    link rates, as ``compute.interconnect_efficiency`` set by hand; None: the measured)."""
    node = max(1, node)
    intra = link(gpu, min(2, node), node, efficiency) if node > 1 else link(gpu, 2, 2, efficiency)
    net = gpu.network_gb_per_s
    if net is None:
        net = (PCIE_SERVER_GB_PER_S if gpu.category == "datacenter" else BOX_ETHERNET_GB_PER_S) / node
    # NCCL reaches 46-48 GB/s of a 400 Gb/s NIC (NVIDIA/nccl-tests#290): 0.94 of its rate
    return Links(node, intra, Link("network", NETWORK_ALPHA, net * 1e9 * (efficiency or 0.94)))
