"""The link inside a node, as ``layout_reason`` names it (core/sizing/reason.py): the GPU's
scale-up fabric (NVLink, Infinity Fabric) or PCIe, as core/speed/collectives.py's
:func:`link` gives it. The speed of every link, between nodes too, is the speed model's
(core/speed/train_rates.py, core/speed/step_model.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import GPUSpec
from ..speed.collectives import Link, link


@dataclass(frozen=True)
class Links:
    """A node of ``node`` GPUs joined by ``intra``."""

    node: int
    intra: Link

    def name(self, ln: Link) -> str:
        return {"nvlink": "NVLink-class fabric", "pcie": "PCIe"}.get(ln.kind, "network")


def links_for(gpu: GPUSpec, node: int) -> Links:
    """The link between the GPUs of a node of ``node`` GPUs."""
    node = max(1, node)
    return Links(node, link(gpu, 2, max(2, node)))
