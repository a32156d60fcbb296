"""Achieved rates and links the training step model reads (core/speed/train_step.py).

Links and collectives are core/speed/collectives.py's (alpha + bytes / beta per link class,
shared with the inference step); this module adds what training needs beyond one contiguous
group: groups strided across nodes (data parallelism outside TP) and the network a scenario
names. The matmul and attention rates are training's own: large GEMMs at the MAMF table's
shares (core/speed/rates.py's ``vendor`` shares are the inference kernels'), attention as
forward and backward of the kernel the framework calls.

Sources:

- Matmul: Maximum Achievable Matmul FLOPS (MAMF), stas00/ml-engineering
  ``compute/accelerator/README.md`` "Maximum Achievable Matmul FLOPS comparison table" (BF16 and
  FP8 ``torch.matmul``, mean of 100 iterations after 50 warm-up, best shape of a brute-force
  search; torch 2.5-2.10). A catalog GPU in the table takes its measured TFLOPS; another takes
  the median efficiency (MAMF / datasheet) of its vendor's rows times its own catalog peak.
  The table has no FP8 row for AMD Instinct: the MI300X's FP8 rate is Microsoft Azure's
  hipBLASLt benchmark on an ND MI300X v5 VM (AI-benchmarking-guide
  ``Azure_Results/ND_MI300X_v5_results.md``, yosoyjay fork @a8263ef: "GEMM HipBLASLt ... random
  initialization ... FP8, and 10,000 warmup iterations", best of its square and model shapes
  1,222.9 TFLOPS at 8192^3; 0.468 of the 2,614.9 datasheet peak), the AMD FP8 row of the
  efficiency medians (the MI355X); docs/evidence/speed.md section 42. The MI325X's FP8 rate is
  AMD's own Max-Achievable FLOPs (ROCm/rocm-blogs ``blogs/software-tools-optimization/
  measuring-max-achievable-flops-part2/README.md`` @8e011952, Table 1: hipblaslt-bench at
  4096 x 3648 x 32896, hipBLASLt db8e93b, trig-float data, thermally stable, cold caches,
  1,519 TFLOPS at a 1,464 MHz median clock); the same table's MI300X row, 1,273, is within 4 %
  of Azure's 1,222.9. The MI325X runs the MI300X's silicon at 1000 W instead of 750 W, so it
  holds a higher clock under dense GEMMs (1,464 against 1,230 MHz): the MI300X's efficiency
  times the MI325X's peak (1,224) misses that. Its BF16 stays the MAMF row (784.9; AMD's MAF
  is 843); docs/evidence/speed.md, the AMD training section. The Intel efficiency rows are
  Gaudi's; the Arc A770's BF16 is the same benchmark run on the card (stas00/ml-engineering
  PR #107, "validated on Intel Arc A770": ``mamf-finder.py --m 4096 --n 4096 --k_range 256
  4096 256``, torch 2.7.0+xpu, mean 91.0 TFLOPS at its best shape 4096 x 4096 x 2048, max
  92.9), 0.66 of its 137.6 XMX peak where Gaudi's median gave 117.6; a square-GEMM benchmark
  on torch 2.7.0+xpu reached 85.1 (zzc0721/torch-performance-test-data#182, 10240^2).
- Attention (FLOPs of Q·Kᵀ and P·V, backward counted as 2.5x forward: five matmuls to two):
  FlashAttention-2 as PyTorch SDPA ships it reaches 35% of the H100's BF16 peak (Shah et al.
  2024, FlashAttention-3, arXiv 2407.08608, abstract) and 310-322 TFLOPS/s backward at head dim
  128 and 4k-16k tokens (its Fig. "Attention backward speed", H100 SXM5): 0.32 of 989. On A100
  FA2 reaches 50-73% forward, less backward (Dao 2023, arXiv 2307.08691, abstract and §4.1):
  0.50. cuDNN fused attention (Transformer Engine, Megatron-LM) on Hopper: 499-518 TFLOPS/s
  backward in the same FA3 figure: 0.50.
- HBM: streaming elementwise kernels reach about 0.8 of the datasheet bandwidth (the decode
  and copy fractions in /work/research/speed/mechanisms.md §3: 74-88%).
- Links: core/speed/collectives.py (NVLink 0.82 of the line rate and 8 µs, PCIe 0.7 and
  6.8 + 5.1 x (n - 1) µs, the network 47 µs and 47 GB/s per 400 Gb/s NIC).
- Network per GPU when the scenario gives none: 400 Gb/s per GPU on Hopper/Blackwell and MI300
  platforms (DGX H100/B200: one ConnectX-7 per GPU; torchtitan's and Llama 3's clusters:
  "400 Gb/s per GPU"), 200 Gb/s on A100 (DGX A100: ConnectX-6 HDR per GPU), Gaudi's own
  scale-out ports (3 of each card's 24 Ethernet ports: 3 x 100 GbE on Gaudi 2, 3 x 200 GbE on
  Gaudi 3: Intel Gaudi 2 / Gaudi 3 white papers), 100 Gb/s elsewhere (a 100 GbE NIC: "12.2
  GB/s ... is as good as you can get", NVIDIA/nccl-tests#29). The catalog's
  ``network_gb_per_s`` (its system's scale-out per GPU) comes first; a consumer or
  workstation card the catalog gives none sits in a desktop or workstation with one 10 GbE
  port shared by its cards (consumer scale-outs pay for their network).
- A group crossing nodes with k of its ranks in each node moves its ring traffic over k NICs
  per node: bus bandwidth min(NVLink, k x NIC) (2 nodes x 8 A100 with 4 x 200 Gb: 86 GB/s,
  NVIDIA/nccl-tests#175); a NIC of N Gb/s gives collectives.py's 47 GB/s x N / 400.
- SMs a collective takes from the compute beside it: an NCCL kernel holds its SMs alone ("NCCL
  CTAs won't share an SM with compute kernels"; "on DGX ... it would use 16 SMs",
  NVIDIA/nccl#689) and, run beside a compute kernel, leaves it 85% of the SMs ("when I run a
  single NCCL kernel, the active SMs is 15%", NVIDIA/nccl#1432): ``NCCL_SM_SHARE`` 0.15. The
  training step's ``SUSTAINED`` shares (core/speed/train_context.py) were set from FSDP runs,
  whose per-layer all-gathers and reduce-scatters run beside nearly all of the compute; a
  replicated layout (no TP, CP, PP or EP, gradients reduced by DDP or ZeRO-1/2 behind the
  backward of the step's last micro-batch: Megatron ``--overlap-grad-reduce``, PyTorch DDP's
  ``no_sync`` accumulation) has a collective beside its compute in 1/m of its m micro-batches
  only (:func:`replicated_compute_speedup`).
"""

from __future__ import annotations

from statistics import median

from ..model.specs import GPUSpec
from . import collectives as col
from .collectives import Link
from .roofline import peak_tflops

NIC_GB_PER_S = 50.0  # the 400 Gb/s NIC collectives.NETWORK_BETA was measured on
NCCL_SM_SHARE = 0.15  # SMs an NCCL collective holds beside compute (NVIDIA/nccl#689, #1432)

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
    "mi300x-192gb": {"bf16": 668.4, "fp8": 1222.9},  # fp8: Azure's hipBLASLt benchmark (docstring)
    "mi325x-256gb": {"bf16": 784.9, "fp8": 1519.0},  # fp8: AMD's measured MAF (docstring)
    "mi355x-288gb": {"bf16": 1565.0},
    "gaudi-2-96gb": {"bf16": 418.7, "fp8": 826.5},
    "gaudi-3-128gb": {"bf16": 1243.0, "fp8": 1289.5},
    "arc-a770-16gb": {"bf16": 91.0},  # mamf-finder on the card (docstring); Gaudi is not Arc
}
# MAMF / datasheet of the same table's rows, per vendor and dtype (the fallback's medians).
_EFFICIENCY_ROWS: dict[tuple[str, str], tuple[float, ...]] = {
    ("NVIDIA", "bf16"): (0.869, 0.838, 0.811, 0.803, 0.786, 0.776, 0.729),
    ("NVIDIA", "fp8"): (0.776, 0.763, 0.745, 0.734, 0.723, 0.709),
    ("AMD", "bf16"): (0.680, 0.604, 0.514),
    ("AMD", "fp8"): (0.468,),  # MI300X hipBLASLt FP8, 1,222.9 / 2,614.9 (docstring)
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


_NETWORK_GB_PER_S = {"gaudi-2-96gb": 37.5, "gaudi-3-128gb": 75.0}
BOX_ETHERNET_GB_PER_S = 1.25  # one 10 GbE port per desktop or workstation
# A PCIe datacenter card (L4, L40S, A10, A40, A100/H100 PCIe) sits in a host with one 200 Gb/s
# RoCE/InfiniBand NIC per 4 GPUs: NVIDIA's recommended L40S server ("2-2-4" topology, "it is
# crucial to have a 200Gbps RoCE or IB network", naddod.com/blog/high-performance-gpu-server-
# hardware-topology-and-cluster-networking-l40s), 25 GB/s / 4 = 6.25 GB/s per GPU. The 25-50
# GB/s of the class defaults below are HGX/OAM boards' one 200-400 Gb/s NIC per GPU.
PCIE_SERVER_GB_PER_S = 6.25


def network_gb_per_s(gpu: GPUSpec) -> float:
    """Network bandwidth per GPU and direction (GB/s) when the scenario does not give one:
    the catalog's (its system's scale-out per GPU), else the GPU class's reference NIC; a
    consumer or workstation card sits in a desktop with one 10 GbE port (1.25 GB/s) shared by
    its ``gpus_per_node`` cards; a PCIe datacenter card in a server with one 200 Gb/s NIC per
    four cards (:data:`PCIE_SERVER_GB_PER_S`)."""
    if gpu.network_gb_per_s is not None:
        return gpu.network_gb_per_s
    if gpu.category in ("consumer", "workstation"):
        return BOX_ETHERNET_GB_PER_S / max(1, gpu.gpus_per_node)
    if gpu.id in _NETWORK_GB_PER_S:
        return _NETWORK_GB_PER_S[gpu.id]
    if gpu.interconnect_kind == "pcie":
        return PCIE_SERVER_GB_PER_S
    if gpu.category in ("datacenter", None) and (_major(gpu) >= 9 or gpu.vendor == "AMD"):
        return 50.0
    if gpu.category in ("datacenter", None) and _major(gpu) == 8:
        return 25.0
    return 12.5


def group_link(gpu: GPUSpec, ranks: int, stride: int, gpus_per_node: int, network_gb: float) -> Link:
    """The link a collective of ``ranks`` GPUs, ``stride`` GPUs apart, crosses (collectives.py's
    link inside a node; across nodes the network, over as many NICs as the group has ranks in
    a node, at most the intra-node link)."""
    if ranks <= 1:
        return col.NO_LINK
    inside = col.link(gpu, 2, max(2, gpus_per_node))  # the node's own link (network if none)
    per_node = max(1, min(ranks, gpus_per_node // max(1, stride)))
    if ranks <= per_node and inside.kind != "network":
        return inside
    nic = col.NETWORK_BETA * network_gb / NIC_GB_PER_S
    beta = per_node * nic if inside.kind == "network" else min(inside.beta, per_node * nic)
    return Link("network", col.NETWORK_ALPHA, beta)


def replicated_compute_speedup(microbatches: float, ranks: int) -> float:
    """How much faster the matmuls and attention of a replicated layout run than the
    ``SUSTAINED`` share (set from FSDP runs, a collective beside all compute) assumes: a
    collective sits beside the compute of 1/m of the step's ``microbatches`` (none on one
    GPU, whatever the ZeRO stage), where it takes ``NCCL_SM_SHARE`` of the SMs."""
    beside = 1.0 / max(1.0, microbatches) if ranks > 1 else 0.0
    return (1.0 - NCCL_SM_SHARE * beside) / (1.0 - NCCL_SM_SHARE)


def collective_seconds(kind: str, nbytes: float, ranks: int, link: Link) -> float:
    """One collective on ``nbytes`` (the whole tensor) over ``ranks`` (collectives.py)."""
    if kind == "all_reduce":
        return col.all_reduce_seconds(link, nbytes, ranks)
    return col.all_gather_seconds(link, nbytes, ranks)  # all-gather, reduce-scatter, all-to-all
