"""Block-scaled training formats the stacks run, as a scenario written from a training config
spells them in ``precision.activations`` / ``gradients`` / ``matmuls``, with the one-line
answer a refusal gives in place of the list of dtype ids (docs/evidence/training.md, "Real
runs the estimate refused, round 4").

Neither is a dtype of the saved activations here: both quantise each Linear's GEMM inputs.
MXFP8 is accepted as ``precision.matmuls: "mxfp8"`` (:data:`FP8_MATMULS`), NVFP4 is named.

- MXFP8 (8-bit E4M3 values, one E8M0 scale per 32): torchtitan's ``mx`` model converter
  (``torchtitan/components/quantization/mx.py``, ``[mx] recipe_name "mxfp8_cublas"``,
  Blackwell only) runs torchao's ``mx_mm``, whose forward does
  ``ctx.save_for_backward(input_hp, weight_hp)``: the 16-bit input and weight are what the
  backward keeps, re-quantised there (torchao ``prototype/mx_formats/mx_linear.py``). So
  ``precision.matmuls: "mxfp8"`` is priced as ``"fp8"``: the GEMMs at the GPU's FP8 rate (a
  Blackwell GPU runs MXFP8 and FP8 at one dense rate), the saved activations as the
  framework's FP8 rule keeps them (16-bit under torchao; Transformer Engine's FP8 inputs under
  Megatron-LM's ``--fp8-recipe mxfp8``, ``MXFP8BlockScaling``), short by the per-32 scales
  (1/32 byte a value). torchtitan asserts ``has_cuda_capability(10, 0)``, "MXFP8 is only
  supported on SM100 or later architectures": an NVIDIA GPU below compute capability 10.0 is
  refused (:func:`mx_refusal`).
- NVFP4 (4-bit E2M1 values, an E4M3 scale per 16, a per-tensor FP32 scale): Megatron-LM's
  ``--fp4-format e2m1 --fp4-recipe nvfp4`` (``megatron/training/arguments.py``; TE 2.8
  ``NVFP4BlockScaling``, Blackwell only). Not modelled: its GEMMs run at twice the FP8 rate
  with random Hadamard transforms and stochastic rounding on the gradients, and the last
  layers kept in 16-bit (``--first-last-layers-bf16``); FP8 is its upper bound in time and
  in the saved inputs' bytes.
- MXFP4 (E2M1 values, one E8M0 scale per 32): AMD's MLPerf Training v6.0 recipe on MI355X
  (rocm.blogs.amd.com ``mlperf-training-v6.0``, 2026-06-16, Primus: the Linear layers'
  GEMMs in E2M1 with E8M0 block scales after a deterministic 16-point Hadamard rotation, fused
  in one HIP kernel). Not modelled, as NVFP4: FP8 is its upper bound in time and bytes.
"""

from __future__ import annotations

_MXFP8 = (
    "MXFP8 training (torchtitan's mx converter, torchao mx_mm; Megatron --fp8-recipe mxfp8) "
    "quantises the Linear GEMM inputs, not the saved activations: state precision.matmuls "
    "mxfp8 with activations bf16"
)
_NVFP4 = (
    "NVFP4 training (Megatron --fp4-format e2m1 --fp4-recipe nvfp4, TransformerEngine "
    "NVFP4BlockScaling) is not modelled: state precision.matmuls fp8 (FP8's time and bytes, "
    "an upper bound: NVFP4's GEMMs run at twice FP8's rate)"
)

_MXFP4 = (
    "MXFP4 training (AMD's MI355X recipe: Primus, E2M1 GEMMs with E8M0 block scales and a "
    "Hadamard rotation) is not modelled: state precision.matmuls fp8 (FP8's time and bytes, an "
    "upper bound: FP4 GEMMs run at twice FP8's rate)"
)

TRAINING_FORMATS: dict[str, str] = {
    "mxfp4": _MXFP4,
    "mxfp8": _MXFP8,
    "mxfp8_cublas": _MXFP8,
    "nvfp4": _NVFP4,
    "fp4": _NVFP4,
    "e2m1": _NVFP4,
}


# precision.matmuls values whose Linear GEMMs run at the GPU's FP8 rate
FP8_MATMULS = ("fp8", "mxfp8")


def mx_refusal(matmuls: str | None, vendor: str, compute_capability: str | None) -> str | None:
    """The line refusing ``precision.matmuls: "mxfp8"`` on an NVIDIA GPU below compute
    capability 10.0 (torchtitan's ``has_cuda_capability(10, 0)``); None: it runs."""
    if matmuls != "mxfp8" or vendor.lower() != "nvidia" or compute_capability is None:
        return None
    if int(compute_capability.split(".")[0]) >= 10:
        return None
    return (
        f"mxfp8 needs compute capability 10.0 or later (torchtitan: 'MXFP8 is only supported on "
        f"SM100 or later architectures'; this GPU is {compute_capability}): state fp8 or null"
    )


def training_format_hint(value: object) -> str | None:
    """The refusal's line for a block-scaled training format's name; None: not one."""
    return TRAINING_FORMATS.get(value.lower()) if isinstance(value, str) else None
