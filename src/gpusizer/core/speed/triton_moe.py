"""vLLM's Triton fused MoE at narrow expert slices: the second GEMM's grid of short tiles.

What the kernel runs (vllm/model_executor/layers/fused_moe/fused_moe.py, vLLM 0.17.1, the
release NeMo RL v0.6.0 pins; the same structure at 0.11.2): a tensor-parallel MoE layer's
16-bit experts go to ``fused_experts`` (``UnquantizedMoeBackend.TRITON``: FlashInfer's MoE only
with ``VLLM_USE_FLASHINFER_MOE_FP16``, off by default, oracle/unquantized.py), two calls of
``fused_moe_kernel``: w1 (gate and up, ``2 x width`` columns over ``hidden``) and w2 (down,
``hidden`` columns over ``width``), ``width`` the expert's intermediate over TP. The grid of each
call is ``cdiv(EM, BLOCK_SIZE_M) x cdiv(N, BLOCK_SIZE_N)`` program instances (CTAs),
``invoke_fused_moe_triton_kernel``: every expert's tokens padded to whole ``BLOCK_SIZE_M`` rows
(``moe_align_block_size``), and for w2 ``N = hidden``. Each w2 CTA loads one ``BLOCK_SIZE_N``
stripe of ``width`` rows, so at TP 16-32 (DeepSeek V3's 2,048 / 32 = 64 rows, Qwen3-235B's
1,536 / 16 = 96) a CTA is one iteration of its K loop (``BLOCK_SIZE_K`` 128 at decode): its
fixed cost (start, the A and B loads' latency without a pipeline to hide it, the C store) is
most of its time, and the call takes at least its CTA count times that cost, however few bytes
it streams. No tuned config ships for those shapes on H100, B200 or GB200 (``configs/E=256,
N=64,...``, ``E=256,N=128``, ``E=128,N=96``: A800, H20 or H200 only), so the tiles are
``get_default_config``'s for 16-bit experts (0.17.1): ``BLOCK_SIZE_M`` 16 up to 32 tokens, 32 up
to 96, 64 up to 512, then 128; ``BLOCK_SIZE_N`` 64 up to 64 tokens, then 128 (:func:`tiles`).

Measured: NVIDIA aiconfigurator 0.12.0's vLLM MoE tables (``systems/data/<gpu>/moe/vllm/
<release>/moe_perf.parquet``, BF16 ``vllm_fused_moe`` / ``vllm_unquantizedfusedmoe_triton_
tritonexperts``, EP 1). The step at 80 tokens is faster than at 64 on every narrow slice (H200,
DeepSeek V3 at TP 32: 0.266 ms at 64, 0.197 at 80), where ``BLOCK_SIZE_N`` doubles and the w2
grid halves, and a B200 runs the narrow slices no faster than an H200 (0.225 against 0.266 ms):
a bound by CTAs, not bytes. One constant, :data:`W2_CTA_SECONDS`, the GPU's time per w2 CTA, is
solved from one series alone (H200, release 0.19.0, DeepSeek V3's expert layer at TP 32,
``power_law_1.01``, 8-512 tokens; least squares of log(model / measured)); every other series
is out of sample (tests/core/test_triton_moe_tiles.py; docs/evidence/rl.md section 14). Taken
on the GPU families the tables measured (Hopper, datacentre Blackwell) for 16-bit experts.

Blackwell streams the experts slower than its bandwidth promises. At the same release, shapes and
token counts the B200's module runs 0.91-1.48x the H200's speed (the HBM ratio is 8.0 / 4.8 =
1.67x; Qwen3-235B at TP 8, 32-64 tokens: 0.94-1.03x), so at the family's grouped share the model
was 0.80-0.96 of the B200 series' times against 0.85-1.11 of the H200's. :data:`BLACKWELL_STREAM_SHARE`
scales datacentre Blackwell's grouped share for this kernel: the least squares of log(model /
measured) over the whole B200 table (8 series, 80 points, the w2 grid in place), 0.84; no RL
figure enters it; it applies to the whole datacentre Blackwell family (B200, GB200, B300, GB300),
measured on the B200. A GB200 runs no faster: its ``device_name`` is ``NVIDIA_GB200``, and vLLM
0.11.2 and 0.17.1 (NeMo RL v0.5.0 / v0.6.0) ship no 16-bit ``device_name=NVIDIA_GB200`` config at
all (their GB200 files are ``dtype=fp8_w8a8``), so ``get_default_config``'s tiles run there, where
the B200 table may have had tuned ones (``E=128,N=768,device_name=NVIDIA_B200.json`` ships from
0.17.1).
"""

from __future__ import annotations

import math

# seconds of the whole GPU per w2 CTA (module docstring): H200, vLLM 0.19.0, DeepSeek V3 at TP 32
W2_CTA_SECONDS = 10.5e-9
FAMILIES = ("hopper", "blackwell")  # measured there (module docstring)
SIXTEEN_BIT = ("bf16", "fp16")
GATED_DOWN_SHARE = 1.0 / 3.0  # w2 of a gated expert's three matrices (every MoE preset's SwiGLU)
# datacentre Blackwell's grouped share for this kernel over its family's (module docstring):
# aiconfigurator 0.12.0, b200_sxm, vLLM 0.19.0, BF16 Triton module, all 8 series
BLACKWELL_STREAM_SHARE = 0.84


def tiles(tokens: float) -> tuple[int, int]:
    """(BLOCK_SIZE_M, BLOCK_SIZE_N) of vLLM 0.17.1's ``get_default_config`` for 16-bit experts
    at ``tokens`` hidden states a call."""
    m = 16 if tokens <= 32 else 32 if tokens <= 96 else 64 if tokens <= 512 else 128
    return m, 64 if tokens <= 64 else 128


def w2_ctas(
    touched: float, tokens: float, top_k: int, hidden: int, tile: tuple[int, int] | None = None
) -> float:
    """CTAs of the w2 call: the touched experts' padded row blocks (their mean share of the
    ``tokens x top_k`` routed rows, whole ``BLOCK_SIZE_M`` blocks) times ``hidden / BLOCK_SIZE_N``;
    ``tile`` another config's (BLOCK_SIZE_M, BLOCK_SIZE_N) (SGLang's, core/speed/sglang_moe_tiles.py)."""
    if touched <= 0 or tokens <= 0:
        return 0.0
    bm, bn = tile or tiles(tokens)
    blocks = touched * math.ceil(tokens * top_k / touched / bm)
    return blocks * math.ceil(hidden / bn)


def applies(library: str, family: str, experts: str, own_gpu: bool, topk_sum: bool) -> bool:
    """Whether a step's experts run vLLM's Triton grid as measured: vendor kernels with the
    Triton / Marlin structure (``topk_sum``, set for vLLM in core/speed/step_model.py), 16-bit
    experts, a Hopper or datacentre Blackwell GPU without rates of its own (the H20's)."""
    return library == "vendor" and topk_sum and experts in SIXTEEN_BIT and family in FAMILIES and not own_gpu


def stream_share(family: str) -> float:
    """The share of the family's grouped streaming rate vLLM's Triton fused MoE reaches with
    16-bit experts (module docstring): :data:`BLACKWELL_STREAM_SHARE` on datacentre Blackwell,
    else 1 (Hopper's series meet the family's share)."""
    return BLACKWELL_STREAM_SHARE if family == "blackwell" else 1.0
