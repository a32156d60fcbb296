"""Block-scaled FP8 GEMMs at few tokens on CDNA3: one wave of tiles walking K.

A GEMM with 128 x 128 block-scaled FP8 weights (``quantization_rule`` "fp8-block") multiplies
each output tile by walking its reduction dimension K a block at a time, loading each block's
scale beside its weights (ROCm/aiter's CK kernels ``a8w8_blockscale_1x128x128_...``: a scale
per 1 x 128 of the input and per 128 x 128 of the weight; vLLM's Triton
``w8a8_block_fp8_matmul`` likewise steps ``BLOCK_SIZE_K`` = the block's 128). At a decode
step's few tokens the output has fewer tiles than the GPU has compute units, so the whole GEMM is
one wave whose time is the walk along K, not the bytes it streams: the time grows with K and
hardly with N.

Measured: ROCm/aiter ``aiter/configs/a8w8_blockscale_tuned_gemm.csv`` at 1c06f87f87 (2025-11-10,
"add a8w8 block scale tuned config for deepseek-v3", PR #1310), the rows of ``cu_num`` 304
(gfx942: MI300X, MI325X) at M = 16, the smallest M tuned, nine (N, K) shapes, each one wave
(N / 64 tiles of the chosen ``256x16x64x256`` kernels, 8-112, beside 304 CUs):

    K      256   512   1,536  2,048  2,304  7,168 (N 512, 576, 1,536, 4,608)
    us    3.68  4.09   6.37   8.42   8.59   18.37, 18.45, 19.30, 20.14

A least-squares line through the nine, ``3.25 us + 2.21 ns x K`` (0.28 us per 128-element
block), is within 8 % of each (tests/core/test_block_walk.py); N from 512 to 7,168 moves the time
by 10 %. The bytes would take 0.7-6 us at the CDNA3 share of MI300X's 5.3 TB/s. Out of sample,
the same repository's later gfx942 table of Qwen3-235B's own backbone
(``model_configs/a8w8_blockscale_tuned_gemm_qwen3_vl_235b.csv`` at 6b831fb287, 2026-07-08) reads
14.5-15.5 us at K 4,096 and 5.9-6.2 us at K 1,024 up to M 64: 1.06-1.27 x the line, which is
thus a floor.

Applied (core/speed/step_terms.py ``_token_terms``) as a floor under each block-FP8 GEMM a layer
runs, through ``Rates.block_walk`` (core/speed/rates_vendor.py, CDNA3 only: the table's GPUs):
the attention's input projection (K = hidden) and output projection (K = the attention's width
on this GPU), a dense gated MLP's gate-up (K = hidden) and down (K = its intermediate on this
GPU), and the fused MoE's two grouped GEMMs (K = hidden, then the expert's intermediate: whole
experts under ``Shape.ep_tp``, else the tensor-parallel slice). The step already charges each
kernel ``Rates.kernel_floor``, so a GEMM's walk is its measured time less that floor. A lower
bound: MLA's second query GEMM and a two-matrix MLP's down projection are not walked at their
own K, and a step of more tiles than CUs takes more waves (its bytes or math then bind).
"""

from __future__ import annotations

from .rates_entry import Rates
from .roofline import linear_ops
from .roofline_shape import Shape

GATED = 3  # a gated MLP's or expert's matrices (gate, up, down): every MoE preset's SwiGLU


def walk_seconds(rates: Rates, k: float) -> float:
    """Seconds one block-FP8 GEMM of reduction ``k`` takes at least beyond the kernel floor the
    step charges it (module docstring); 0 where the architecture has no measured walk."""
    start, per_k = rates.block_walk
    if not per_k:
        return 0.0
    return max(0.0, start - rates.kernel_floor) + per_k * k


def linear_walks(sh: Shape, rates: Rates, block_fp8: bool) -> tuple[float, ...]:
    """Each of ``linear_ops(sh)``'s floor in seconds over all layers (0 for the norms, for a
    step whose weights are not block-FP8, and off CDNA3)."""
    ops = linear_ops(sh)
    if not block_fp8 or not rates.block_walk[1]:
        return tuple(0.0 for _ in ops)
    walks = {
        "qkv": sh.attn_layers * walk_seconds(rates, sh.hidden),
        "out_proj": sh.attn_layers * walk_seconds(rates, sh.out_in),
        "mlp": sh.mlp_layers
        * (walk_seconds(rates, sh.hidden) + walk_seconds(rates, sh.mlp_w / GATED / sh.hidden)),
    }
    return tuple(walks.get(op[0], 0.0) for op in ops)


def expert_walk(sh: Shape, rates: Rates, block_fp8: bool) -> float:
    """The MoE layers' floor in seconds: each layer's two grouped GEMMs walking K (module
    docstring); 0 without MoE layers, block-FP8 experts or a measured walk."""
    if not block_fp8 or not sh.moe_layers or not sh.expert_w or not rates.block_walk[1]:
        return 0.0
    inter = sh.expert_w * max(1, sh.ep_tp) / GATED / sh.hidden  # whole experts under ep_tp
    return sh.moe_layers * (walk_seconds(rates, sh.hidden) + walk_seconds(rates, inter))
