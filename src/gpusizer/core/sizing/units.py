"""What a GPU is bought in: the purchasable unit that rounds a sizing's count.

A buyer buys systems: an H100, H200 or B200 SXM comes eight to an HGX/DGX server, an MI300X
eight to a platform, a GB200 72 to an NVL72 rack; cards sold alone (PCIe, consumer and
workstation) go one to four in a box (or eight in a PCIe server), so any count of them is
bought; a Mac or a DGX Spark is one machine with its one GPU. The count a sizing recommends
is the smallest whole number of units that holds the work and meets the targets; the GPUs
beyond the fewest become replicas (serving) or data parallelism (training).

This is the small adapter the sizing uses until the catalog's systems (issue 22,
``sizing/systems.py`` ``purchase_unit``) give each GPU its units: a GPU on a board with a
scale-up fabric (datacenter, interconnect of 100 GB/s or more: NVLink, Infinity Fabric,
Gaudi's RoCE) is bought by the node (``gpus_per_node``); any other GPU, and the user's own
GPUs, one at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.architecture import ceil_div
from ..model.presets import gpu_presets, user_gpus
from ..model.specs import GPUSpec

BOARD_LINK_GB_PER_S = 100.0  # slower than this is PCIe (64 GB/s for Gen5 x16): a card


@dataclass(frozen=True)
class Unit:
    """``size`` GPUs per unit (1: any count is bought), named for the reason line."""

    size: int
    name: str

    def count(self, n: int) -> int:
        """The smallest count of whole units holding at least ``n`` GPUs."""
        return ceil_div(max(1, n), self.size) * self.size

    def next_count(self, n: int) -> int:
        """The smallest count of whole units above ``n``."""
        return self.count(n + 1)


def purchase_unit(gpu_id: str, spec: GPUSpec, gpus_per_node: int) -> Unit:
    """The unit ``gpu_id`` is bought in with nodes of ``gpus_per_node`` (the scenario's node
    shape for its own GPU, else the catalog's)."""
    catalog = gpu_id in gpu_presets() and gpu_id not in user_gpus()
    board = spec.category == "datacenter" and spec.interconnect_gb_per_s >= BOARD_LINK_GB_PER_S
    if catalog and board and gpus_per_node > 1:
        kind = "NVL72 rack" if gpus_per_node == 72 else "server"
        return Unit(gpus_per_node, f"{gpus_per_node}-GPU {kind}")
    return Unit(1, "card" if spec.category in ("consumer", "workstation", "datacenter") else "machine")
