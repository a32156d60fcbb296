"""PEFT and bitsandbytes details of adapter training (LoRA, QLoRA).

Measured on real PEFT 0.21 + bitsandbytes 0.50 on a CPU
(tests/core/data/peft-extra-measured.json, scripts/measure_peft.py; docs/evidence/training.md
§2):

- ``lora_dropout`` > 0: each targeted module's ``nn.Dropout`` makes its own output (kept by
  ``lora_A``) and, when its input needs a gradient, keeps what it needs to propagate it. On a
  GPU that is ``native_dropout``'s 1-byte bool mask (ATen ``is_fused_kernel_acceptable``); on a
  CPU it is the scaled noise in the input's dtype. GPU Sizer models the GPU; tests against CPU
  records convert that one term.
- ``prepare_model_for_kbit_training`` (``peft/utils/other.py``): casts every 16-bit parameter
  that is not ``Params4bit`` (embedding, norms, LM head) to fp32; over an LLM.int8 base too
  (peft v0.4.0: "cast all non INT8 parameters to fp32", the ``Int8Params`` stay int8). The
  fp32 embedding makes the residual stream fp32: the 4-bit Linear layers return their input's
  dtype, so q/k/v, the MLP and the logits are fp32 too, and adapters (fp32) read their input
  without a cast.
- NF4 lookup tables per quantised matrix (``core/dtypes.DType.per_matrix_bytes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..registry.dtypes import DTYPES, nbytes

if TYPE_CHECKING:
    from ..model.architecture import Arch
    from ..model.sharding import StageParams
    from ..model.specs import Scenario

DROPOUT_MASK_BYTES = 1.0  # CUDA native_dropout keeps a bool mask, one byte per element


def kbit_prepared(s: Scenario) -> bool:
    """``workload.kbit_prepare`` in force: it applies to a base held in fewer than 16 bits, the
    QLoRA kinds' or a LoRA base stored 8-bit (``precision.weights`` ``int8``: bitsandbytes
    ``load_in_8bit``, whose ``Int8Params`` are int8 and so outside PEFT's cast of "all non INT8
    parameters to fp32", peft v0.4.0 ``src/peft/utils/other.py``)."""
    w = s.workload
    low_bit = w.info.quantised_base or DTYPES[s.precision.weights].bits < 16
    return w.kbit_prepare and w.is_adapter and low_bit


def dropout_mask(s: Scenario) -> float:
    """Bytes per input element each targeted module's LoRA dropout keeps (0: no dropout)."""
    w = s.workload
    return DROPOUT_MASK_BYTES if w.is_adapter and w.lora_dropout > 0 else 0.0


def _matrices_per_layer(arch: Arch, moe_layer: bool) -> int:
    """Linear modules of one decoder layer (bitsandbytes quantises each ``nn.Linear``;
    transformers 5 keeps routed experts as 3-D parameters, which stay unquantised)."""
    spec, mla = arch.spec, arch.spec.mla
    # MLA: q (or q_a, q_b), kv_a, kv_b, o; else q, k, v, o (fused: qkv, o)
    attn = ((2 if mla.q_lora_rank else 1) + 3) if mla is not None else (2 if spec.fused_qkv else 4)
    mlp = 2 if spec.mlp == "plain" or spec.fused_gate_up else 3
    if moe_layer and arch.moe is not None:
        return attn + 1 + (mlp if arch.moe.shared_experts else 0)
    return attn + mlp


def base_extra_bytes(s: Scenario, arch: Arch, sp: StageParams, base_dtype: str) -> float:
    """Bytes of the base weights beyond bits x parameters: the quantisation format's tables per
    matrix, and ``prepare_model_for_kbit_training``'s fp32 copies of the parameters the format
    leaves in 16-bit (embedding, norms, LM head: ``sp.other``)."""
    dt = DTYPES[base_dtype]
    extra = 0.0
    if dt.quantized and dt.per_matrix_bytes:
        n = sp.dense_layers * _matrices_per_layer(arch, False)
        n += sp.moe_layers * _matrices_per_layer(arch, True)
        extra += n * dt.per_matrix_bytes / s.parallelism.tensor
    if kbit_prepared(s):
        extra += sp.other * (4 - nbytes(s.precision.activations))
    if s.profile.unties_embeddings and arch.spec.tied_embeddings and sp.last and s.parallelism.pipeline == 1:
        # a separate LM head copied from the embedding (LitGPT convert_hf_checkpoint), an
        # nn.Linear like the layers' (bitsandbytes quantises it with them)
        extra += arch.vocab * arch.hidden / s.parallelism.tensor * nbytes(base_dtype)
    return extra
