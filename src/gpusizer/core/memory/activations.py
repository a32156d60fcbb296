"""Activation memory: what the forward pass keeps for the backward pass, per layer and on top.

Two framework profiles:

* ``huggingface``: the tensors PyTorch autograd really saves in transformers' modelling code
  (checked to the byte against ``shared/calibration/hf-measured.json``): RMSNorm upcasts its input
  to fp32 and keeps it with the fp32 rsqrt; every Linear keeps its input; eager attention keeps
  q, k, v (k/v repeated to all heads) and the fp32 softmax plus its low-precision copy; the fused
  (sdpa/flash) kernel keeps q, k, v (GQA native), the output and an fp32 log-sum-exp; a gated MLP
  keeps gate, act(gate), up and their product; the loss keeps the fp32 log-softmax of the logits.
* ``megatron`` (and the other large-scale profiles): Korthikanti et al. 2022, "Reducing Activation
  Recomputation in Large Transformer Models", arXiv 2205.05198, §4 (eq. 1-2, Table 2), generalised
  to GQA, gated MLPs and fused attention; it reduces to ``sbh(34 + 5as/h)`` for GPT.

Units: bytes. ``b`` micro-batch, ``s`` sequence per rank, ``p`` activation bytes per value,
``r`` residual-stream bytes (4 under autocast with fp32 weights, else ``p``).
"""

from __future__ import annotations

from dataclasses import replace

from ..model.architecture import Arch
from ..registry.loss_kinds import LOSS_KINDS
from . import loss as lm_loss
from .activations_megatron import megatron_attention, megatron_layer, megatron_top
from .activations_parts import (
    ActContext,
    adapter_extra,
    block_inputs,
    fused,
    linear_inputs,
    norm_block,
)

__all__ = [
    "ActContext",
    "first_layer_frozen_input",
    "fused",
    "hf_attention_block",
    "hf_layer",
    "hf_top",
    "megatron_attention",
    "megatron_layer",
    "megatron_top",
    "mlp_block",
    "norm_block",
    "sliding_mask",
]


def _attention_core(arch: Arch, c: ActContext) -> float:
    """q, k, v and what the attention kernel keeps (eager scores or fused log-sum-exp)."""
    t, b, s, p = c.tokens, c.b, c.s, c.p
    heads = arch.heads
    q = p * t * arch.q_dim
    if arch.mla is not None:  # HF DeepSeek: k and v are decompressed per head
        mla = arch.mla
        k = p * t * heads * (mla.qk_nope_head_dim + mla.qk_rope_head_dim)
        v = p * t * heads * mla.v_head_dim
    else:
        kv_width = arch.q_dim if c.eager else arch.kv_dim  # eager repeats k/v to every head
        k = v = p * t * kv_width
    out = p * t * arch.attn_out_dim
    spec = arch.spec
    if spec.fused_qkv and not spec.position_embeddings and not c.eager:
        # RoPE makes new q and k, but v stays a view of the fused qkv output: its whole
        # storage stays alive (Phi-3, Falcon; measured). Eager attention's matmul reshapes the
        # strided view into a copy and keeps that instead (measured: Phi-3 MHA eager, LoRA,
        # tests/core/data/peft-extra-measured.json)
        v += p * t * (arch.q_dim + arch.kv_dim)
    if c.eager and c.recompute != "selective":
        scores = b * heads * s * s * (4 + (p if p < 4 else 0))
        if arch.spec.attention_softcap:  # Gemma 2: tanh(scores / cap) keeps its output
            scores += b * heads * s * s * p
        if arch.spec.probs_dropout > 0:  # dropout keeps its scaled noise and the dropped probs
            scores += b * heads * s * s * 2 * p
        return q + k + v + scores  # the output is a new contiguous copy kept by o_proj
    return q + k + v + out + 4 * b * heads * s


def _mla_latents(arch: Arch, c: ActContext) -> float:
    mla, t = arch.mla, c.tokens
    if mla is None:
        return 0.0
    q_lora = mla.q_lora_rank or 0
    return (
        c.p * t * (q_lora + mla.kv_lora_rank)
        + (norm_block(arch, c, q_lora, True) if q_lora else 0)
        + norm_block(arch, c, mla.kv_lora_rank, True)
    )


def mlp_block(arch: Arch, c: ActContext, ffn: int, tokens: float) -> float:
    """Gated: gate, act(gate), up (kept by the activation and the product) and the product (the
    down input). Plain: fc1 output and the down input (GELU); the python tanh-GELU of GPT-2
    (``gelu_new``) keeps four ffn-wide tensors of its own. A fused or compiled activation
    keeps gate and up (one pre-activation); a fused gated MLP (xformers) recomputes the
    product, so the down projection keeps no input."""
    gated = arch.spec.mlp == "gated"
    kept = 3 if gated else (4 if arch.spec.activation == "gelu_new" else 1)
    down = block_inputs(c, ("down",), ffn, tokens)
    if c.compiled or c.kernels:
        if fused(arch, c, "activation") or fused(arch, c, "gated_mlp"):
            kept = 2 if gated else 1
        if gated and c.targets is None and fused(arch, c, "gated_mlp"):
            down = 0.0
    inner = c.autocast_io or c.p  # fp32 out of an fp32-fed 4-bit layer (core/memory/bnb_autocast_io.py)
    reads = block_inputs(c, linear_inputs(arch, "mlp"), arch.hidden, tokens)
    return inner * tokens * ffn * kept + down + reads


def _moe(arch: Arch, c: ActContext) -> float:
    """Routed experts: fp32 router softmax, gathered token copies, expert MLPs, weighted outputs."""
    moe, t = arch.moe, c.tokens
    assert moe is not None
    routed = t * moe.experts_per_token
    kept = 4 * t * moe.experts + 8 * routed + c.p * routed * arch.hidden  # softmax, top-k, outputs
    kept += c.p * t * arch.hidden if c.targets is None else 0  # the router keeps its input
    routed_c = c
    if c.routed_frozen and c.targets is not None:
        routed_c = replace(c, targets=c.targets - {"gate", "up", "down", "gate_up"})
    kept += mlp_block(arch, routed_c, moe.expert_ffn_hidden_size, routed)
    if moe.shared_experts:
        kept += mlp_block(arch, c, moe.shared_ffn, t)
    return kept


def _readers(arch: Arch, block: str) -> int:
    """How many Linear layers read the block's (normalised) input."""
    spec = arch.spec
    if block == "attention":
        return 2 if spec.mla else (1 if spec.fused_qkv else 3)
    return 2 if spec.mlp == "gated" and not spec.fused_gate_up else 1


def sliding_mask(arch: Arch, c: ActContext) -> float:
    """With a sliding window transformers passes an explicit mask to sdpa: GQA is no longer
    native (k and v are repeated to every head) and sdpa keeps the mask converted to the
    compute dtype (``sdpa_attention_forward``, ``use_gqa_in_sdpa``). A window at least as long
    as the sequence masks nothing: transformers builds no mask and sdpa runs causal (measured,
    Mistral window 4096 at 256 tokens: tests/core/data/peft-extra-measured.json)."""
    window = arch.spec.sliding_window
    if c.eager or c.recompute == "full" or not window or window >= c.s or arch.mla is not None:
        return 0.0
    repeat = 2 * c.p * c.tokens * (arch.q_dim - arch.kv_dim)
    return repeat + c.p * c.b * c.s * c.s


def hf_attention_block(arch: Arch, c: ActContext) -> float:
    """What the attention block of a decoder layer keeps, its input norm aside: the q/k/v
    projections' input, the kernel's tensors, MLA latents, the o_proj input and q/k norms
    (a hybrid model's recurrent layer has none of it: core/memory/activations_hybrid.py)."""
    t, spec = c.tokens, arch.spec
    total = block_inputs(c, linear_inputs(arch, "attention"), arch.hidden, t)
    total += _attention_core(arch, c) + _mla_latents(arch, c)
    if c.eager and c.recompute != "selective":
        total += block_inputs(c, ("o",), arch.attn_out_dim, t)
    else:  # the fused kernel's output is the o_proj input: kept already (but for the FP8
        # copy Transformer Engine's o_proj keeps of it)
        total += adapter_extra(c, ("o",), arch.attn_out_dim, t)
        total += t * arch.attn_out_dim if c.fp8_inputs and c.targets is None else 0.0
    if spec.qk_norm != "none":  # q_norm and k_norm: per head (Qwen3, Gemma 3) or full width
        per_head = spec.qk_norm == "head"
        for width, heads in ((arch.q_dim, arch.heads), (arch.kv_dim, arch.kv_heads)):
            total += norm_block(arch, c, width, c.targets is None, t * heads if per_head else t)
    return total


def hf_layer(arch: Arch, c: ActContext, moe_layer: bool) -> float:
    """Bytes one decoder layer keeps under transformers + PyTorch autograd (see module doc)."""
    t, h, spec = c.tokens, arch.hidden, arch.spec
    if c.recompute == "full":  # gradient checkpointing keeps only the layer input
        return c.r * t * h
    keep_norm_out = c.targets is None
    total = norm_block(arch, c, h, keep_norm_out) + hf_attention_block(arch, c)
    if c.autocast and c.targets is None and not c.compiled:  # each Linear keeps its own
        # low-precision input copy (compiled: one cast of a shared input, measured)
        total += c.p * t * h * (_readers(arch, "attention") + _readers(arch, "mlp") - 2)
    if not spec.parallel_attention:
        total += norm_block(arch, c, h, keep_norm_out)
    if spec.norms_per_layer > 2:  # post-norms (Gemma 2/3): input, rsqrt; output feeds the add
        total += (spec.norms_per_layer - 2) * norm_block(arch, c, h, False)
    if c.compiled and not spec.parallel_attention:  # Inductor rebuilds the residual sum the
        # MLP's norm reads from the layer input and the attention branch's saved output (the
        # post-norm's input with sandwich norms; else the 16-bit output under autocast)
        total -= c.r * t * h if spec.norms_per_layer > 2 else (c.r - c.p) * t * h
    if spec.dropout > 0:  # residual dropouts keep their noise in the compute dtype (measured
        total += 2 * c.p * t * h  # with PyTorch; CUDA's native_dropout keeps a 1-byte mask)
    if moe_layer and arch.moe is not None:
        return total + _moe(arch, c)
    return total + mlp_block(arch, c, arch.ffn, t)


def hf_top(arch: Arch, c: ActContext, first: bool, last: bool, frozen: bool) -> float:
    """Outside the layers: token ids, RoPE tables, final norm, LM-head input, fp32 log-softmax."""
    t, h = c.tokens, arch.hidden
    total = 0.0
    if first:
        total += 0 if frozen else 8 * t  # embedding keeps the ids to scatter its gradient
        if arch.spec.position_embeddings and not frozen:
            total += 8 * c.s
        elif not arch.spec.position_embeddings and c.recompute != "full":
            total += 2 * c.s * arch.head_dim * c.r  # RoPE cos/sin, shared by every layer
        if arch.spec.dropout > 0:  # embedding dropout noise
            total += c.p * t * h
    if last:
        if arch.spec.final_norm:  # compile is per layer (torchtitan, torchtune): not the final norm
            total += norm_block(arch, replace(c, compiled=False), h, c.targets is None)
        if not LOSS_KINDS[c.loss].fused:  # the LM head keeps its input (LoRA on it: the cast, dropout)
            total += block_inputs(c, ("lm_head",), h, t)
        setup = lm_loss.LossSetup.of(c.loss, c.loss_compiled)
        total += lm_loss.saved(arch, setup, lm_loss.Logits(t, arch.vocab, c.p), not frozen)
    return total


def first_layer_frozen_input(arch: Arch, c: ActContext) -> float:
    """What layer 0 does not keep when its input needs no gradient (LoRA with a frozen
    embedding and no checkpointing, which would make the embedding output require grad,
    transformers ``enable_input_require_grads``): its input norm saves nothing, and the
    dropouts of the adapters reading that norm keep no mask (measured: layer 0 keeps 16.01 MB
    against 16.99 MB for the others, tests/core/data/peft-extra-measured.json)."""
    if c.targets is None or c.recompute == "full" or arch.spec.parallel_attention:
        return 0.0
    t, h = c.tokens, arch.hidden
    reads = linear_inputs(arch, "attention")
    masks = c.dropout_mask * t * h * sum(m in c.targets for m in reads)
    saved = norm_block(arch, c, h, False) + masks
    if c.quantised_inputs:  # a 4-bit matmul keeps no input that needs no gradient
        saved += block_inputs(c, reads, h, t) - block_inputs(replace(c, quantised_inputs=False), reads, h, t)
    if c.eager and not arch.spec.fused_qkv and arch.mla is None and c.recompute != "selective":
        # q @ k^T keeps q only for k's gradient and k (repeated to every head) only for q's:
        # an untargeted projection of a frozen input needs none (measured: q and v targeted)
        saved += c.p * t * arch.q_dim * (("k" not in c.targets) + ("q" not in c.targets))
        if "q" not in c.targets and "k" not in c.targets:  # scores need no gradient at all
            saved += 4 * c.b * arch.heads * c.s * c.s
    return saved
