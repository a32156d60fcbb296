"""A GPU's link to host memory, GB/s per direction as specified: PCIe x16, Gen5 (64 GB/s) on
datacenter GPUs of compute capability 9 and later and on AMD Instinct, Gen4 (32 GB/s) before;
GPUs on a Grace CPU (GH200, GB200, GB300) reach host memory over NVLink-C2C, 900 GB/s both
directions = 450 per direction (NVIDIA GH200 and GB200 NVL72 datasheets); unified-memory devices
copy at their memory bandwidth. Read by the colocated RL step's transitions
(core/pipeline/rl_transitions.py) and the KV offload tier (core/serving/kv_offload.py)."""

from __future__ import annotations

from ..model.specs import GPUSpec

PCIE_GEN4_X16, PCIE_GEN5_X16, NVLINK_C2C = 32.0, 64.0, 450.0  # GB/s per direction
# GPUs on a Grace CPU: host memory over NVLink-C2C
GRACE_GPUS = frozenset({"gh200-96gb", "gb200-186gb", "gb300-288gb"})


def host_link_gb_per_s(gpu: GPUSpec) -> float:
    """The GPU's link to host memory, GB/s per direction as specified (module docstring)."""
    if gpu.unified_memory:
        return gpu.hbm_bandwidth_gb_per_s
    if gpu.id in GRACE_GPUS:
        return NVLINK_C2C
    major = int((gpu.compute_capability or "8.0").split(".")[0])
    if gpu.vendor == "AMD" or (gpu.category in ("datacenter", None) and major >= 9) or major >= 12:
        return PCIE_GEN5_X16
    return PCIE_GEN4_X16
