"""Activations of a decoder layer under Unsloth's own kernels (framework profile ``unsloth``,
``lora_kernels = "unsloth"``): what each autograd function saves, and what the one layer rebuilt
in backward by Unsloth's checkpointing holds at its peak.

Sources (github.com/unslothai/unsloth at 6dd9d4e2b1, 2024-12-10: the release of the published
context-length table, README "Context length benchmarks"; unsloth-zoo at 44a919cd):

- ``unsloth/kernels/rms_layernorm.py`` ``Fast_RMS_Layernorm.forward``: ``save_for_backward(X,
  W, r)``, the 16-bit input and one fp32 rstd per row; no fp32 copy of the input, and its
  backward writes dX into dY in place.
- ``unsloth/kernels/fast_lora.py`` ``LoRA_QKV.forward``: ``save_for_backward(X, QA, QB, KA,
  KB, VA, VB)``, the normalised input once for q, k and v; the adapters are cast to the input's
  dtype (``A.to(dtype)``), never the input to the adapters' fp32. ``LoRA_W.forward`` (o_proj):
  ``save_for_backward(A, B, X)``, X being the attention output. ``LoRA_MLP.forward``:
  ``save_for_backward(..., X, e, g)``: the input, gate and up outputs; ``h = swiglu(e, g)`` is
  not kept (the backward rebuilds it in place, ``swiglu.py`` ``_DWf_DW_dfg_kernel``).
- ``unsloth/kernels/rope_embedding.py`` ``Fast_RoPE_Embedding``: rotates q and k in place and
  keeps only the cos/sin cache.
- ``unsloth/models/llama.py`` ``LlamaAttention_fast_forward``: without flash-attn (an optional
  extra; xformers is the package's dependency, ``pyproject.toml``) xformers runs attention and,
  when the input needs a gradient, expands k and v to every query head with a copy
  (``K.reshape(bsz, kv_seq_len, n_heads, head_dim)``); the kernel keeps q, k, v, its output
  (the o_proj input) and an fp32 log-sum-exp per head. ``LlamaDecoderLayer_fast_forward``: the
  residual adds make new tensors; the post-attention norm keeps the sum.
- ``unsloth_zoo/gradient_checkpointing.py`` ``Unsloth_Offloaded_Gradient_Checkpointer.backward``:
  brings the layer input back, reruns the layer with grad and calls
  ``torch.autograd.backward(output, dY)``: the layer's output and its incoming gradient stay
  alive through the whole rebuilt backward.
- ``LoRA_MLP.backward`` starts with ``DW = matmul_lora(dY, downW.t(), ..., downB, downA, downS)``:
  the ffn-wide ``dY @ W`` and, before its in-place add, ``(dY @ B) @ (s * A)`` of the same shape
  (``unsloth/kernels/utils.py`` ``matmul_lora``: ``out += (X @ A) @ (s * B)``). Every saved
  tensor of the layer is alive then: that is the layer's peak. Later releases add the LoRA term
  with ``addmm_`` (4f166026d7, 2025-03-01), one ffn-wide tensor less; the figures date from
  before it.

Unsloth patches a layer only when its q, k, v, o, gate, up and down all carry adapters without
dropout or bias (``FastLlamaModel.patch_peft_model``); other layers run PEFT's modules, and the
estimator counts them with the transformers layout (core/memory/activations.py).

Units: bytes; ``t`` tokens, ``p`` activation bytes, ``h`` hidden, ``f`` ffn width.
"""

from __future__ import annotations

from ..model.architecture import Arch
from .activations import ActContext

# Every Linear of a decoder layer must carry an adapter for Unsloth's fused functions.
PATCHED_MODULES = frozenset({"q", "k", "v", "o", "gate", "up", "down"})


def applies(arch: Arch, c: ActContext) -> bool:
    """Whether Unsloth's kernels run this model's layers (a dense RoPE decoder with a gated
    MLP, RMSNorm and no biases, every projection adapted, no LoRA dropout)."""
    spec = arch.spec
    dense = arch.moe is None and arch.mla is None and not (arch.mixer_layers or arch.mlp_free_layers)
    plain = not (
        spec.fused_qkv
        or spec.fused_gate_up
        or spec.parallel_attention
        or spec.position_embeddings
        or spec.qkv_bias
        or spec.attention_output_bias
        or spec.mlp_bias
        or spec.attention_softcap
        or spec.dropout
    )
    shape = spec.mlp == "gated" and spec.norm == "rmsnorm" and spec.norms_per_layer == 2
    adapted = c.targets is not None and c.targets >= PATCHED_MODULES and not c.dropout_mask
    return dense and plain and shape and adapted


def _kv_width(arch: Arch) -> int:
    """Width of the k and v xformers keeps: expanded to every query head in training."""
    return arch.q_dim


def _attention(arch: Arch, c: ActContext) -> float:
    """Input norm's rstd, LoRA_QKV's input, q/k norms (Qwen3), q, k, v, output and log-sum-exp."""
    t, p = c.tokens, c.p
    kept = 4 * t + p * t * arch.hidden
    if arch.spec.qk_norm != "none":  # fast_rms_layernorm keeps the projections and an rstd per row
        rows = t * (arch.heads + arch.kv_heads) if arch.spec.qk_norm == "head" else 2 * t
        kept += p * t * (arch.q_dim + arch.kv_dim) + 4 * rows
    qkv = p * t * (arch.q_dim + 2 * _kv_width(arch))
    return kept + qkv + p * t * arch.attn_out_dim + 4 * t * arch.heads


def _mlp(arch: Arch, c: ActContext) -> float:
    """Post-attention norm: the residual sum and its rstd; LoRA_MLP: its input, e and g."""
    t, p = c.tokens, c.p
    return 4 * t + 2 * p * t * arch.hidden + 2 * p * t * arch.ffn


def unsloth_layer(arch: Arch, c: ActContext) -> float:
    """Bytes one layer keeps for backward (full recompute: its input only, as transformers)."""
    t, p = c.tokens, c.p
    if c.recompute == "full":
        return p * t * arch.hidden
    return p * t * arch.hidden + _attention(arch, c) + _mlp(arch, c)  # the input norm keeps X


def unsloth_rebuilt(arch: Arch, c: ActContext) -> float:
    """Peak bytes of the one layer rebuilt in backward, beside its checkpointed input: its saved
    tensors, the checkpointer's output and dY, and the larger of two moments (module doc): the
    MLP's backward start (DW and matmul_lora's LoRA term, each t x f) or the attention's
    backward (the residual's gradient, o_proj's dX, and the gradients of q, k, v)."""
    t, p, h = c.tokens, c.p, arch.hidden
    held = 2 * p * t * h  # Unsloth_Offloaded_Gradient_Checkpointer.backward: output and dY
    attention = _attention(arch, c)
    mlp_moment = attention + _mlp(arch, c) + 2 * p * t * arch.ffn
    attn_moment = attention + p * t * h + p * t * arch.attn_out_dim
    attn_moment += p * t * (arch.q_dim + 2 * _kv_width(arch))
    return held + max(mlp_moment, attn_moment)
