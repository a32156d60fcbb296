"""Achieved rates and links the training step model reads (core/speed/train_step.py).

PROVISIONAL, kept apart on purpose: issue 20's serving half owns "achieved matmul rate per GPU
x dtype" and "collective time per link class" (core/speed rates and collectives). The training
step calls only :func:`matmul_rate`, :func:`attention_rate`, :func:`memory_rate`,
:func:`group_link` and :func:`collective_seconds`, so moving to theirs is an import change.

Sources:

- Matmul: Maximum Achievable Matmul FLOPS (MAMF), stas00/ml-engineering
  ``compute/accelerator/README.md`` "Maximum Achievable Matmul FLOPS comparison table" (BF16 and
  FP8 ``torch.matmul``, mean of 100 iterations after 50 warm-up, best shape of a brute-force
  search; torch 2.5-2.10). A catalog GPU in the table takes its measured TFLOPS; another takes
  the median efficiency (MAMF / datasheet) of its vendor's rows times its own catalog peak.
- Attention (FLOPs of Q·Kᵀ and P·V, backward counted as 2.5x forward: five matmuls to two):
  FlashAttention-2 as PyTorch SDPA ships it reaches 35% of the H100's BF16 peak (Shah et al.
  2024, FlashAttention-3, arXiv 2407.08608, abstract) and 310-322 TFLOPS/s backward at head dim
  128 and 4k-16k tokens (its Fig. "Attention backward speed", H100 SXM5): 0.32 of 989. On A100
  FA2 reaches 50-73% forward, less backward (Dao 2023, arXiv 2307.08691, abstract and §4.1):
  0.50. cuDNN fused attention (Transformer Engine, Megatron-LM) on Hopper: 499-518 TFLOPS/s
  backward in the same FA3 figure: 0.50.
- HBM: streaming elementwise kernels reach about 0.8 of the datasheet bandwidth (the decode
  and copy fractions in /work/research/speed/mechanisms.md §3: 74-88%).
- Links: NCCL ring bus bandwidth is about 82% of the NVLink line rate ("450GB/s is the line
  rate. With the protocol overhead (~20%) NCCL can get an effective NVLink bandwidth of
  370GB/s", NVIDIA/nccl-tests#212); an NDR 400 Gb/s NIC gives 46-48 GB/s (same thread: 0.94).
  Small-message latency (alpha): one-shot all-reduce inside NVLink about 10 µs at 8 GPUs
  (sgl-project/sglang PR #2904, vLLM custom all-reduce, 512 B), NCCL over 8 PCIe GPUs 42.6 µs
  (NVIDIA/nccl#1530), two nodes over InfiniBand 46-48 µs (NVIDIA/nccl#1244).
- Network per GPU when the scenario gives none: 400 Gb/s per GPU on Hopper/Blackwell and MI300
  platforms (DGX H100/B200: one ConnectX-7 per GPU; torchtitan's and Llama 3's clusters:
  "400 Gb/s per GPU"), 200 Gb/s on A100 (DGX A100: ConnectX-6 HDR per GPU), 100 Gb/s
  elsewhere (a 100 GbE NIC: "12.2 GB/s ... is as good as you can get", NVIDIA/nccl-tests#29).
- A group crossing nodes with k of its ranks in each node moves its ring traffic over k NICs
  per node: bus bandwidth min(NVLink, k x NIC) (2 nodes x 8 A100 with 4 x 200 Gb: 86 GB/s,
  NVIDIA/nccl-tests#175).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import median

from ..model.specs import GPUSpec
from .roofline import peak_tflops

# Measured MAMF, TFLOPS: catalog id -> {dtype: TFLOPS} (table rows named in the docstring).
MAMF_TFLOPS: dict[str, dict[str, float]] = {
    "a100-sxm-80gb": {"bf16": 271.2},
    "a100-sxm-40gb": {"bf16": 271.2},
    "a100-pcie-80gb": {"bf16": 252.9},
    "h100-sxm-80gb": {"bf16": 794.5, "fp8": 1402.6},
    "h200-141gb": {"bf16": 794.5, "fp8": 1453.4},  # "H200 is the same" (BF16 row note)
    "gh200-96gb": {"bf16": 828.6, "fp8": 1535.0},
    "b200-192gb": {"bf16": 1745.0, "fp8": 3432.5},
    "b300-288gb": {"bf16": 1769.0, "fp8": 3353.3},
    "gb200-186gb": {"bf16": 1822.0, "fp8": 3615.6},
    "mi300x-192gb": {"bf16": 668.4},
    "mi325x-256gb": {"bf16": 784.9},
    "mi355x-288gb": {"bf16": 1565.0},
    "gaudi-2-96gb": {"bf16": 418.7, "fp8": 826.5},
    "gaudi-3-128gb": {"bf16": 1243.0, "fp8": 1289.5},
}
# MAMF / datasheet of the same table's rows, per vendor and dtype (the fallback's medians).
_EFFICIENCY_ROWS: dict[tuple[str, str], tuple[float, ...]] = {
    ("NVIDIA", "bf16"): (0.869, 0.838, 0.811, 0.803, 0.786, 0.776, 0.729),
    ("NVIDIA", "fp8"): (0.776, 0.763, 0.745, 0.734, 0.723, 0.709),
    ("AMD", "bf16"): (0.680, 0.604, 0.514),
    ("Intel", "bf16"): (0.969, 0.741),
    ("Intel", "fp8"): (0.955, 0.769),
}
_ALL_ROWS = tuple(e for rows in _EFFICIENCY_ROWS.values() for e in rows)

# Attention kernels: share of the BF16 dense peak, by kernel and compute-capability major.
_ATTENTION: dict[str, dict[int, float]] = {
    "flash2": {8: 0.50, 9: 0.32, 10: 0.32, 12: 0.32},
    "cudnn": {8: 0.50, 9: 0.50, 10: 0.50, 12: 0.50},
}
_ATTENTION_TO_MATMUL = 0.50 / 0.869  # A100: FA2 share over MAMF share, for other vendors
HBM_EFFICIENCY = 0.8
NCCL_LINE_EFFICIENCY = 370.0 / 450.0
NIC_EFFICIENCY = 0.94


@dataclass(frozen=True)
class Link:
    """One class of link as a collective sees it: bus bandwidth (bytes/s per GPU) and the
    latency of one collective (seconds)."""

    kind: str  # "nvlink" | "pcie" | "network"
    bus_bandwidth: float
    latency: float


def _major(gpu: GPUSpec) -> int:
    cc = gpu.compute_capability
    return int(cc.split(".")[0]) if cc else 0


def matmul_rate(gpu: GPUSpec, dtype: str) -> float:
    """FLOP/s large GEMMs reach on this GPU in ``dtype`` (the MAMF table; see the docstring)."""
    measured = MAMF_TFLOPS.get(gpu.id, {}).get(dtype)
    if measured is not None:
        return measured * 1e12
    used, peak = peak_tflops(gpu, dtype)
    rows = _EFFICIENCY_ROWS.get((gpu.vendor, "fp8" if used in ("fp8", "int8") else "bf16"))
    return median(rows or _ALL_ROWS) * peak * 1e12


def attention_rate(gpu: GPUSpec, kernel: str) -> float:
    """FLOP/s of a fused attention kernel (``flash2``: PyTorch SDPA's FlashAttention-2;
    ``cudnn``: cuDNN / Transformer Engine fused attention), forward and backward together."""
    bf16 = peak_tflops(gpu, "bf16")[1] * 1e12
    share = _ATTENTION[kernel].get(_major(gpu))
    if share is None:
        return _ATTENTION_TO_MATMUL * matmul_rate(gpu, "bf16")
    return share * bf16


def memory_rate(gpu: GPUSpec) -> float:
    """Bytes/s streaming elementwise kernels reach in HBM."""
    return gpu.hbm_bandwidth_gb_per_s * 1e9 * HBM_EFFICIENCY


def network_gb_per_s(gpu: GPUSpec) -> float:
    """Network bandwidth per GPU and direction (GB/s) when the scenario does not give one."""
    if gpu.category in ("datacenter", None) and (_major(gpu) >= 9 or gpu.vendor == "AMD"):
        return 50.0
    if gpu.category in ("datacenter", None) and _major(gpu) == 8:
        return 25.0
    return 12.5


def group_link(gpu: GPUSpec, ranks: int, stride: int, gpus_per_node: int, network_gb: float) -> Link:
    """The link a collective of ``ranks`` GPUs, ``stride`` GPUs apart, crosses."""
    nvlink = gpu.interconnect_gb_per_s >= 100
    nic = network_gb * 1e9 * NIC_EFFICIENCY
    # a GPU listing no interconnect reaches its neighbours only through the host's network
    own = gpu.interconnect_gb_per_s * 1e9 * NCCL_LINE_EFFICIENCY or nic
    intra = Link("nvlink" if nvlink else "pcie", own, 10e-6 if nvlink else 42.6e-6)
    per_node = max(1, min(ranks, gpus_per_node // max(1, stride)))
    if ranks <= per_node:
        return intra
    return Link("network", min(intra.bus_bandwidth, per_node * nic), 47e-6)


def collective_seconds(kind: str, nbytes: float, ranks: int, link: Link) -> float:
    """Ring time of one collective on ``nbytes`` (the whole tensor): all-reduce moves
    2(n-1)/n of it per GPU, all-gather and reduce-scatter (n-1)/n (NCCL docs, "Performance":
    busBw = algBw x 2(n-1)/n), plus the link's latency."""
    if ranks <= 1 or nbytes <= 0:
        return 0.0
    share = (2.0 if kind == "all_reduce" else 1.0) * (ranks - 1) / ranks
    return link.latency + share * nbytes / link.bus_bandwidth
