"""vLLM's MoE expert kernels for BF16 (unquantized) experts, ``--moe-backend``
(``serving.moe_backend``, ``rl.rollout.moe_backend``): a registry of the backends a scenario
may state, and which one each vLLM release picks by default per GPU family.

vLLM's ``KernelConfig.moe_backend`` ("auto" by default; vllm/config/kernel.py, 0.19.0 and
0.20.0) names the kernel; for unquantized experts ``map_unquantized_backend``
(vllm/model_executor/layers/fused_moe/oracle/unquantized.py, 0.20.0) accepts "triton",
"flashinfer_trtllm", "flashinfer_cutlass" and "aiter" (ROCm). "auto" walks
``_get_priority_backends`` and takes the first whose ``is_supported_config`` holds (read in the
PyPI sdists, ``vllm-<v>.tar.gz``):

- before 0.20.0: TRITON unless ``VLLM_USE_FLASHINFER_MOE_FP16`` is set (0.11.2
  ``UnquantizedFusedMoEMethod``; 0.17.1-0.19.0 ``select_unquantized_moe_backend``).
- 0.20.0 - 0.22.1: on CUDA FLASHINFER_TRTLLM, FLASHINFER_CUTLASS, TRITON, in that order.
  ``TrtLlmBf16Experts`` (experts/trtllm_bf16_moe.py) supports the SM100 family only (SiLU,
  DeepSeekV3 / Llama4 / Renormalize routing); ``FlashInferExperts``
  (flashinfer_cutlass_moe.py ``_supports_current_device``) supports cc 9.0 and the SM100 / 110 /
  120 families, unquantized on cc >= 9.0. So SM100 runs FlashInfer's TRT-LLM BF16 MoE and
  Hopper FlashInfer's CUTLASS MoE (an expert-data-parallel run, dp > 1, moves CUTLASS last).
- 0.23.0 on: vllm-project/vllm PR #44220 (merged 2026-06-01, first in 0.23.0; 0.22.1's oracle
  is 0.22.0's) moves both FlashInfer backends behind TRITON on ``is_device_capability_family(90)``
  ("On Hopper (SM90), the FlashInfer unquantized MoE kernels are slower than Triton"): Hopper
  runs Triton again, SM100 FlashInfer's TRT-LLM MoE.

The step reads a measured module only where the backend is Triton
(core/speed/moe_measured_lanes.py); FlashInfer's BF16 kernels have no measured table read here,
so they are priced by the grouped-GEMM rates (core/speed/rates.py), as every shape without a
table is.

"aiter" is ROCm's: AITER's fused MoE (vllm/_aiter_ops.py ``_rocm_aiter_fused_moe_impl``
calling ``aiter.fused_moe``, taken where ``VLLM_ROCM_USE_AITER=1`` and ``VLLM_ROCM_USE_AITER_MOE``
are set, or where the ATOM plugin's model code calls AITER itself). No release picks it by
default (vllm/envs.py ``VLLM_ROCM_USE_AITER`` False), so a run states it. On ROCm the flag names
the kernel of quantised experts too: with block-FP8 experts on an AMD GPU the step reads AITER's
tuned fmoe table at the model's shape where it holds it (core/speed/moe_measured_aiter.py).

SGLang states the same kernel its own way: ``SGLANG_USE_AITER=1`` on ROCm routes its fused MoE
to AITER (sglang/srt/layers/moe/moe_runner/aiter.py calling ``aiter.fused_moe``; the ROCm blog
"Accelerate DeepSeek-R1 Inference: Integrate AITER into SGLang", 2025-05-16: "Top-K routing, MoE
sorting, BlockScale FP8 MoE computation"; ``--moe-runner-backend aiter`` in later releases), off
by default. So "aiter" is the one value an SGLang scenario may state (``MoeBackend.engines``).
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add

Capability = tuple[int, int]  # CUDA compute capability (major, minor)


@dataclass(frozen=True)
class MoeBackend:
    """One vLLM MoE backend for BF16 experts: its ``--moe-backend`` value and a short label."""

    id: str
    label: str
    source: str
    # the serving frameworks (core/registry/frameworks.py ids) that can be told to run it
    engines: tuple[str, ...] = ("vllm",)


TRITON, FLASHINFER_TRTLLM, FLASHINFER_CUTLASS = "triton", "flashinfer_trtllm", "flashinfer_cutlass"
AITER = "aiter"
ENGINE = "vllm"  # the serving framework (core/registry/frameworks.py id) whose flag this is
_SGLANG_AITER = "SGLang SGLANG_USE_AITER=1: moe_runner/aiter.py -> aiter.fused_moe (ROCm)"
_ORACLE = "vllm/model_executor/layers/fused_moe/oracle/unquantized.py map_unquantized_backend (0.20.0)"
MOE_BACKENDS: dict[str, MoeBackend] = {}
for _b in (
    MoeBackend(TRITON, "Triton", f"{_ORACLE}: TritonExperts (fused_moe.py)"),
    MoeBackend(FLASHINFER_TRTLLM, "FlashInfer TRT-LLM", f"{_ORACLE}: TrtLlmBf16Experts, SM100 only"),
    MoeBackend(FLASHINFER_CUTLASS, "FlashInfer CUTLASS", f"{_ORACLE}: FlashInferExperts, cc 9.0 / SM100+"),
    MoeBackend(
        AITER,
        "AITER (ROCm)",
        f"vllm/_aiter_ops.py _rocm_aiter_fused_moe_impl: aiter.fused_moe, ROCm; {_SGLANG_AITER}",
        engines=(ENGINE, "sglang"),
    ),
):
    add(MOE_BACKENDS, _b.id, _b, "MoE backend")

# (first release, GPUs from this cc, below this cc, the default backend), newest first: a
# release takes the first row at or below its version whose range holds the GPU; none: Triton
_HOPPER, _SM100 = ((9, 0), (10, 0)), ((10, 0), (11, 0))
VLLM_BF16_DEFAULTS: tuple[tuple[tuple[int, ...], Capability, Capability, str], ...] = (
    ((0, 23, 0), *_HOPPER, TRITON),  # PR #44220
    ((0, 23, 0), *_SM100, FLASHINFER_TRTLLM),
    ((0, 20, 0), *_HOPPER, FLASHINFER_CUTLASS),
    ((0, 20, 0), *_SM100, FLASHINFER_TRTLLM),
)


def default_moe_backend(version: tuple[int, ...], cc: Capability) -> str:
    """The backend a vLLM release of ``version`` (its numbers) picks for BF16 experts on a GPU of
    compute capability ``cc`` with ``--moe-backend auto`` (module docstring); Triton before
    0.20.0, off these GPU families and for an unknown version (())."""
    for first, low, below, backend in VLLM_BF16_DEFAULTS:
        if version >= first and low <= cc < below:
            return backend
    return TRITON
