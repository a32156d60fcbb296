"""Where an NVLink domain ends and where a host ends: a node (``hardware.gpus_per_node``) is
the GPUs one NVLink domain joins, 8 on an HGX board, 72 in a GB200/GB300 NVL72 rack
(core/model/presets.py ``nvlink_domain``); a host, the GPUs that share one machine's CPUs, RAM
and PCIe, is the whole board up to 8 GPUs and, in a domain beyond that, one compute tray.
"""

from __future__ import annotations

# GPUs a node beyond which the NVLink domain spans trays (GB200 NVL72): TensorRT-LLM's fused MoE
# takes its all-to-all there (MnnvlMemory.supports_mnnvl()), the gather in an 8-GPU box
MNNVL_NODE = 8
# GPUs of one host in such a domain: a GB200/GB300 NVL72 compute tray holds two superchips of
# two GPUs (18 trays, 72 GPUs: presets/systems/gb200-nvl72.json; NeMo RL's GB200 recipes run
# ``cluster.gpus_per_node: 4``, one tray a host)
NVL_TRAY_GPUS = 4


def host_gpus(gpus_per_node: int) -> int:
    """GPUs of one host (one OS, its RAM and CPUs) in a node of ``gpus_per_node``: the node up
    to :data:`MNNVL_NODE`, else one compute tray (:data:`NVL_TRAY_GPUS`)."""
    return gpus_per_node if gpus_per_node <= MNNVL_NODE else NVL_TRAY_GPUS
