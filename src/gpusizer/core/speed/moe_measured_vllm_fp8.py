"""Where vLLM runs block-FP8 experts on Hopper through its Triton fused MoE, so the step reads
that module's measured time (core/speed/moe_measured.py ``VLLM_TRITON_FP8_BLOCK``) in place of
the grouped-GEMM rates (DeepGEMM's, core/speed/rates.py).

A block-scaled (128 x 128) FP8 checkpoint (DeepSeek-V3/R1, Qwen3-FP8) loads through
``Fp8MoEMethod`` (vllm/model_executor/layers/quantization/fp8.py). Which kernel multiplies its
experts on compute capability 9.0 at EP 1, read in the PyPI sdists (``vllm-<v>.tar.gz``):

- 0.10.1 - 0.11.x: ``fused_experts`` (fused_moe/fused_moe.py) calls ``deep_gemm_moe_fp8`` only
  where ``allow_deep_gemm`` (``VLLM_USE_DEEP_GEMM``: off by default in 0.10.1, on from 0.11.0 with
  DeepGEMM installed) and ``_valid_deep_gemm`` (fused_moe/deep_gemm_moe.py) hold; the latter
  refuses ``N <= 512`` ("DeepGemm disabled for N <= 512 ... we will fallback to triton"), N being
  ``w2``'s last dimension, the experts' intermediate size on one rank. Otherwise (and without
  ``VLLM_USE_FLASHINFER_MOE_FP8``, off by default) ``dispatch_fused_experts_func``: Triton's
  ``fused_moe_kernel``, W8A8 with ``block_shape`` [128, 128]. The cutlass block-scaled grouped
  GEMM is SM100's only (``allow_cutlass_block_scaled_grouped_gemm``).
- 0.12.0 - 0.14.x: ``get_fp8_moe_backend`` (quantization/fp8.py; 0.14's fused_moe/oracle/fp8.py
  ``select_fp8_moe_backend``): FlashInfer only with ``VLLM_USE_FLASHINFER_MOE_FP8``; DeepGEMM
  "disabled by default when TP size is >= 8", and where taken it falls back to Triton through the
  same ``_valid_deep_gemm`` N gate (``TritonOrDeepGemmExperts``, triton_deep_gemm_moe.py); the
  CUTLASS block-scaled grouped GEMM on SM100 only; else TRITON.
- 0.16.x: the oracle walks FLASHINFER_CUTLASS before DEEPGEMM and TRITON, and FlashInfer's
  CUTLASS MoE supports "fp8 block-scale on 9.0" (flashinfer_cutlass_moe.py
  ``_supports_quant_scheme``): another kernel, not read here (0.15.x: no sdist read).
- 0.17.0 - 0.19.0: ``_get_priority_backends`` "On Hopper for Block Fp8, prefer Triton for TP and FI
  CUTLASS for EP" moves TRITON to the front where ``ep_size`` is 1. aiconfigurator's vLLM 0.24.0
  collector, which lets vLLM select the backend as in serving and records it, found the same
  (``kernel_source`` ``vllm_fp8moe_triton_tritonexperts`` at EP 1, FlashInfer's CUTLASS experts
  at EP 2 and up), so the rule is read as held through 0.24.x (0.20.0 - 0.23.x not read).

So 0.10.1 - 0.14.x run Triton where a rank's share of an expert's intermediate size is at most
512 (:data:`MAX_WIDTH`): DeepSeek-V3/R1's 2,048 at TP 4 or more, Qwen3-235B's 1,536 at TP 4 or
more; wider slices run DeepGEMM from 128 tokens there with DeepGEMM installed (the image is
rarely stated), so they keep the rates. 0.17.0 on runs Triton at EP 1 whatever the width (the
oracle's TRITON backend is ``TritonExperts``, not the DeepGEMM fallback class). A stated
``--moe-backend`` other than "triton" keeps the rates, as do expert-parallel layers (the tables
are EP 1) and LoRA-served experts (core/serving/moe_layout.py).

Measured: NVIDIA aiconfigurator 0.12.0's vLLM 0.24.0 tables on the H100 SXM and H200
(scripts/triton_moe_module_table.py; ``FusedMoE.forward``, routing included, no router GEMM, no
shared experts), at every expert shape and TP it holds, 1-16,384 tokens. The kernel and its tuned
configs are the releases': where aiconfigurator timed the same shape under vLLM 0.19.0's
``fused_experts`` on the H200 (``vllm_fused_moe`` fp8_block, DeepSeek-V3 at TP 8), the two
0.24.0 table reads 0.86-1.08 the older's time at every count under either routing, 0.98-1.05 from
2,048 tokens (tests/core/test_vllm_fp8_moe_measured.py). At that shape the module reads 0.057 ms a call at one
token, 0.33 at 128, 2.54 at 8,192 (H200): 284 TFLOPS at 8,192, where the grouped-GEMM rates
(DeepGEMM's) read the same call about twice as fast (docs/evidence/speed.md, the section on
vLLM's block-FP8 MoE on Hopper).
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..registry.moe_backends import TRITON
from .moe_measured import FORMATS, VLLM_TRITON_FP8_BLOCK

ENGINE = "vllm"  # the serving framework (core/registry/frameworks.py id)
HOPPER = ((9, 0), (10, 0))  # compute capability from, below
MAX_WIDTH = 512  # deep_gemm_moe.py ``_valid_deep_gemm``: "DeepGemm disabled for N <= 512"
# (first release, below this release, the widest slice run by Triton; 0 any) of the windows read
# as running Triton (module docstring)
RELEASES: tuple[tuple[tuple[int, ...], tuple[int, ...], int], ...] = (
    ((0, 10, 1), (0, 15, 0), MAX_WIDTH),
    ((0, 17, 0), (0, 25, 0), 0),
)


def vllm_fp8_module(
    s: Scenario, cc: tuple[int, int], experts: str, rule: str, version: tuple[int, ...]
) -> str:
    """``VLLM_TRITON_FP8_BLOCK`` where ``s`` runs vLLM (release ``version``) with ``experts`` in
    block FP8 (``rule``) on a GPU of compute capability ``cc`` through Triton's fused MoE (module
    docstring); "" elsewhere."""
    moe = s.model.moe
    if s.profile.id != ENGINE or moe is None or not HOPPER[0] <= cc < HOPPER[1]:
        return ""
    if (experts, rule) != FORMATS[VLLM_TRITON_FP8_BLOCK] or s.serving.moe_backend not in (None, TRITON):
        return ""
    width = moe.expert_ffn_hidden_size / max(1, s.parallelism.tensor)
    for first, below, widest in RELEASES:
        if first <= version < below and (not widest or width <= widest):
            return VLLM_TRITON_FP8_BLOCK
    return ""
