"""The link inside a node, as ``layout_reason`` names it (core/sizing/reason.py): the GPU's
scale-up fabric (NVLink, Infinity Fabric) or PCIe, as core/speed/collectives.py's
:func:`link` gives it. The speed of every link, between nodes too, is the speed model's
(core/speed/train_rates.py, core/speed/step_model.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import GPUSpec
from ..speed.collectives import Link, link

# A scale-up link named by what the catalog says it is (``interconnect_kind``): an AMD or Intel
# box is no NVLink. Gaudi's scale-up is its on-chip RoCE ports (the gaudi-3-128gb preset's
# notes: 21 of its 24 200 GbE ports link the 8 cards of an HLS-Gaudi3 node).
FABRICS = {
    "nvlink": "NVLink",
    "nvlink_c2c": "NVLink-C2C",
    "infinity_fabric": "Infinity Fabric",
    "ethernet": "on-chip RoCE Ethernet",
}


@dataclass(frozen=True)
class Links:
    """A node of ``node`` GPUs joined by ``intra``; ``fabric``: the words for its scale-up link."""

    node: int
    intra: Link
    fabric: str = "scale-up fabric"

    def name(self, ln: Link) -> str:
        return {"nvlink": self.fabric, "pcie": "PCIe"}.get(ln.kind, "network")


def links_for(gpu: GPUSpec, node: int) -> Links:
    """The link between the GPUs of a node of ``node`` GPUs."""
    node = max(1, node)
    fabric = FABRICS.get(gpu.interconnect_kind or "", "scale-up fabric")
    return Links(node, link(gpu, 2, max(2, node)), fabric)
