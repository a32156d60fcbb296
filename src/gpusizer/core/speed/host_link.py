"""A GPU's link to host memory, GB/s per direction as specified: PCIe x16, Gen5 (64 GB/s) on
datacenter GPUs of compute capability 9 and later and on AMD Instinct, Gen4 (32 GB/s) before;
GPUs on a Grace CPU (GH200, GB200, GB300) reach host memory over NVLink-C2C, 900 GB/s both
directions = 450 per direction (NVIDIA GH200 and GB200 NVL72 datasheets); unified-memory devices
copy at their memory bandwidth. Read by the colocated RL step's transitions
(core/pipeline/rl_transitions.py) and the KV offload tier (core/serving/kv_offload.py).

One Grace's C2C serves every GPU of its superchip (:data:`GPUS_PER_GRACE`): one on a GH200, two on
a GB200 or GB300 ("one GB200 superchip = 1 Grace CPU + 2 GPUs", the catalog's GB200 entry), so a
Blackwell GPU's share is 225 GB/s a direction. Measured (NVIDIA/Megatron-LM issue #6491, 2026-08,
nvbandwidth's copy-engine tests on one tray): 4 x GB300 CPU->GPU 211.5 and GPU->CPU 193.5 GB/s a GPU
alone, 168.6-175.4 (``host_to_all``) and 181.9-183.8 (``all_to_host``) a GPU with all four copying
at once, "only 176 GB/s on GB200"; 4 x GH200 CPU->GPU 411.6-421.1 a GPU. The RL moves run on every
GPU of a tray together, the ``all`` case: 225 GB/s at the links' achieved share
(core/pipeline/rl_transitions.py ``HOST_EFFICIENCY``, 0.78) is 176 GB/s; no number here is solved
from those figures."""

from __future__ import annotations

from ..model.specs import GPUSpec

PCIE_GEN4_X16, PCIE_GEN5_X16, NVLINK_C2C = 32.0, 64.0, 450.0  # GB/s per direction
# GPUs on a Grace CPU, host memory over NVLink-C2C: the GPUs of a superchip that share one Grace's
# C2C (module docstring)
GPUS_PER_GRACE = {"gh200-96gb": 1, "gb200-186gb": 2, "gb300-288gb": 2}
GRACE_GPUS = frozenset(GPUS_PER_GRACE)


def host_link_gb_per_s(gpu: GPUSpec) -> float:
    """The GPU's link to host memory, GB/s per direction as specified (module docstring)."""
    if gpu.unified_memory:
        return gpu.hbm_bandwidth_gb_per_s
    if gpu.id in GRACE_GPUS:  # each GPU's share of its superchip's C2C
        return NVLINK_C2C / GPUS_PER_GRACE[gpu.id]
    major = int((gpu.compute_capability or "8.0").split(".")[0])
    if gpu.vendor == "AMD" or (gpu.category in ("datacenter", None) and major >= 9) or major >= 12:
        return PCIE_GEN5_X16
    return PCIE_GEN4_X16
