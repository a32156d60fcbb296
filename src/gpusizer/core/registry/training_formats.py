"""Block-scaled training formats the stacks run, as a scenario written from a training config
spells them in ``precision.activations`` / ``gradients`` / ``matmuls``, with the one-line
answer a refusal gives in place of the list of dtype ids (docs/evidence/training.md, "Real
runs the estimate refused, round 4").

Neither is a dtype of the saved activations here: both quantise each Linear's GEMM inputs.

- MXFP8 (8-bit E4M3 values, one E8M0 scale per 32): torchtitan's ``mx`` model converter
  (``torchtitan/components/quantization/mx.py``, ``[mx] recipe_name "mxfp8_cublas"``,
  Blackwell only) runs torchao's ``mx_mm``, whose forward does
  ``ctx.save_for_backward(input_hp, weight_hp)``: the 16-bit input and weight are what the
  backward keeps, re-quantised there (torchao ``prototype/mx_formats/mx_linear.py``). That is
  ``precision.matmuls: "fp8"`` over 16-bit activations (the GEMMs at the GPU's FP8 rate; a
  Blackwell GPU runs MXFP8 and FP8 at one dense rate), short by the transient per-32 scales.
  Megatron-LM's ``--fp8-recipe mxfp8`` (TransformerEngine ``MXFP8BlockScaling``) is the same
  statement: TE's saved FP8 inputs are what ``precision.activations: "fp8"`` prices.
- NVFP4 (4-bit E2M1 values, an E4M3 scale per 16, a per-tensor FP32 scale): Megatron-LM's
  ``--fp4-format e2m1 --fp4-recipe nvfp4`` (``megatron/training/arguments.py``; TE 2.8
  ``NVFP4BlockScaling``, Blackwell only). Not modelled: its GEMMs run at twice the FP8 rate
  with random Hadamard transforms and stochastic rounding on the gradients, and the last
  layers kept in 16-bit (``--first-last-layers-bf16``); FP8 is its upper bound in time and
  in the saved inputs' bytes.
"""

from __future__ import annotations

_MXFP8 = (
    "MXFP8 training (torchtitan's mx converter, torchao mx_mm; Megatron --fp8-recipe mxfp8) "
    "quantises the Linear GEMM inputs, not the saved activations: state precision.matmuls "
    "fp8 with activations bf16 (torchao keeps the 16-bit inputs; the GEMMs at FP8's rate)"
)
_NVFP4 = (
    "NVFP4 training (Megatron --fp4-format e2m1 --fp4-recipe nvfp4, TransformerEngine "
    "NVFP4BlockScaling) is not modelled: state precision.matmuls fp8 (FP8's time and bytes, "
    "an upper bound: NVFP4's GEMMs run at twice FP8's rate)"
)

TRAINING_FORMATS: dict[str, str] = {
    "mxfp8": _MXFP8,
    "mxfp8_cublas": _MXFP8,
    "nvfp4": _NVFP4,
    "fp4": _NVFP4,
    "e2m1": _NVFP4,
}


def training_format_hint(value: object) -> str | None:
    """The refusal's line for a block-scaled training format's name; None: not one."""
    return TRAINING_FORMATS.get(value.lower()) if isinstance(value, str) else None
