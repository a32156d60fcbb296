"""Achieved rates of one GPU model where its measured kernels differ from its architecture's
entry (core/speed/rates.py ``RATES``), keyed (library, catalog GPU id).

H20 (``h20-96gb``): a Hopper (GH100) whose tensor-core rate NVIDIA cut for export to 148 BF16
TFLOPS, a seventh of the H100 SXM's 989, at 400 W. The Hopper entry's shares are the H100's,
whose large GEMMs run with the board at its power limit and the clock below boost (DeepGEMM's
FP8 GEMMs at 50-69 % of peak, FlashAttention-3 at up to 75 %); the H20's SMs do a seventh of the
tensor work per clock, so they hold their clock and a GEMM reaches nearly the whole of its own,
lower peak. Measured on H20:

- 16-bit GEMMs: torch.matmul BF16 at 8,192 x 8,192 x 8,192, 138.60 TFLOPS = 93.6 % of 148
  (zzc0721/torch-performance-test-data issue #77, 2025-10-17, PyTorch 2.7.0 + CUDA 12.8: 133.41
  at 4,096, 142.25 at 10,240);
- prefill attention: FlashAttention-3 forward, causal, head dim 128, batch 2 x 2,048 tokens,
  107.8 TFLOPS = 72.8 % of 148 (Dao-AILab/flash-attention issue #1310, 2024-11-01; cuDNN the
  same 107.8);
- grouped MoE GEMMs: vLLM's Triton ``fused_moe_kernel`` in BF16 with the PR's tuned configs (vLLM
  ships tuned H20 configs for Qwen3's MoE shapes, E=128 N=192 / 384), one expert GEMM of
  Mixtral's shape (8 experts of 14,336 x 4,096, top-2; vllm-project/vllm PR #44152, 2026-06-01,
  a kernel-level benchmark on one H20; the untuned fallback is slower): at batch 32 (every expert read, 8
  tokens each) 0.279 ms, 939.5 MB of weights at 3.37 TB/s = 84 % of 4.0 TB/s
  (``grouped_bandwidth``; the Hopper entry's 62 % is DeepGEMM's FP8 on an H100); at batch 512
  (128 tokens an expert) 112.5 TFLOPS against 133.4 at batch 2,048 (512 an expert), 0.843 of the
  large-m rate: half rate at 128 x (1 / 0.843 - 1) = 24 tokens an expert (``grouped_half``),
  read as the Hopper entry's 95 was from DeepGEMM's 256- and 8,192-token points. The H20's
  tensor cores, a seventh of the H100's behind the same kind of memory, fill at a quarter of the
  tokens an expert; with the H100's 95 a few-token expert GEMM on an H20 came out compute-bound
  at ~9 % of the matmul rate, slower than streaming its weights. Out of sample: batch 1 (2
  experts read) 0.076 ms, ours 0.073; batch 128 (32 an expert) 0.435 ms, ours 0.380.

- FP8 GEMMs: DeepGEMM's FP8 GEMM at 32,768 tokens, 0.938-0.951 of the 296 FP8 TFLOPS on the
  five largest shapes of alibaba/InferSim's H20 table (``bench_data/gemm/h20/data.csv``: k 5,120 x
  n 51,200 0.945, k 25,600 x n 5,120 0.952, k 4,096 x n 24,576 0.945, k 12,288 x n 4,096 0.946,
  k 5,120 x n 10,240 0.941): 0.94 (``matmul_low``; the Hopper entry's 0.62 is DeepGEMM's on an
  H800, whose board power caps its clock). The same table shows the 64-row tile every Hopper
  tensor-core GEMM computes (core/speed/rates.py ``HOPPER_MMA_ROWS``): from 8 to 64 tokens a
  GEMM takes one time, compute-bound on its padded tile at the H20's rate.

Every other share (weight-only, bandwidth, kernel floor) stays the Hopper entry's: no H20
measurement of its own. Replayed by the Mooncake team's SGLang 1P1D
Qwen3-235B runs on H20 (tests/core/test_disagg_evidence.py, docs/evidence/serving.md §14).
"""

from __future__ import annotations

from dataclasses import replace

from .rates import RATES, Device, Rates

_H20_GEMM = (
    "zzc0721/torch-performance-test-data issue #77 (2025-10-17): NVIDIA H20, torch 2.7.0 cu128, BF16 "
    "matmul 8192^3 138.60 TFLOPS = 93.6 % of 148"
)
_H20_ATTENTION = (
    "Dao-AILab/flash-attention issue #1310 (2024-11-01): H20, FA3 fwd causal hdim 128 batch 2 seqlen "
    "2048, 107.8 TFLOPS = 72.8 % of 148"
)
_H20_GROUPED = (
    "vllm-project/vllm PR #44152 (2026-06-01): H20, fused_moe_kernel BF16 tuned, Mixtral shape (E 8, N "
    "14336, K 4096, top-2): batch 32 0.279 ms (3.37 TB/s = 84 % of 4.0), batch 512 1.069 ms and 2048 "
    "3.606 ms (112.5 / 133.4 TFLOPS: half rate at 24 tokens an expert)"
)
_H20_FP8 = (
    "alibaba/InferSim bench_data/gemm/h20/data.csv (DeepGEMM FP8 GEMM on an H20): at m 32768, 0.945 / "
    "0.952 / 0.945 / 0.946 / 0.941 of 296 TFLOPS on k x n 5120 x 51200, 25600 x 5120, 4096 x 24576, "
    "12288 x 4096, 5120 x 10240"
)
H20_MATMUL = 0.936
H20_MATMUL_LOW = 0.94
H20_ATTENTION = 0.728
H20_GROUPED_BANDWIDTH = 0.84
H20_GROUPED_HALF = 24.0
_HOPPER = RATES[("vendor", "hopper")]

GPU_RATES: dict[tuple[str, str], Rates] = {
    ("vendor", "h20-96gb"): replace(
        _HOPPER,
        matmul=H20_MATMUL,
        matmul_low=H20_MATMUL_LOW,
        attention=H20_ATTENTION,
        grouped_bandwidth=H20_GROUPED_BANDWIDTH,
        grouped_half=H20_GROUPED_HALF,
        sources=(*_HOPPER.sources, _H20_GEMM, _H20_FP8, _H20_ATTENTION, _H20_GROUPED),
    ),
}


def gpu_rates(gpu: Device, library: str) -> Rates | None:
    """The GPU model's own entry for ``library`` (None: its architecture's applies). Keyed by
    the catalog id, so a custom GPU that names a catalog id takes that GPU's kernels."""
    return GPU_RATES.get((library, str(getattr(gpu, "id", ""))))
