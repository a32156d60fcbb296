"""The ggml i-quants' dequantising cost in llama.cpp's CUDA matrix-vector kernels (MMVQ), per
GGUF tensor type: FLOP-equivalents per weight at the quantised matmul rate, the unit of
``Rates.kquant_matvec_ops`` (core/speed/rates_entry.py), which the step adds to a decode step's
math beside the bytes it reads (core/speed/step_terms.py, step_moe.py: the larger of the two).

Why a cost per weight and not a share of the bandwidth: ggml-cuda's ``vec_dot_iq*_q8_1``
(ggml/src/ggml-cuda/vecdotq.cuh, e.g. ``vec_dot_iq3_xxs_q8_1``) rebuild each 4 weights from an
index into a lookup grid (``iq1s_grid``, ``iq2s_grid``, ``iq3xxs_grid``: table loads), unpack a
sign code (``unpack_ksigns``) and apply it (``__vcmpne4``, xor, ``__vsub4``) before each
``ggml_cuda_dp4a``: integer work a weight that the k-quants' and Q4_0's bit masks do not pay.
ggml-org/llama.cpp PR #8215's llama-bench table ('CUDA: refactor and optimize IQ MMVQ'; Llama 3
8B, microbatch 1, pp512: 512 one-token MMVQ steps) shows it: the RTX 4090 decodes IQ1_M at 1.89x the
RTX 3090's speed (315.04 against 167.03 t/s) where the two cards' memories differ by 1.08x and
Q4_K_M's tg512 by 1.13x (XiongjieDai's tables, core/speed/rates_ggml.py): the 3090, with 0.43x
the 4090's integer and FP32 rate, is bound by the lookups, not by its bytes.

Each type's cost is solved from the RTX 3090 row of PR #8215 (the ``ampere`` ggml shares, its
``matmul_quant`` rate): the step's math made to take the published time, one figure per type
(tests/core/data/speed-figures-gguf-types.json, the entries marked ``sets``); the RTX 4090 rows
are out of sample. The types the PR's table reached in the stored excerpts are IQ1_M, IQ2_S and
IQ3_XXS; IQ1_S, IQ2_XXS / IQ2_XS and IQ3_S read the cost of the kernel of their family that was
measured (the same grid-and-sign decode, a smaller or larger grid), stated as such in the
assumptions (core/registry/dtypes.py ``IQUANT_STAND_IN``, ``iquant_note``). Priced on NVIDIA GPUs
only (CUDA's MMVQ); Metal's and HIP's i-quant kernels were not measured and keep the bytes-read
price. The routed experts and the output matrix read their own type's cost
(``Rates.expert_matvec_ops``, ``head_matvec_ops``; core/speed/step_rates.py ``_iquant_ops``).
"""

from __future__ import annotations

from ..registry.dtypes import IQUANT_STAND_IN

# FLOP-equivalents per weight, solved from PR #8215's RTX 3090 microbatch-1 rows (t/s after the
# PR: IQ1_M 167.03, IQ2_S 151.47, IQ3_XXS 143.46) on the ampere ggml rates
MEASURED: dict[str, float] = {
    "gguf_iq1_m": 21.2,
    "gguf_iq2_s": 26.4,
    "gguf_iq3_xxs": 29.5,
}


def matvec_ops(dtype: str | None, vendor: str) -> float:
    """FLOP-equivalents per weight an i-quant ``dtype`` adds to a CUDA matrix-vector step; 0 for
    every other type and off NVIDIA."""
    if vendor.lower() != "nvidia" or dtype is None:
        return 0.0
    return MEASURED.get(IQUANT_STAND_IN.get(dtype, dtype), 0.0)
