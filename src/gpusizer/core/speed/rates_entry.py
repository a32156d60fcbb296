"""One entry of the achieved-rates table (core/speed/rates.py): :class:`Rates`, the shares of
the catalog's datasheet figures one kernel library reaches on one GPU architecture, with the
bounds and kernel traits beside them. Seconds (``us`` = 1e-6 s); shares are fractions of the
catalog's peaks. Each entry's ``sources`` name the measurement it was read from
(core/speed/rates_ggml.py, rates_vendor.py, rates_mlx.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Library = Literal["ggml", "mlx", "vendor"]

us = 1e-6


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
    # the routed experts' own i-quant dequantising cost where their GGUF type differs from the
    # other matrices' (core/speed/ggml_types.py), added to ``kquant_matvec_ops`` for them
    expert_matvec_ops: float = 0.0
    head_matvec_ops: float = 0.0  # the same for the output matrix's own GGUF type
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
    # a block-scaled FP8 GEMM at few tokens, one wave of tiles walking K: (seconds a GEMM,
    # seconds per element of K) at least (core/speed/block_walk.py; (0, 0): none measured)
    block_walk: tuple[float, float] = (0.0, 0.0)
    # bytes per second one decode-attention program streams at most, walking its context a tile
    # at a time (core/speed/decode_walk.py; 0: none measured)
    decode_walk: float = 0.0
    # prefill attention's share of the 16-bit peak where a stated kernel runs below ``attention``
    # (core/speed/triton_prefill.py; 0: the ``attention`` share)
    prefill_attention: float = 0.0
    sources: tuple[str, ...] = ()
