"""Achieved rates of Apple MLX's Metal kernels (``FrameworkProfile.kernels`` "mlx": mlx-lm),
entries of core/speed/rates.py ``RATES`` keyed ("mlx", family).

The mechanisms, from MLX's source (ml-explore/mlx ``mlx/backend/metal``):

- quantised weights (mlx_int4/6/8, core/registry/dtypes.py) are multiplied by ``quantized_matmul``:
  a matrix-vector kernel (``qmv``) for a decode step's few rows, which streams the packed weights
  with their scales and biases (bandwidth-bound), and a tiled kernel (``qmm``) that dequantises
  each tile into threadgroup memory and multiplies in the activations' 16-bit dtype for a prompt
  (compute-bound: ``matmul_quant`` of the 16-bit peak); MoE experts by ``gather_qmm``;
- 16-bit weights by MLX's steel GEMM (``matmul``);
- attention by ``mx.fast.scaled_dot_product_attention``: a fused flash-style kernel for prompts
  (``attention``) and ``sdpa_vector`` for decode, which reads the KV cache at ``bandwidth``;
- one Metal dispatch per op, no CUDA graphs: a kernel floor per op (core/speed/step_kernels.py
  ``MLX_LAYER``), no host launch cost (the next token's graph is built by ``mx.async_eval``
  while the GPU runs this one).

Apple publishes no FLOPS; the catalog's 16-bit peaks equal its FP32 peaks (no matrix units that
double them before the M5). Each share is solved from one published figure (named per entry);
every other figure of tests/core/data/speed-figures-apple.json "mlx" records is out of sample.
M3 and later (``gpu_family`` "apple-m3") and M1/M2 ("apple") differ in their bandwidth share
only: MLX's compute shares solved on an M3 Max replay an M2 Ultra's long prompt within 6 %, so
ggml's Dynamic Caching factor (core/speed/rates.py) has no MLX counterpart.
"""

from __future__ import annotations

from .rates import RATES, Rates, us

_CHIGKIM = (
    "ml-explore/mlx-examples#1029 (chigkim, 2024-12-15): M3 Max 64 GB (40-core GPU), mlx-lm 0.20.4, "
    "Llama-3.3-70B-Instruct-4bit"
)
_DATA = "tests/core/data/speed-figures-apple.json (mlx records; docs/evidence/speed.md)"

# Each constant is solved from the one figure named beside it; the other 17 figures are out of sample.
# Quantised (qmm) and 16-bit GEMMs, of the 16-bit peak: the 70B's 4,126-token prompt (79.41 t/s), where
# its linear layers take nine tenths of the FLOPs. No 16-bit prompt figure was found: steel GEMM takes
# the quantised share (qmm dequantises tiles in threadgroup memory and runs the same MMA loop).
MATMUL_QUANT = 0.8
# Fused attention (mx.fast.scaled_dot_product_attention), of the 16-bit peak: the 70B's 30,136-token
# prompt (58.08 t/s), a third of whose FLOPs are attention.
ATTENTION = 0.56
# Decode's weight and KV reads (qmv, sdpa_vector), of the catalog's bandwidth: M3 and later from the
# 70B's generation after 260 prompt tokens (9.351 t/s, 39.7 GB a token); M1/M2 from Llama 3 70B in
# 16-bit on an M2 Ultra (4.7 t/s, 141 GB a token); whether its two dies or its generation costs the
# difference, no single-die M1/M2 figure of a release after 0.19.0 tells apart.
BANDWIDTH_M3 = 0.99
BANDWIDTH_M2 = 0.85
# Seconds per Metal dispatch (MLX_LAYER ops a layer): Llama 3.1 8B 4-bit decoding on an M3 Ultra
# (Rapid-MLX PR #586, 119.39 t/s: 4.5 GB read in 5.6 ms of an 8.4 ms token).
KERNEL_FLOOR = 5.2
# Experts read by gather_qmv (each selected expert's matrices a slice of the grid: a few threadgroups
# per matrix, not a whole GPU's), of the bandwidth: DeepSeek-V3 4-bit decoding at 4,096 tokens on an
# M3 Ultra 512 GB (mlx-lm PR #839, 20.647 t/s); Qwen3 30B-A3B on the M3 Max out of sample.
GROUPED_BANDWIDTH = 0.57
# Tokens per expert at which a prompt's gather_qmm runs at half its rate (the experts' rows sorted
# by expert, mlx-lm PR #100): Qwen3 30B-A3B 4-bit's 512-token prompt on an M4 Max (mlx-lm PR #406,
# 1,480 t/s at 32 tokens per expert); its 2,048-token prompt, the M3 Max's and DeepSeek-V3's out
# of sample.
GROUPED_HALF = 36


def _mlx(bandwidth: float, sources: tuple[str, ...]) -> Rates:
    return Rates(
        matmul=MATMUL_QUANT,
        matmul_low=MATMUL_QUANT,  # Apple GPUs before the M5 have no FP8/INT8 matrix units
        matmul_quant=MATMUL_QUANT,
        attention=ATTENTION,
        bandwidth=bandwidth,
        kernel_floor=KERNEL_FLOOR * us,
        grouped_bandwidth=GROUPED_BANDWIDTH,
        grouped_half=GROUPED_HALF,
        sources=sources,
    )


_SHARED = (
    f"{_CHIGKIM}: prompt 4,126 (matmul shares) and 30,136 tokens (attention)",
    "raullenchai/Rapid-MLX PR #586 (M3 Ultra 60-core, mlx 0.31.2): Llama 3.1 8B 4-bit decode 119.39 t/s "
    "(kernel floor)",
    "ml-explore/mlx-lm PR #839 (2026-02-03): DeepSeek-V3 4-bit at 4,096 tokens, 20.647 t/s (experts' reads)",
    "ml-explore/mlx-lm PR #406 (2025-08-28, M4 Max): Qwen3 30B-A3B 4-bit prompt 512, 1,480.329 t/s "
    "(grouped_half)",
    _DATA,
)
MLX_RATES: dict[tuple[str, str], Rates] = {
    ("mlx", "apple-m3"): _mlx(
        BANDWIDTH_M3, (f"{_CHIGKIM}: generation after 260 tokens (bandwidth)", *_SHARED)
    ),
    ("mlx", "apple"): _mlx(
        BANDWIDTH_M2,
        (
            "ml-explore/mlx-examples PR #1069 (awni, 2024-10-24): M2 Ultra, Llama 3 70B in 16-bit, wired, "
            "generation 4.7 t/s (bandwidth); compute shares the M3's (an M2 Ultra's 33,898-token prompt "
            "replays within 6 % on them)",
            *_SHARED,
        ),
    ),
}
# another unified-memory GPU under MLX (none in the catalog runs it): the M1/M2 entry
MLX_RATES[("mlx", "")] = MLX_RATES[("mlx", "apple")]
RATES.update(MLX_RATES)
