"""Decode attention on CDNA3 walks each sequence's context one tile at a time: a floor.

vLLM's Triton unified attention (``TRITON_ATTN``, the V1 backend a ROCm build before 0.19 runs
without AITER: docs/evidence/speed.md section 86.1) gives each (sequence, KV head) of a
decode-only step ``NUM_PAR_SOFTMAX_SEGMENTS`` = 16 programs (vllm/v1/attention/backends/
triton_attn.py; the 3D split-KV kernel up to ``seq_threshold_3D`` = 128 // KV heads sequences,
above it and in any step carrying a prompt the 2D kernel, one program walking the whole context).
A program loops over its segment's tiles: it loads a tile's block-table entries, then its K and
V (cast to the query's dtype), two dots and a softmax step, and carries the softmax state to the
next tile (vllm/v1/attention/ops/triton_unified_attention.py ``kernel_unified_attention``). At a
few sequences the programs are far fewer than the CUs, so the kernel takes one program's walk,
not the cache's bytes at the chip's bandwidth.

Measured on gfx942: ROCm/aiter PR #5415 (2026-09-10, MI325X) times vLLM v0.28's in-tree kernel at
32 query / 16 KV heads of 256 dims, BF16 cache, block 64, a 1,024-token window at 8K of context:
59.87 us at batch 1 and 63.89 at batch 8 (78.47 at 16, 166.53 at 32, on the 2D kernel). At batch
1 two of each head's 16 segments of 512 tokens meet the window, so 32 programs each walk 512
tokens of 1,024 bytes (K and V of one head) in ``_get_tile_size``'s 32-token tiles; batch 8
(256 programs, 304 CUs) is as fast: the walk, flat in the batch. Less the 3 us the step charges
each of its two kernels (``Rates.kernel_floor``): (59.87 - 6) us / 512 = 105 ns a token, one
program streaming 1,024 B / 105 ns = 9.7 GB/s (``Rates.decode_walk``). ROCm/aiter PR #5675 (AITER's
copy of the kernel, MI325X, 512 dims, FP8 cache, 64 segments, batch 1) reads slower: 256
programs of 512 tokens at 32K in 107 us (1,251 GB/s), 4.9 GB/s each.

The floor at another head: a program streams at most that rate. A smaller tile holds fewer bytes
in flight (fewer tokens of fewer bytes), and a narrower head halves the dots per token where
it quarters the bytes, so a program reading ``b`` cache bytes a token per KV head takes at least
``b / decode_walk`` a token, the least of the ways its time could scale. Each sequence's KV heads
and segments run side by side, so a decode step's attention takes at least ``b / decode_walk /
16`` per context token of its sequences' mean context, per layer: Qwen3-235B with an FP8 cache at
TP 8 (one KV head of 128 dims a GPU, 256 bytes a token) 1.65 ns a token, 27 us a layer at 16,500
tokens. A floor: the 2D kernel (one program per head and sequence), more programs than CUs, and
AITER's unsplit ASM decode (ROCm/aiter PR #4794: one workgroup per KV head and sequence) all walk
longer. Not applied to MLA's latent decode (other kernels) or off CDNA3 (``decode_walk`` 0).

Read only where the scenario states the backend (``serving.attention_backend`` "TRITON_ATTN";
core/speed/step_rates.py zeroes ``decode_walk`` otherwise): AITER's paged attention and V0's HIP
kernel split the context their own ways (256-token partitions) at rates not measured here, and
a floor taken from the Triton kernel overstates them (AMD's rocm/vllm 0.11.1rc image, AITER on:
Llama 3.3 70B's batch-1 time per token would read 1.08 of the published, 1.02 without it).
"""

from __future__ import annotations

from .rates_entry import Rates
from .roofline_shape import Shape

# programs per (sequence, KV head) of TRITON_ATTN's split-KV decode (NUM_PAR_SOFTMAX_SEGMENTS)
SEGMENTS = 16


def head_bytes(sh: Shape) -> float:
    """Cache bytes one token holds for one KV head in one layer on this GPU: the layer's K+V
    bytes (``Shape.kv_tok``) over its KV heads, read off the q/k/v width (0 if none)."""
    dqk, dv = sh.decode_dims
    kv_heads = round((sh.qkv_out - sh.heads * dqk) / (dqk + dv)) if dqk + dv else 0
    return sh.kv_tok / kv_heads if kv_heads > 0 else 0.0


def walk_per_position(sh: Shape, rates: Rates, mla: bool) -> float:
    """Seconds a decode step's attention takes at least per context position (summed over
    layers) of its sequences' mean context (module docstring); 0 off CDNA3 and for MLA."""
    if not rates.decode_walk or mla:
        return 0.0
    return head_bytes(sh) / rates.decode_walk / SEGMENTS
