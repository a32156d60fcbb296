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
- Under that fp32 stream a rebuilt layer's gated MLP is fp32 too, and its backward holds three
  fp32 gradients of the MLP's width at once (:func:`rebuilt_mlp_gradients`).
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
FP32 = 4.0
MLP_GRADIENTS = 3  # the product's, act(gate)'s and up's, alive together at the product's backward


def kbit_prepared(s: Scenario) -> bool:
    """``workload.kbit_prepare`` in force: it applies to a base held in fewer than 16 bits, the
    QLoRA kinds' or a LoRA base stored 8-bit (``precision.weights`` ``int8``: bitsandbytes
    ``load_in_8bit``, whose ``Int8Params`` are int8 and so outside PEFT's cast of "all non INT8
    parameters to fp32", peft v0.4.0 ``src/peft/utils/other.py``)."""
    w = s.workload
    low_bit = w.info.quantised_base or DTYPES[s.precision.weights].bits < 16
    return w.kbit_prepare and w.is_adapter and low_bit


def rebuilt_mlp_gradients(s: Scenario, arch: Arch, sp: StageParams, fused_mlp: bool) -> float:
    """Bytes of the gradients one rebuilt gated MLP holds at its product's backward, beside the
    layer's saved tensors, under ``prepare_model_for_kbit_training`` and full recompute (0
    otherwise, or where a fused kernel (``fused_mlp``) computes the MLP's backward itself).

    The MLP is fp32 there: transformers 4.39.3 ``models/mistral/modeling_mistral.py``
    ``MistralMLP.forward`` is ``down_proj(act_fn(gate_proj(x)) * up_proj(x))``, and the norm's
    fp32 weight (``peft/utils/other.py`` v0.11.1, "cast all non INT8 parameters to fp32") hands
    gate and up an fp32 input, which bitsandbytes' ``Linear4bit.forward`` (0.43.1
    ``bitsandbytes/nn/modules.py``) casts to its compute dtype and whose output it returns as
    ``out.to(inp_dtype)``: fp32 gate, up and product. In the backward, the down projection's
    input cast (``x.to(self.compute_dtype)``) returns the product's gradient in fp32, and the
    product's ``mul`` backward makes the gradients of act(gate) and up from it, all three fp32
    and ``ffn`` wide, while act(gate), up and gate are still saved (the product's gradient is
    freed only once both are made). Full recompute puts this moment beside every checkpointed
    fp32 input, after the loss has freed its tensors (core/memory/stage_activations.py). The
    16-bit MLP has the same moment; it is not priced here (docs/evidence/training.md, the
    section on the 2024-07 Mistral rows under PEFT's k-bit preparation)."""
    p = s.parallelism
    if not kbit_prepared(s) or p.recompute != "full" or fused_mlp:
        return 0.0
    if not sp.dense_layers or arch.spec.mlp != "gated":
        return 0.0
    tokens = s.workload.micro_batch_size * (s.workload.sequence_length // p.context)
    return MLP_GRADIENTS * FP32 * tokens * arch.ffn / p.tensor


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
