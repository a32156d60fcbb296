"""Which measured MoE module (core/speed/moe_measured.py) an engine's experts read, by the
experts' format and the GPU: the engine's own kernel for that format, as its source selects it,
timed by NVIDIA aiconfigurator 0.12.0 at the model's expert shape.

- vLLM, BF16 experts, Hopper (compute capability 9.x), where the release's default backend or
  the stated ``--moe-backend`` is Triton (core/registry/moe_backends.py: every release but
  0.20.0 - 0.22.x, whose oracle tries FlashInfer's CUTLASS MoE first on Hopper and so is
  priced by the grouped-GEMM rates): the unquantized method's TRITON backend
  (vllm/model_executor/layers/fused_moe/oracle/unquantized.py; before 0.20.0 FlashInfer's MoE
  only with ``VLLM_USE_FLASHINFER_MOE_FP16``, off by default; before the oracle,
  ``UnquantizedFusedMoEMethod.forward_cuda`` called the same ``fused_experts``): two
  ``fused_moe_kernel`` calls and ``moe_sum`` (fused_moe.py ``TritonExperts``). aiconfigurator's
  vLLM collector (collector/vllm/collect_moe.py) builds vLLM's ``FusedMoE`` and lets vLLM
  select the backend "exactly as it does for model execution", recording the selection in
  ``kernel_source``: ``vllm_unquantizedfusedmoe_triton_tritonexperts`` on the H100 SXM and H200
  under vLLM 0.24.0. On datacentre Blackwell the same release selected FlashInfer's TRT-LLM BF16
  MoE (``..._flashinfer_trtllm_trtllmbf16experts``), another kernel: not read there.
- SGLang, BF16 and block-FP8 experts, Hopper, the releases of the ``sglang-triton-moe`` kernel
  era (0.5 on, core/speed/rates_sglang_moe.py): a tensor-parallel MoE layer without DeepEP runs
  the Triton runner, ``fused_experts`` of sglang/srt/layers/moe/fused_moe_triton/fused_moe.py
  (W8A8 with ``block_shape`` [128, 128] for block FP8); the ``deep_gemm`` runner serves
  DeepEP's expert-parallel layers only and ``flashinfer_trtllm`` is SM100's
  (``MoeRunnerBackend``, sglang/srt/layers/moe/utils.py). Timed as ``sglang_fused_moe_triton``
  (collector/sglang/collect_moe.py, SGLang 0.5.14).
- vLLM before 0.20.0 (or a later release with ``--moe-backend triton`` stated), BF16 experts,
  datacentre Blackwell (compute capability 10.x): Triton too.
  0.11.2's ``UnquantizedFusedMoEMethod`` enables FlashInfer's CUTLASS MoE only with
  ``VLLM_USE_FLASHINFER_MOE_FP16`` (and EP); 0.17.1-0.19.0's oracle/unquantized.py
  ``select_unquantized_moe_backend`` picks FLASHINFER_TRTLLM only with that switch and
  ``VLLM_FLASHINFER_MOE_BACKEND=latency``, TRITON otherwise (both off by default; read in the
  PyPI sdists). From 0.20.0 the oracle tries FLASHINFER_TRTLLM first on CUDA
  (``_get_priority_backends``; ``TrtLlmBf16Experts`` supports the SM100 family): not read (no
  lane), unless the run states ``--moe-backend triton`` (NeMo RL v0.7.0's rollouts,
  core/registry/moe_backends.py). No release through 0.20.0 ships a tuned BF16 config named
  ``NVIDIA_GB200`` for the Qwen3 or DeepSeek-V3 expert shapes (``fused_moe/configs``), so a GB200 runs
  ``get_default_config`` ("Using default MoE config. Performance might be sub-optimal!").
  Timed: aiconfigurator 0.12.0's B200 table of vLLM 0.19.0 (``vllm_fused_moe``,
  core/speed/moe_measured.py ``VLLM_TRITON_BF16_SM100``, the GB200 reading the B200's rows).

The tables are EP 1, the experts' intermediate split over TP (core/speed/step_model.py reads them
only there). vLLM's block-FP8 experts on Hopper are read where a release runs Triton for them
(core/speed/moe_measured_vllm_fp8.py, by release and a rank's expert width). Not read: the
tables' Blackwell rows of either engine beyond SGLang's FlashInfer block-FP8 module
(core/serving/moe_layout.py), and LoRA-served experts (another kernel).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry.moe_backends import TRITON, default_moe_backend
from .moe_measured import (
    SGLANG_TRITON_BF16,
    SGLANG_TRITON_FP8_BLOCK,
    VLLM_TRITON_BF16,
    VLLM_TRITON_BF16_SM100,
)
from .rates_sglang_moe import SGLANG_TRITON_MOE

Capability = tuple[int, int]  # CUDA compute capability (major, minor)


@dataclass(frozen=True)
class Lane:
    """One engine's measured module for one experts' format on a range of GPUs."""

    module: str  # a core/speed/moe_measured.py id
    engine: str  # the serving framework's id
    low: Capability  # from this compute capability on ...
    below: Capability  # ... below this one
    experts: str  # the experts' dtype
    rule: str = ""  # the checkpoint's quantisation rule, "" any
    kernel_era: str | None = None  # the release's ``kernel_era`` it needs; None any release
    backend: str | None = None  # the vLLM ``--moe-backend`` it times (moe_backends.py); None any


LANES: tuple[Lane, ...] = (
    Lane(VLLM_TRITON_BF16, "vllm", (9, 0), (10, 0), "bf16", backend=TRITON),
    Lane(SGLANG_TRITON_BF16, "sglang", (9, 0), (10, 0), "bf16", kernel_era=SGLANG_TRITON_MOE),
    Lane(SGLANG_TRITON_FP8_BLOCK, "sglang", (9, 0), (10, 0), "fp8", "fp8-block", SGLANG_TRITON_MOE),
    Lane(VLLM_TRITON_BF16_SM100, "vllm", (10, 0), (11, 0), "bf16", backend=TRITON),
)


def lane_module(
    engine: str,
    kernel_era: str,
    cc: Capability,
    experts: str,
    rule: str,
    version: tuple[int, ...] = (),
    backend: str | None = None,
) -> str:
    """The measured module ``engine`` (a framework id) runs ``experts`` (the experts' dtype,
    ``rule`` the checkpoint's quantisation rule) through on a GPU of compute capability ``cc``
    under a release of ``kernel_era`` and ``version`` (its numbers; () unknown, read as a release
    before 0.20.0) with vLLM's ``backend`` stated (None: the release's default for the GPU,
    core/registry/moe_backends.py); "" where no lane holds it (module docstring)."""
    ran = backend or default_moe_backend(version, cc)
    for lane in LANES:
        if lane.engine != engine or not lane.low <= cc < lane.below or lane.experts != experts:
            continue
        if (lane.rule and lane.rule != rule) or lane.kernel_era not in (None, kernel_era):
            continue
        if lane.backend is not None and lane.backend != ran:
            continue
        return lane.module
    return ""
