"""MXFP4 routed experts on a GPU with no MX matrix instructions: OpenAI's ``triton_kernels``
(``matmul_ogs``) as vLLM runs it for gpt-oss on AMD CDNA3 (gfx942).

What the kernel does (sources):

- vLLM picks ``triton_kernels`` for MXFP4 MoE on ROCm (quantization/mxfp4.py
  ``get_mxfp4_backend``: "current_platform.is_rocm() and has_triton_kernels(): ... TRITON";
  AITER's MXFP4 MoE is CDNA4-only, vLLM PR #46676), activations BF16 (W4A16).
- Its AMD tile (matmul_ogs_details/opt_flags.py ``make_default_opt_flags_amd``): ``block_m =
  max(32, min(next_power_of_2(tokens_per_expt), 64))``, 128 from 512 tokens an expert
  (``tokens_per_expt = m // n_expts_tot``): every expert's rows are padded to whole M-blocks.
- Off CDNA4, ``tl.dot_scaled`` upcasts each MXFP4 weight tile to BF16 in registers and
  multiplies with 16-bit MFMA (Triton third_party/amd UpcastMXFPToLLVM.cpp): ``upcast8xMxfp4``
  takes 20 32-bit instructions for 8 values (3 + 3 masks and shifts, 2 x 5 ``v_perm`` / or, 4
  ``v_perm`` to reorder), and ``mxfpScaleBf16ViaF32`` ("In gfx9 architectures, we don't have
  bf16 VALU ops") 4 per value (shift to fp32, ``fmul``, shift back, NaN-scale select; the
  scale's own shift and compare are shared by 32 values), and the BF16 pairs are packed for the
  MFMA (1 per 2 values): 7 vector instructions a weight, once per weight per M-block.

The step pays the experts' reads, the upcast at the vector rate and the padded MFMA tiles in
turn, not the larger of them (the composition of the RDNA3 MMQ rule, ``Rates.serial_weight_loads``;
the overlapped composition was tried and left 3 of InferenceX's 4 MI300X figures 1.4x fast:
docs/evidence/speed.md section 43).
"""

from __future__ import annotations

import math

# an expert's token count from which the AMD tile is 128 rows (opt_flags.py, CDNA3)
_BIG_TILE_TOKENS = 512


def tile_rows(rows: float, experts: int) -> int:
    """``block_m`` of ``make_default_opt_flags_amd`` on CDNA3 for ``rows`` routed rows (tokens x
    top-k) over ``experts`` experts."""
    per = max(1, int(rows) // experts)
    if per >= _BIG_TILE_TOKENS:
        return 128
    return max(32, min(1 << (per - 1).bit_length(), 64))


def upcast_experts_seconds(
    weights: float,
    weight_bytes: float,
    tokens_per_expert: float,
    block: int,
    ops: float,
    rates: tuple[float, float, float],
) -> float:
    """Seconds of one step's routed-expert GEMMs on one GPU: ``weights`` MXFP4 weights touched
    (all layers), ``weight_bytes`` each, ``tokens_per_expert`` rows of the busiest expert,
    ``block`` rows an M-tile, ``ops`` vector instructions to upcast a weight; ``rates``: bytes/s
    of the grouped reads, vector instructions/s, 16-bit MFMA FLOP/s."""
    read_bw, vector, mfma = rates
    blocks = max(1, math.ceil(tokens_per_expert / block))
    read = weights * weight_bytes / read_bw
    upcast = weights * blocks * ops / vector
    math_ = 2.0 * weights * blocks * block / mfma
    return read + upcast + math_
