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

The table is assembled here from its parts: :class:`Rates` (core/speed/rates_entry.py), the
architecture keys (core/speed/gpu_family.py), ggml's entries (core/speed/rates_ggml.py) and
the vendor libraries' (core/speed/rates_vendor.py); MLX's are added by core/speed/rates_mlx.py.
Every name below stays importable from here.
"""

from __future__ import annotations

from .gpu_family import Device, apple_chip, gpu_family
from .rates_entry import Library, Rates, us
from .rates_ggml import (
    APPLE_GENERATIONS,
    GGML_RATES,
    M1_BANDWIDTH,
    M1_KQUANT_OPS,
    SERIAL_RDNA3,
)
from .rates_vendor import CDNA4, HOPPER_MMA_ROWS, MX_UPCAST_OPS, VENDOR_RATES

__all__ = [
    "HOPPER_MMA_ROWS",
    "M1_BANDWIDTH",
    "M1_KQUANT_OPS",
    "MX_UPCAST_OPS",
    "RATES",
    "SERIAL_RDNA3",
    "Device",
    "Library",
    "Rates",
    "achieved",
    "apple_chip",
    "gpu_family",
    "power_capped",
    "sixteen_bit_scale",
    "us",
]

# (library, family) -> rates; ("vendor" | "ggml", "") is the library's fallback.
# The order of the table as one module held it: the measured entries of ggml, then the vendor
# libraries', then those derived from them (Apple M3 and M1 from the M2; CDNA4 from CDNA3).
RATES: dict[tuple[str, str], Rates] = {**GGML_RATES, **VENDOR_RATES, **APPLE_GENERATIONS, **CDNA4}


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
    core/speed/rates_ggml.py ``_ADA_POWER`` scale with the cards' watts, not their SMs)."""
    if per_watt <= 0 or not gpu.tdp_watts:
        return tflops
    return min(tflops, gpu.tdp_watts * per_watt)
