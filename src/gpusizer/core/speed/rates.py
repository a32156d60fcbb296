"""Achieved rates: the share of the datasheet figures (the GPU catalog) that real kernels reach,
per kernel library, GPU architecture and number format. Shared by the inference step model
(core/speed/step.py) and training time; the catalog keeps the datasheet peaks, this table what
kernels achieve on them. Every entry names the published measurement it was read from; entries
with no measurement of their own say which they borrow.

- Library: ``ggml`` (llama.cpp, Ollama: its own CUDA/Metal kernels: MMVQ/MMQ for quantised
  types, dmmv or cuBLAS for F16) or ``vendor`` (vLLM, SGLang, TensorRT-LLM, transformers:
  cuBLAS, CUTLASS, DeepGEMM, Marlin, FlashAttention/FlashInfer).
- Architecture (:func:`gpu_family`): NVIDIA by compute capability (8.0 ``ampere-hbm``, 8.6
  ``ampere``, 8.9 ``ada``, 9.0 ``hopper``, 10.x ``blackwell``, 12.0 ``blackwell-rtx``, 12.1
  ``gb10``), ``apple-m1`` (M1), ``apple`` (M2) and ``apple-m3`` (M3 and later), AMD Instinct ``cdna3``
  (MI300X, MI325X) and ``cdna4`` (MI350X, MI355X), Radeon ``rdna3`` (RX 7000, PRO W7000)
  and ``rdna4`` (RX 9000, AI PRO R9000), ``amd`` (other AMD), ``apu`` (other unified
  memory), ``other``.
- Formats: matmuls in 16 bits, in the GPU's own FP8/INT8/FP4 tensor-core format (``low``), or
  weight-only quantised formats dequantised inside the kernel (``quant``: GGUF, GPTQ/AWQ,
  NF4, INT4; ggml's MMQ, Marlin). Streaming weights and the KV cache reaches ``bandwidth``.

``matmul`` figures are for large GEMMs; a decode step's small-``m`` GEMMs are memory-bound
and take their time from ``bandwidth`` (the step model takes the larger of the two per
operation, which reproduces DeepGEMM's FP8 table at m = 64 and 128 within 6 % and its
7168 x 16384 GEMM at m = 4096 within 10 %). Grouped MoE
GEMMs lose efficiency with few tokens per expert: ``m / (m + grouped_half)`` of the rate.

Two bounds sit beside the shares where they were measured: ggml multiplies 16-bit and
dequantised matrices in FP16 with FP16 accumulation, which GeForce cards run at twice the
FP32-accumulate peak the catalog lists (:func:`sixteen_bit_scale`); and on Ada its prefill is
bound by board power, TDP x TFLOPS per watt (:func:`power_capped`), not by the SMs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Literal, Protocol

Library = Literal["ggml", "mlx", "vendor"]

us = 1e-6


class Device(Protocol):
    """What the table reads of a GPU (core/model/specs.GPUSpec)."""

    @property
    def name(self) -> str: ...

    @property
    def vendor(self) -> str: ...

    @property
    def compute_capability(self) -> str | None: ...

    @property
    def unified_memory(self) -> bool: ...

    @property
    def category(self) -> str | None: ...

    @property
    def tdp_watts(self) -> float | None: ...


@dataclass(frozen=True)
class Rates:
    """Achieved fractions of the catalog's figures for one library on one architecture."""

    matmul: float  # large 16-bit GEMMs, of the 16-bit dense peak
    matmul_low: float  # GEMMs in the GPU's FP8/INT8/FP4 format, of that format's peak
    matmul_quant: float  # weight-only quantised GEMMs (dequantised in the kernel), of the 16-bit peak
    attention: float  # prefill attention (FlashAttention), of the 16-bit peak
    bandwidth: float  # weights and KV cache streamed by decode kernels, of the memory bandwidth
    kernel_floor: float  # seconds: the least one kernel takes (ramp, tail, gap to the next)
    grouped_half: float = 64.0  # tokens per expert at which a grouped GEMM runs at half rate
    grouped_bandwidth: float = 0.0  # experts' weights streamed by grouped GEMMs (0: bandwidth)
    kv_bandwidth: float = 0.0  # the paged KV cache read by attention kernels (0: bandwidth)
    # the 16-bit shares are of the FP16-accumulate peak (:func:`sixteen_bit_scale`)
    fp16_accumulate: bool = False
    # board-power bound of the 16-bit and the quantised matmuls, TFLOPS per watt of the GPU's
    # TDP (0: none; :func:`power_capped`)
    watt_tflops: float = 0.0
    watt_tflops_quant: float = 0.0
    # ggml's MoE FFN sums its top-k experts in one fused kernel, not k - 1 adds
    # (core/speed/step_kernels.py ``kernels_per_step``)
    fused_expert_adds: bool = False
    # FLOP-equivalents per k-quant weight of a matrix-vector kernel, at the quantised matmul
    # rate: Metal's kernel_mul_mv_q4_K_f32 of 2024 (ggml-metal.metal) masks each 4-bit quant
    # out of a uint16, converts it and multiply-adds it in fp32, three ALU instructions a weight
    # (two FLOP each at the peak) where the memory holds half a byte: ALU-bound on Apple's GPUs.
    # Once per weight per step of up to 8 tokens (core/speed/step_terms.py, step_moe.py). 0: bandwidth alone
    kquant_matvec_ops: float = 0.0
    # tokens per column tile of a grouped GEMM that gives every expert whole tiles (0: the
    # ``grouped_half`` rule): Metal's kernel_mul_mm_id of 2025 (core/speed/expert_load.py
    # ``tile_efficiency``)
    grouped_tile: int = 0
    grouped_tile_rate: float = 1.0  # with ``grouped_tile``: a full tile's rate, of the matmul rate
    # ggml's quantised matrix-matrix kernel (MMQ) in the HIP build on Radeon: a step of more than
    # 8 tokens pays its math and then its weight reads, at this share of the memory bandwidth,
    # not the larger of the two (0: the roofline's larger). mmq.cu enables stream-k only on
    # NVIDIA (Volta on) and CDNA, and mmq.cuh's tile loop loads a weight tile into shared memory,
    # syncs, then multiplies it (no double buffer). Once per step: a micro-batch's further column
    # tiles re-read a matrix from the Infinity Cache (96 MB on Navi 31), not from VRAM
    # (core/speed/step_terms.py ``_token_terms``; docs/evidence/speed.md section 18.5)
    serial_weight_loads: float = 0.0
    # MXFP4 experts on a GPU without MX matrix instructions: vector instructions to upcast one
    # weight to BF16 before the 16-bit MFMA, once per M-tile (core/speed/mx_upcast.py; 0: none)
    mx_upcast_ops: float = 0.0
    # rows a 16-bit or FP8 tensor-core GEMM computes at least: its tile's M, the tokens of a
    # small step padded up to it (0: the step's own tokens). Binding only where the tensor rate
    # is low beside the memory's (core/speed/step_terms.py ``_token_terms``)
    mma_rows: float = 0.0
    sources: tuple[str, ...] = ()


# Apple silicon by chip generation: M3 and later GPUs allocate registers and threadgroup
# memory as a kernel runs ("Dynamic Caching", Apple newsroom 2023-10-30), M1/M2 by the
# kernel's worst case
_APPLE_CHIP = re.compile(r"\bM(\d+)\b", re.IGNORECASE)


# AMD Instinct by product number: MI300X/MI325X are CDNA3 (gfx942), MI350X/MI355X CDNA4
# (gfx950); AMD's CDNA3 and CDNA4 white papers. Older Instinct (MI250X, CDNA2) stays "amd".
_INSTINCT = re.compile(r"\bMI3(\d)\d")
_CDNA = {"0": "cdna3", "2": "cdna3", "5": "cdna4"}
# Radeon by product number: RX 7000 and PRO W7000 are RDNA3 (Navi 3x), RX 9000 and AI PRO R9000
# RDNA4 (Navi 4x); AMD's product pages.
# Intel Arc by series letter: B (Battlemage) is Xe2-HPG, A (Alchemist) Xe-HPG; Intel's product pages.
_ARC = re.compile(r"\bArc (?:Pro )?([AB])\d{2,3}\b")
_RDNA = ((re.compile(r"\b(?:RX 7|W7)\d{3}\b"), "rdna3"), (re.compile(r"\b(?:RX 9|R9)\d{3}\b"), "rdna4"))


def apple_chip(gpu: Device) -> int:
    """The Apple silicon generation of ``gpu`` from its name (3 for "M3 Ultra"; 2 where the
    name states none)."""
    gen = _APPLE_CHIP.search(gpu.name)
    return int(gen.group(1)) if gen else 2


def gpu_family(gpu: Device) -> str:
    """The architecture key of a GPU (module docstring)."""
    vendor = gpu.vendor.lower()
    if vendor == "apple":
        chip = apple_chip(gpu)
        return "apple-m3" if chip >= 3 else "apple-m1" if chip == 1 else "apple"
    cc = gpu.compute_capability
    if vendor == "nvidia" and cc:
        major, minor = (int(x) for x in cc.split("."))
        return {
            (8, 0): "ampere-hbm",
            (8, 6): "ampere",
            (8, 7): "ampere",
            (8, 9): "ada",
            (9, 0): "hopper",
            (12, 0): "blackwell-rtx",
            (12, 1): "gb10",
        }.get((major, minor), "blackwell" if major == 10 else "other")
    if vendor == "amd":
        if gpu.unified_memory:
            return "apu"
        inst = _INSTINCT.search(gpu.name)
        if inst:
            return _CDNA.get(inst.group(1), "amd")
        return next((fam for pattern, fam in _RDNA if pattern.search(gpu.name)), "amd")
    arc = _ARC.search(gpu.name) if vendor == "intel" else None
    if arc:
        return "xe2" if arc.group(1) == "B" else "xe-hpg"
    return "apu" if gpu.unified_memory else "other"


_XD = "XiongjieDai/GPU-Benchmarks-on-LLM-Inference LLaMA 3 llama-bench tables (May 2024, builds 2795-2843)"
_SPARK = "ggml-org/llama.cpp benches/dgx-spark.md (build 6918)"
_ADA_POWER = (
    f"{_XD}: ggml's prefill on Ada follows board power, not SMs: 8B F16 pp512 per watt RTX 4090 "
    "(450 W, 128 SMs) 20.8, RTX 4080 (320 W, 76 SMs) 22.6, RTX 6000 Ada (300 W, 142 SMs) 22.2, "
    "RTX 5000 Ada (250 W) 24.6, RTX 4000 Ada (130 W) 24.0 t/s per W"
)
_RDNA3_MMQ = (
    "ggml-org/llama.cpp PR #26284 'HIP: tune rdna 3 mmq configs' (2026), RX 7900 XTX under ROCm/HIP, "
    "llama-bench after the PR"
)
_DEEPGEMM = (
    "deepseek-ai/DeepGEMM README a6d97a1c, H800 FP8 dense GEMMs at m 4,096: 1,358 / 1,304 / 990 TFLOPS "
    "= 69 / 66 / 50 % of 1,979 (mean 62 %); at m 64 memory-bound at 50-80 % of HBM"
)

# Hopper's warpgroup MMA computes 64 rows an instruction (PTX ISA ``wgmma.mma_async`` shapes
# m64nNk16 / m64nNk32): a GEMM of fewer tokens runs a whole 64-row tile. Measured where it binds,
# on the H20 (148 BF16 / 296 FP8 TFLOPS beside 4.0 TB/s): DeepGEMM's FP8 GEMM takes the same time
# from 8 to 64 tokens and twice it at 128 (alibaba/InferSim bench_data/gemm/h20/data.csv,
# k 5,120 x n 51,200: 141.9 / 141.8 / 142.6 / 267.4 us at m 16 / 32 / 64 / 128), where on the
# H800 the same kernel streams its weights at 79 % of HBM up to 128 tokens (the fork
# roshini0108/InferSim's bench_data/gemm/h800/data.csv, k 7,168 x n 36,864: 98.7-103.5 us)
HOPPER_MMA_ROWS = 64
_MMA_ROWS = (
    "alibaba/InferSim bench_data/gemm/h20/data.csv (DeepGEMM FP8 GEMM on an H20): latency flat from m 8 "
    "to 64, doubling at 128 (k 5120, n 51200: 141.9 us at m 16, 142.6 at 64, 267.4 at 128): a 64-row "
    "wgmma tile, compute-bound at the H20's tensor rate"
)

# upcast8xMxfp4's 20 instructions for 8 values, mxfpScaleBf16ViaF32's 4 a value, 1 per 2 values
# to pack the BF16 pairs (core/speed/mx_upcast.py)
MX_UPCAST_OPS = 20 / 8 + 4 + 0.5

_ORACLE = (
    "Oracle Cloud blog 'Serving Llama 3.1 405B model with AMD Instinct MI300X Accelerators' "
    "(2024-10-10): Llama 3.1 405B FP8, TP 8 on 8 x MI300X, vLLM's ROCm build, benchmark_latency.py, "
    "128 input and 128 output tokens"
)

# (library, family) -> rates; ("vendor" | "ggml", "") is the library's fallback.
# ggml: each architecture's four shares are solved exactly from four figures of one GPU
# (docs/evidence/speed.md "Constants"; tests/core/test_speed_figures.py replays them): bandwidth
# and kernel floor from the 8B and 70B Q4_K_M tg512 pair (the 70B reads 8.6x the bytes through
# 2.5x the kernels), then the F16 and Q4_K_M pp512. Every other figure of the file is out of
# sample. ``grouped_half`` from gpt-oss-120b's pp2048 on the DGX Spark (its 20b is out of sample).
_GROUPED = 57.0
# HIP's MMQ on RDNA3 reads a micro-batch's weights after its math (Rates.serial_weight_loads) at
# 0.36 of the 960 GB/s: solved with the quantised share from PR #26284's Q4_K_M pp2048 at
# n_ubatch 512 and 1,024, which differ only in the weights read per token (1 / 512 against
# 1 / 1,024 of them)
SERIAL_RDNA3 = 0.36
RATES: dict[tuple[str, str], Rates] = {
    ("ggml", "ada"): Rates(
        matmul=0.70,
        matmul_low=0.5,
        matmul_quant=0.51,
        attention=0.25,
        bandwidth=0.92,
        kernel_floor=3.5 * us,
        grouped_half=_GROUPED,
        fp16_accumulate=True,
        watt_tflops=0.3231,
        watt_tflops_quant=0.235,
        sources=(
            f"{_XD}: RTX 4090, Llama 3 8B (F16 pp512 9,382; Q4_K_M pp512 7,139, tg512 130.58) "
            "and 70B Q4_K_M on 2 GPUs (tg512 19.22)",
            f"{_ADA_POWER}: the RTX 4090's F16 and Q4_K_M pp512 at its 450 W give 0.3231 and 0.235 "
            "TFLOPS per watt; below those, the caps: cuBLAS's large-GEMM share (the vendor entries' "
            "0.70, no Ada measurement), x 0.727 for dequantised weights (the 4090's Q4_K_M / F16 "
            "rate), attention the 4090's",
        ),
    ),
    ("ggml", "ampere"): Rates(
        matmul=0.465,
        matmul_low=0.5,
        matmul_quant=0.415,
        attention=0.25,
        bandwidth=0.84,
        kernel_floor=3.7 * us,
        grouped_half=_GROUPED,
        fp16_accumulate=True,
        sources=(
            f"{_XD}: RTX 3090, 8B (F16 pp512 4,444.65; Q4_K_M pp512 4,030.4, tg512 115.42) "
            "and 70B Q4_K_M on 2 GPUs (tg512 16.57); shares of the FP16-accumulate peak (142 "
            "TFLOPS on the 3090), which professional cards (RTX A6000, A40) run at the rate the "
            "catalog lists",
        ),
    ),
    ("ggml", "ampere-hbm"): Rates(
        matmul=0.375,
        matmul_low=0.3,
        matmul_quant=0.28,
        attention=0.3,
        bandwidth=0.58,
        kernel_floor=4.0 * us,
        grouped_half=_GROUPED,
        sources=(
            f"{_XD}: A100 PCIe, 8B (F16 pp512 7,741.34; Q4_K_M pp512 5,981.04, tg512 140.62) "
            "and 70B Q4_K_M (tg512 22.31): llama.cpp then had no A100/H100 tuning, 58 % of HBM "
            "and 38 % of the BF16 peak",
        ),
    ),
    ("ggml", "hopper"): Rates(
        matmul=0.22,
        matmul_low=0.15,
        matmul_quant=0.16,
        attention=0.2,
        bandwidth=0.67,
        kernel_floor=4.55 * us,
        grouped_half=_GROUPED,
        sources=(
            f"{_XD}: H100 PCIe (310 W cap), 8B (F16 pp512 10,815.51; Q4_K_M pp512 8,125.45, "
            "tg512 145.55) and 70B Q4_K_M (tg512 25.03)",
        ),
    ),
    ("ggml", "apple"): Rates(
        matmul=0.62,
        matmul_low=0.5,
        matmul_quant=0.52,
        attention=0.5,
        bandwidth=0.882,
        kernel_floor=7.1 * us,
        grouped_half=_GROUPED,
        kquant_matvec_ops=11.5,
        sources=(
            f"{_XD}: M2 Ultra 76-core, 8B (F16 pp512 1,175.4; Q4_K_M pp512 994.04, tg512 78.81) "
            "and 70B Q4_K_M (tg512 12.48): Metal, no graphs",
            f"{_XD}: M2 Ultra 70B F16 tg512 4.76 (bandwidth 0.882) and 70B Q4_K_M tg512 12.48 (11.5 "
            "FLOP-equivalents per k-quant weight: 3 fp32 instructions x 2 / the 0.52 quantised share); "
            "ggml-metal.metal kernel_mul_mv_q4_K_f32 of those builds: per weight (q1[i/2] & 0x000F), "
            "its conversion and the fp32 multiply-add into acc1/acc2; the 70B Q4_K_M token x the FP32 "
            "peak is about 2.3 TFLOP on the M1 Max, M2 Ultra and M3 Max alike (ALU-bound)",
        ),
    ),
    ("ggml", "gb10"): Rates(
        matmul=0.50,
        matmul_low=0.50,
        matmul_quant=0.50,
        attention=0.5,
        bandwidth=0.86,
        kernel_floor=3.3 * us,
        grouped_half=_GROUPED,
        sources=(
            f"{_SPARK}: gemma-3-4b Q4_0 tg32 78.97 and Qwen2.5-Coder-7B Q8_0 tg32 29.30 (bandwidth, "
            "floor), its pp2048 2,276.28 (quantised matmul; no F16 figure: the same share); MXFP4 "
            "runs in ggml's integer MMQ, not on FP4 tensor cores (4-6 % of the 500 TFLOPS datasheet)",
            f"{_SPARK}: gpt-oss-120b pp2048 1,937.54 (64 tokens per expert): half rate at 57 tokens "
            "per expert",
        ),
    ),
    ("ggml", "rdna3"): Rates(
        matmul=0.6,
        matmul_low=0.4,
        matmul_quant=0.425,
        attention=0.4,
        bandwidth=0.715,
        kernel_floor=4.0 * us,
        grouped_half=_GROUPED,
        serial_weight_loads=SERIAL_RDNA3,
        sources=(
            f"{_RDNA3_MMQ}: llama 8B Q4_K_M pp2048 at n_ubatch 512 and 1,024, 3,226.54 and 3,390.81 "
            "(quantised matmul share on the WMMA peak and the serial weight-load share: the two differ "
            "only in the weights read per token) and tg64 105.81 (bandwidth; the fallback's 4 us "
            "kernel floor); the Q5_K_M rows out of sample",
            "no RDNA3 figure for F16 matmuls or attention: the ggml fallback's shares",
        ),
    ),
    ("ggml", ""): Rates(
        matmul=0.6,
        matmul_low=0.4,
        matmul_quant=0.5,
        attention=0.4,
        bandwidth=0.80,
        kernel_floor=4.0 * us,
        grouped_half=_GROUPED,
        sources=("no measurement on this architecture: the middle of the measured ggml entries",),
    ),
    ("vendor", "hopper"): Rates(
        matmul=0.70,
        matmul_low=0.62,
        matmul_quant=0.45,
        attention=0.6,
        bandwidth=0.80,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        mma_rows=HOPPER_MMA_ROWS,
        sources=(
            _DEEPGEMM,
            _MMA_ROWS,
            "DeepGEMM masked grouped GEMM: 256 tokens per expert 932 TFLOPS vs 1,297 at 8,192: half "
            "rate at ~95 tokens per expert; it streams the experts at 2,064 GB/s = 62 % of HBM",
            "FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608): BF16 forward up to 75 % of H100 peak; "
            "0.6 for causal prefill",
            "IST-DASLab/marlin README: W4A16 'not yet optimized for Hopper'; prefill as FP16 (QQQ#15: "
            "TTFT fp16 71.63 ms vs marlin 71.94) at 0.45",
        ),
    ),
    ("vendor", "blackwell"): Rates(
        matmul=0.65,
        matmul_low=0.30,
        matmul_quant=0.45,
        attention=0.6,
        bandwidth=0.78,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        sources=(
            "aiconfigurator breakdown (shared/docs/speed-anchors.md): Llama 3.3 70B NVFP4 on B200 at "
            "~385 running requests: FP4 GEMMs at ~30 % of the FP4 peak, decode attention reading the "
            "KV cache at ~78 % of HBM",
        ),
    ),
    ("vendor", "ampere-hbm"): Rates(
        matmul=0.70,
        matmul_low=0.6,
        matmul_quant=0.6,
        attention=0.5,
        bandwidth=0.80,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        sources=(
            "FlashAttention-2 (Dao 2023, arXiv 2307.08691): forward up to 73 % of A100 peak, 0.5 causal",
            "IST-DASLab/marlin README: near-ideal W4A16 speedups up to batch 16-32 on Ampere",
        ),
    ),
    ("vendor", "cdna3"): Rates(
        matmul=0.70,
        matmul_low=0.19,
        matmul_quant=0.5,
        attention=0.5,
        bandwidth=0.43,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        mx_upcast_ops=MX_UPCAST_OPS,
        sources=(
            f"{_ORACLE}: batch 1, 3.530 s for 128 + 128 tokens: 43 % of HBM with the vendor entries' "
            "3 us kernel floor and 8 us all-reduce (it absorbs what the ROCm build of then lost to "
            "both; no separate MI300X figure for either was found)",
            f"{_ORACLE}: batch 256, 17.750 s: FP8 GEMMs at 19 % of the 2,615 TFLOPS FP8 peak (hipBLASLt "
            "FP8 through torch._scaled_mm at the per-GPU shapes of TP 8); batches 2-128 and the two "
            "benchmark_throughput figures out of sample",
            "no CDNA3 figure for 16-bit or weight-only GEMMs, attention or grouped MoE GEMMs: the "
            "vendor fallback's shares",
            f"MXFP4 experts (triton_kernels matmul_ogs): {MX_UPCAST_OPS:g} vector instructions a weight to "
            "upcast to BF16, counted in Triton's third_party/amd UpcastMXFPToLLVM.cpp (gfx9 has no MX "
            "or BF16 VALU ops); tiles of opt_flags.py make_default_opt_flags_amd",
        ),
    ),
    ("vendor", ""): Rates(
        matmul=0.70,
        matmul_low=0.5,
        matmul_quant=0.5,
        attention=0.5,
        bandwidth=0.80,
        kernel_floor=3.0 * us,
        grouped_half=95.0,
        grouped_bandwidth=0.62,
        sources=("no measurement on this architecture: the Ampere/Hopper vendor entries",),
    ),
}

# Apple M3 and later (Dynamic Caching, gpu_family): ggml's Metal kernels of May 2024 reach 1.24x
# the M1/M2 entry's compute shares on an M3 Max (8B F16 pp512 769.84 t/s where the M2 Ultra's
# shares give 619.8); the same factor for every compute kernel. Bandwidth and kernel floor stay
# the M2 Ultra's (the M3 Max's tg512 figures replay within 15 % on them). The M1 Max, an older
# single die, replays its prefill within 13 % on the M2 Ultra's shares: generation, not the
# Ultra's two dies, sets the share.
_DYNAMIC_CACHING = 1.24
_M2 = RATES[("ggml", "apple")]
RATES[("ggml", "apple-m3")] = replace(
    _M2,
    matmul=round(_M2.matmul * _DYNAMIC_CACHING, 3),
    matmul_quant=round(_M2.matmul_quant * _DYNAMIC_CACHING, 3),
    attention=round(_M2.attention * _DYNAMIC_CACHING, 3),
    sources=(
        *_M2.sources,
        f"{_XD}: M3 Max 40-core, 8B F16 pp512 769.84 (compute shares x 1.24; its Q4_K_M and 70B pp512 "
        "out of sample); Apple's M3 press release (2023-10-30, quoted by digitaltrends.com 'Apple dynamic "
        "caching explained'): Dynamic Caching 'dramatically increases the average utilization of the GPU'",
    ),
)


# Apple M1 (the A14's GPU generation): the M1 Max's May 2024 decodes run below the M2 Ultra's
# shares (8B F16 tg512 1.11x, 70B Q4_K_M 1.23x fast on them), its prefill within 13 %. Its two
# matrix-vector shares are its own, solved from its tg512 rows: the bandwidth from 8B F16 (18.75
# t/s), then the k-quant ALU work from 70B Q4_K_M (4.34 t/s: 230 ms x 10.4 TFLOPS = 2.4 TFLOP a
# token against the M2 Ultra's 2.2). Its 8B Q4_K_M tg512, the M1 Max Llama 3.1 8B and M1 Ultra
# TinyLlama rows of serving-speed.json out of sample.
M1_BANDWIDTH, M1_KQUANT_OPS = 0.783, 14.9
RATES[("ggml", "apple-m1")] = replace(
    _M2,
    bandwidth=M1_BANDWIDTH,
    kquant_matvec_ops=M1_KQUANT_OPS,
    sources=(
        *_M2.sources,
        f"{_XD}: M1 Max 32-core, 8B F16 tg512 18.75 (bandwidth {M1_BANDWIDTH}) and 70B Q4_K_M tg512 "
        f"4.34 ({M1_KQUANT_OPS} FLOP-equivalents per k-quant weight); compute shares the M2 Ultra's",
    ),
)


# CDNA4 (MI350X/MI355X): no published figure the step model can replay yet (the MI355X runs
# found leave their KV-cache settings unstated); it takes CDNA3's shares of its own, higher
# peaks and bandwidth, the nearest measured kernels (hipBLASLt, the same vLLM ROCm builds).
_CDNA3 = RATES[("vendor", "cdna3")]
RATES[("vendor", "cdna4")] = replace(
    _CDNA3,
    mx_upcast_ops=0.0,  # gfx950 multiplies MXFP4 natively (scaled MFMA)
    sources=(*_CDNA3.sources, "CDNA4: no measurement of its own, CDNA3's shares"),
)


def achieved(gpu: Device, library: str) -> Rates:
    """The achieved rates of ``library`` on ``gpu``'s architecture (the library's fallback
    when that architecture has no entry of its own); an engine build's kernel era and
    llama.cpp's backend: core/speed/rates_era.py ``achieved_by``."""
    return RATES.get((library, gpu_family(gpu))) or RATES[(library, "")]


def sixteen_bit_scale(gpu: Device, r: Rates) -> float:
    """The peak the library's 16-bit GEMMs run at, as a multiple of the catalog's 16-bit peak
    (FP32 accumulate): 2 where the library multiplies in FP16 with FP16 accumulation on a
    GeForce card, which runs FP32 accumulation at half that rate (the catalog's notes); else
    1. ggml does: "convert src0 and src1 to fp16, multiply as fp16", cublasGemmEx with
    CUBLAS_COMPUTE_16F for F16 and dequantised weights (ggml-cuda.cu
    ``ggml_cuda_op_mul_mat_cublas``, builds of 2024); the RTX 4080's F16 pp512 of 7,247 t/s
    (XiongjieDai) needs 102 TFLOPS of matmuls, above its 97.5 FP32-accumulate peak."""
    consumer = gpu.vendor.lower() == "nvidia" and gpu.category == "consumer"
    return 2.0 if r.fp16_accumulate and consumer else 1.0


def power_capped(tflops: float, gpu: Device, per_watt: float) -> float:
    """``tflops`` bounded by board power, TDP x ``per_watt`` TFLOPS per watt (unbounded when
    the entry has no such figure or the catalog no TDP): a sustained GEMM load holds the
    board at its power limit and the clock falls until it fits (the Ada prefill figures of
    ``_ADA_POWER`` scale with the cards' watts, not their SMs)."""
    if per_watt <= 0 or not gpu.tdp_watts:
        return tflops
    return min(tflops, gpu.tdp_watts * per_watt)
