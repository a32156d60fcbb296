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
  same 107.8).

Every other share (FP8, weight-only, grouped GEMMs' half rate, bandwidth, kernel floor) stays
the Hopper entry's: no H20 measurement of its own. Replayed by the Mooncake team's SGLang 1P1D
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
H20_MATMUL = 0.936
H20_ATTENTION = 0.728
_HOPPER = RATES[("vendor", "hopper")]

GPU_RATES: dict[tuple[str, str], Rates] = {
    ("vendor", "h20-96gb"): replace(
        _HOPPER,
        matmul=H20_MATMUL,
        attention=H20_ATTENTION,
        sources=(*_HOPPER.sources, _H20_GEMM, _H20_ATTENTION),
    ),
}


def gpu_rates(gpu: Device, library: str) -> Rates | None:
    """The GPU model's own entry for ``library`` (None: its architecture's applies). Keyed by
    the catalog id, so a custom GPU that names a catalog id takes that GPU's kernels."""
    return GPU_RATES.get((library, str(getattr(gpu, "id", ""))))
