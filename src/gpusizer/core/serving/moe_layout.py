"""How a serving engine lays out MXFP4 routed experts in GPU memory, as one registry.

The checkpoint stores each expert's fused gate/up projection (w13, [2I, H]) and down projection
(w2, [H, I]) as MXFP4: 4-bit values (1/2 B) with one 8-bit scale per 32 values along the input
axis, plus bf16 biases (gpt-oss). vLLM does not keep that layout (sources:
vllm/model_executor/layers/quantization/mxfp4.py ``Mxfp4MoEMethod.create_weights`` and
``process_weights_after_loading``; 2026: fused_moe/oracle/mxfp4.py
``mxfp4_round_up_hidden_size_and_intermediate_size`` and ``convert_to_mxfp4_moe_kernel_format``):

- ``marlin``: I rounded up to 128 and H to 256 ("the moe marlin kernel requires that for each
  linear n % 256 == 0 and k % 128 == 0"); values repacked, scales permuted (same count,
  ``mxfp4_marlin_process_scales``), biases permuted in bf16 (``marlin_permute_bias``).
- ``flashinfer-trtllm`` (SM100): I and H rounded up to 256; biases converted to fp32; values
  and scales shuffled to the same shapes (the scales are reshaped back to [E, 2I, H/32]).
- ``triton-hopper``: I rounded up to 64, H kept; biases to fp32; ``_swizzle_mxfp4``
  (quantization/utils/mxfp4_utils.py) writes the values into triton_kernels'
  ``HopperMXValueLayout`` (padded to its 16-row x 32-byte tile) and the scales into
  ``HopperMXScaleLayout`` (rows padded to 2 x num_warps x 2 x 8 = 256 with num_warps 8,
  columns to 2) as new tensors. The values' old parameter is deleted (``del
  layer.w13_weight``); the scales' old parameter is not, so the scales are held twice.

gpt-oss-120b on an H100 (checkpoint 60.77 GiB): Marlin 65.90 GiB against "Model loading took
65.9651 GiB" (vLLM 0.10.1, vllm#23278); Triton 64.30 GiB against "64.38 GiB" (vLLM 0.14.1,
vllm#33155). Which layout a GPU gets is release data (core/registry/engine_releases.py ``mxfp4_moe``, by CUDA
compute capability, the GPU catalog's ``compute_capability``); a GPU without one (AMD, Apple,
a custom spec) keeps the checkpoint's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.architecture import Arch, ceil_div, resolve
from ..model.module_bytes import group_bytes, rule_id, stage_weight_bytes
from ..model.params import ParamCounts
from ..model.redundant import physical_experts
from ..model.sharding import StageParams
from ..model.specs import GPUSpec, Scenario
from ..registry.engines import Capability, EngineRelease, version_key
from ..speed.moe_measured import SGLANG_FLASHINFER_FP8, TRTLLM_CUTLASS_MOE_MODULE, VLLM_OAI_TRITON_MXFP4
from ..speed.moe_measured_aiter import aiter_module
from ..speed.moe_measured_lanes import lane_module
from ..speed.moe_measured_vllm_fp8 import vllm_fp8_module


@dataclass(frozen=True)
class MoeLayout:
    """One backend's layout of an MXFP4 expert: the padding of the intermediate and hidden
    sizes, the bias dtype after loading, the tile the values are padded to (rows, bytes per
    row) and, for a swizzled copy of the scales beside the loaded ones, the rows it is padded
    to (0: no copy)."""

    id: str
    label: str
    intermediate_align: int
    hidden_align: int
    bias_bytes: int
    value_tile: tuple[int, int] = (1, 1)
    scale_copy_rows: int = 0
    source: str = ""


MOE_LAYOUTS: dict[str, MoeLayout] = {
    lay.id: lay
    for lay in (
        MoeLayout(
            "marlin", "Marlin", 128, 256, 2, source="mxfp4.py create_weights (MARLIN); marlin_utils_fp4.py"
        ),
        MoeLayout(
            "flashinfer-trtllm",
            "FlashInfer TRT-LLM",
            256,
            256,
            4,
            source="mxfp4.py create_weights (SM100_FI_MXFP4_BF16 / _MXFP8_TRTLLM)",
        ),
        MoeLayout(
            "triton-hopper",
            "Triton (triton_kernels, Hopper swizzle)",
            64,
            1,
            4,
            value_tile=(16, 32),
            scale_copy_rows=256,
            source="mxfp4.py create_weights (TRITON); mxfp4_utils.py _swizzle_mxfp4; "
            "triton_kernels v3.5.0 tensor_details/layout_details/hopper_value.py, "
            "hopper_scale.py",
        ),
    )
}


def capability(value: str | None) -> Capability | None:
    """``"9.0"`` as (9, 0); None stays None."""
    if value is None:
        return None
    major, minor = value.split(".")
    return int(major), int(minor)


def mxfp4_layout(rel: EngineRelease | None, gpu: GPUSpec) -> MoeLayout | None:
    """The layout this release gives MXFP4 experts on this GPU (None: the checkpoint's)."""
    cc = capability(gpu.compute_capability)
    if rel is None or cc is None:
        return None
    for low, below, layout_id in rel.mxfp4_moe:
        if low <= cc < below:
            return MOE_LAYOUTS[layout_id]
    return None


def measured_moe_kernel(s: Scenario, rel: EngineRelease | None, gpu: GPUSpec) -> str:
    """The measured MoE module ``rel`` runs MXFP4 experts through on ``gpu``: OpenAI's Triton
    kernels (core/speed/moe_measured.py) where vLLM lays the experts out for them (from 0.11.1 on
    Hopper, ``triton-hopper``) and under SGLang on Hopper, whose ``server_args.py``
    ``_handle_model_specific_adjustments`` sets GptOssForCausalLM's ``moe_runner_backend`` to
    "triton_kernel" ("Detected GPT-OSS model, enabling triton_kernels MOE kernel.") off SM100 at
    EP 1 with triton_kernels installed, the same ``routing`` and ``matmul_ogs`` calls. None with
    LoRA adapters, which both serve through another MXFP4 path (vLLM's TRITON_UNFUSED or Marlin;
    SGLang's "triton" runner). TensorRT-LLM on Hopper: its own table of the same kernels, its
    default MoE backend for gpt-oss there being TRITON (the release's ``mxfp4_module``). SGLang on
    datacentre Blackwell (SM100/SM103): FlashInfer's TRT-LLM fused MoE, the runner its block-FP8
    DeepSeek runs name (``--moe-runner-backend flashinfer_trtllm``), measured for block-FP8
    experts only (step_model.py checks the format). TensorRT-LLM's releases of the CUTLASS fused
    MoE (``kernel_era`` ``trtllm-cutlass-moe``) for their other experts: that module's own table,
    per format, shape and EP (step_model.py ``_group_measured``). vLLM's and SGLang's Triton
    fused MoE on Hopper (and vLLM's before 0.20.0 on SM100) for the formats
    core/speed/moe_measured_lanes.py lists, where vLLM's MoE backend (``serving.moe_backend``,
    null the release's default per GPU family: core/registry/moe_backends.py) is Triton, and
    vLLM's block-FP8 experts on Hopper where its release runs Triton's fused MoE for them
    (core/speed/moe_measured_vllm_fp8.py). vLLM
    with ``--moe-backend aiter`` on an AMD GPU: AITER's (core/speed/moe_measured_aiter.py)."""
    if s.serving.lora is not None:
        return ""
    lay = mxfp4_layout(rel, gpu)
    sglang = rel is not None and rel.sglang is not None
    cc = capability(gpu.compute_capability)
    hopper = cc == (9, 0)
    experts = group_bytes(s, resolve(s.model)).dtypes.get("experts", "") if s.model.moe else ""
    rule = rule_id(s, s.precision.weights)
    if aiter := aiter_module(s.profile.id, gpu.vendor, experts, rule, s.serving.moe_backend):
        return aiter
    cutlass = rel is not None and rel.kernel_era == TRTLLM_CUTLASS_MOE_MODULE and s.model.moe is not None
    if cutlass and experts != "mxfp4":
        return TRTLLM_CUTLASS_MOE_MODULE
    if rel is not None and cc is not None:
        numbers = _numbers(s.serving.engine_version, rel)
        lane = vllm_fp8_module(s, cc, experts, rule, numbers) or lane_module(
            s.profile.id, rel.kernel_era, cc, experts, rule, numbers, s.serving.moe_backend
        )
        if lane:
            return lane
        for low, below, module in rel.mxfp4_module:
            if low <= cc < below:
                return module
    if (lay is not None and lay.id == "triton-hopper") or (sglang and hopper):
        return VLLM_OAI_TRITON_MXFP4
    if sglang and cc is not None and cc[0] == 10:
        return SGLANG_FLASHINFER_FP8
    return ""


def _numbers(asked: str | None, rel: EngineRelease) -> tuple[int, ...]:
    """The release's version numbers as asked (vLLM's default MoE backend changed at 0.20.0 and
    0.23.0, between the modelled releases: core/registry/moe_backends.py), else the modelled
    release's."""
    key = version_key(asked) if asked is not None else None
    return key[1] if key is not None else (version_key(rel.version) or ("", ()))[1]


def _round(x: int, to: int) -> int:
    return ceil_div(x, to) * to


def _matrix_bytes(lay: MoeLayout, rows: int, cols: int) -> int:
    """One expert matrix of ``rows`` outputs x ``cols`` inputs (the quantised axis)."""
    tile_rows, tile_bytes = lay.value_tile
    values = _round(rows, tile_rows) * _round(ceil_div(cols, 2), tile_bytes)
    groups = ceil_div(cols, 32)
    scales = rows * groups
    if lay.scale_copy_rows:
        scales += _round(rows, lay.scale_copy_rows) * _round(groups, 2)
    return values + scales


def layer_bytes(lay: MoeLayout, experts: int, inter: int, hidden: int, gated: bool, bias: bool) -> int:
    """Bytes of one MoE layer's routed experts on one GPU (``inter``: its share of the
    intermediate size) as ``lay`` holds them."""
    i = _round(inter, lay.intermediate_align)
    h = _round(hidden, lay.hidden_align)
    up = (2 if gated else 1) * i
    per_expert = _matrix_bytes(lay, up, h) + _matrix_bytes(lay, h, i)
    if bias:
        per_expert += (up + h) * lay.bias_bytes
    return experts * per_expert


def served_weight_bytes(
    s: Scenario, arch: Arch, counts: ParamCounts, sp: StageParams, gpu: GPUSpec, rel: EngineRelease | None
) -> tuple[float, MoeLayout | None, float]:
    """(weight bytes on this GPU as the engine loads them, the MoE layout used, the bytes as
    stored): the checkpoint's bytes with MXFP4 routed experts replaced by the layout's."""
    base = stage_weight_bytes(s, arch, counts, sp)
    moe, lay = arch.moe, mxfp4_layout(rel, gpu)
    gb = group_bytes(s, arch)
    if (
        lay is None
        or moe is None
        or not sp.moe_layers
        or sp.groups is None
        or gb.dtypes["experts"] != "mxfp4"
    ):
        return base, None, base
    p = s.parallelism
    laid = sp.moe_layers * layer_bytes(
        lay,
        ceil_div(physical_experts(s), p.expert),
        ceil_div(moe.expert_ffn_hidden_size, p.tensor),
        arch.hidden,
        arch.spec.mlp == "gated",
        arch.spec.mlp_bias,
    )
    return base - sp.groups["experts"] * gb.per_param["experts"] + laid, lay, base
