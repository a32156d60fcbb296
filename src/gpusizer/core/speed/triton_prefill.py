"""Prefill attention under vLLM's Triton unified attention (``TRITON_ATTN``) on CDNA3 (gfx942).

A ROCm build of vLLM before 0.19 without ``VLLM_ROCM_USE_AITER`` runs ``TRITON_ATTN`` for
prompts as for decode (docs/evidence/speed.md section 86.1; core/speed/decode_walk.py). Its
prefill is the 2D kernel: one program per (block of ``BLOCK_Q`` query tokens, KV head) walking
the causal prefix a tile at a time, with ``BLOCK_M = 16 if num_queries_per_kv <= 16`` rows a
program on every architecture (vllm/v1/attention/ops/triton_unified_attention.py
``unified_attention``, the stored version 00139433; the same rule since vLLM PR #16828). Sixteen
rows a program keep the two dots small beside what CDNA3's matrix cores need: the kernel runs
far below the fused flash-attention share the vendor fallback gives CDNA3 (0.5 of the 16-bit
peak, core/speed/rates_vendor.py, unmeasured).

Measured on gfx942 (ROCm/aiter PR #5664, 2026-09-18, MI325X, AITER's copy of the kernel with
the same ``BLOCK_M`` 16 default, FP8 KV cache, its bench against the 1,307 TFLOP/s BF16 peak):
prefill at 256-dim heads (GQA 32/16) 159 and 160 TFLOP/s at 8K and 32K tokens, at 512-dim heads
(GQA 32/4) 79 / 79 / 80 at 2K / 8K / 32K: flat in the prompt's length, and halved where the head
doubles. The rate times the head's width is the same at both, 40,450-40,960 TFLOP/s x dims
(160 x 256 = 80 x 512 = 40,960): a program's 16 rows hold the Q tile and the fp32 output
accumulator, 16 x head dims each, in registers, so the waves a CU keeps in flight fall as the
head widens while each does work in proportion to it. Taken here: 40,960 / the head's dims
TFLOP/s (160 at 256, 80 at 512, 320 at the 128-dim heads most models carry: no 128-dim time of
this kernel on gfx942 was found), never above the table's ``attention`` share
(docs/evidence/serving.md, the section on Triton prefill attention on gfx942). The share replaces
only the prefill attention's rate (``Rates.prefill_attention``): decode attention keeps its
bytes and walk (core/speed/decode_walk.py).

Read only where the scenario states the backend (``serving.attention_backend`` "TRITON_ATTN")
on CDNA3, and not where the scenario sets its own compute efficiency (the user's figure wins):
AITER's CK / ASM flash attention (``ROCM_AITER_FA``) and every NVIDIA, gfx950 and other answer
keep the table's share.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.architecture import resolve
from ..model.specs import ComputeSpec, GPUSpec, Scenario
from .rates_entry import Rates

# prefill TFLOP/s x head dims of the Triton unified attention at BLOCK_M 16 on gfx942 (ROCm/aiter
# PR #5664, MI325X: 160 TFLOP/s at 256-dim heads, 80 at 512)
GFX942_TFLOPS_DIMS = 160.0 * 256
SOURCE = (
    "ROCm/aiter PR #5664 (2026-09-18, MI325X / gfx942, FP8 KV): the Triton unified attention at "
    "its BLOCK_M 16 default, prefill 159 / 160 TFLOP/s at 8K / 32K tokens (256-dim heads), 79-80 "
    "at 512-dim heads; vLLM's kernel sets BLOCK_M 16 for num_queries_per_kv <= 16 "
    "(vllm/v1/attention/ops/triton_unified_attention.py)"
)


def prefill_share(
    family: str, backend: str | None, bf16_tflops: float, head_dims: int, table: float
) -> float:
    """The prefill attention's share of the 16-bit peak under ``TRITON_ATTN`` on CDNA3 for heads
    of ``head_dims`` (module docstring), at most the table's share ``table``; 0 (the table's
    ``attention`` share) for any other backend or GPU family."""
    if backend != "TRITON_ATTN" or family != "cdna3" or bf16_tflops <= 0 or head_dims <= 0:
        return 0.0
    return min(table, GFX942_TFLOPS_DIMS / head_dims / bf16_tflops)


def applied(r: Rates, s: Scenario, gpu: GPUSpec, family: str, head_dims: int) -> Rates:
    """``r`` with ``prefill_attention`` set where the rule reads (module docstring); unchanged
    where the scenario sets its own compute efficiency (the user's share wins) or the model's
    attention is MLA's latent one (other kernels)."""
    if s.compute.flops_efficiency != ComputeSpec().flops_efficiency or resolve(s.model).mla is not None:
        return r
    bf16 = gpu.dense_tflops.get("bf16", 0.0)
    share = prefill_share(family, s.serving.attention_backend, bf16, head_dims, r.attention)
    return replace(r, prefill_attention=share) if share else r
