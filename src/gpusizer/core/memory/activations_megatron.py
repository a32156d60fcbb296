"""Activation memory of the ``megatron`` profile (and the other large-scale profiles): Korthikanti
et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", arXiv 2205.05198,
§4 (eq. 1-2, Table 2), generalised to GQA, gated MLPs, fused attention, MoE and Megatron-Core's
``recompute_modules``; it reduces to ``sbh(34 + 5as/h)`` for GPT.

Units: bytes per layer per GPU (``s`` sequence per rank, ``b`` micro-batch, ``h`` hidden,
``p`` activation bytes per value, ``t`` TP).
"""

from __future__ import annotations

from ..model.architecture import Arch
from .activations_parts import ActContext


def megatron_attention(arch: Arch, c: ActContext) -> float:
    """Korthikanti et al. 2022 §4.1, the attention core (TP-sharded, bytes before the split):
    q, k, v and the output; eager attention keeps the softmax output and, with dropout, its
    mask and output (5as²b at p = 2), the fused kernel its fp32 log-sum-exp only. A hybrid
    model's recurrent layer has none of it (core/memory/activations_hybrid.py takes off exactly this)."""
    s, b, p = c.s, c.b, c.p
    out = 1.0 if c.fp8_inputs else p  # the proj input: FP8 under Transformer Engine
    kept = s * b * (p * (arch.q_dim + 2 * arch.kv_dim) + out * arch.attn_out_dim)
    if c.eager and c.recompute != "selective":
        mask = 1 if arch.spec.probs_dropout > 0 else 0
        return kept + arch.heads * s * s * b * (2 * p + mask)
    return kept + 4 * arch.heads * s * b


def megatron_layer(arch: Arch, c: ActContext, moe_layer: bool) -> float:
    """Korthikanti et al. 2022 eq. (1)-(2), Table 2, generalised; bytes per layer per GPU."""
    s, b, h, p, t = c.s, c.b, arch.hidden, c.p, c.tp
    sbh = s * b * h
    if c.recompute == "full":
        return p * sbh / (t if c.sp else 1)
    mask = 1 if arch.spec.dropout > 0 else 0
    # FP8 under Transformer Engine: each Linear keeps its input as the FP8 copy its wgrad GEMM
    # reads (1 B: QKV, proj, fc1 and fc2 inputs); norm inputs and attention stay 16-bit
    q = 1.0 if c.fp8_inputs else p
    replicated = (2 * p + 2 * q + 2 * mask) * sbh  # 2 LayerNorm inputs, QKV and MLP inputs, 2 masks
    sharded = megatron_attention(arch, c)
    per_ffn = (2 * p + q) if arch.spec.mlp == "gated" else (p + q)  # fc1 output(s), fc2 input
    if moe_layer and arch.moe is not None:
        moe = arch.moe
        routed = moe.experts_per_token * moe.expert_ffn_hidden_size
        sharded += per_ffn * s * b * routed + 4 * s * b * moe.experts
    else:
        sharded += per_ffn * s * b * arch.ffn
    replicated_off, sharded_off = _recomputed_modules(arch, c, moe_layer)
    return (replicated - replicated_off) / (t if c.sp else 1) + (sharded - sharded_off) / t


def _recomputed_modules(arch: Arch, c: ActContext, moe_layer: bool) -> tuple[float, float]:
    """(replicated, TP-sharded) bytes per layer that Megatron-Core's ``recompute_modules`` drop
    (core/registry/recompute_modules.py). Under FP8 Transformer Engine's Linear keeps its own
    FP8 copy of its input, so dropping a 16-bit input that feeds one saves nothing."""
    mods, tokens = c.recompute_modules, c.s * c.b
    replicated = sharded = 0.0
    if not mods:
        return replicated, sharded
    if "layernorm" in mods and not c.fp8_inputs:
        replicated += 2 * c.p * tokens * arch.hidden
    if "mla_up_proj" in mods and arch.mla is not None:
        sharded += c.p * tokens * (arch.q_dim + 2 * arch.kv_dim)
    if "moe_act" in mods and moe_layer and arch.moe is not None and not c.fp8_inputs:
        sharded += c.p * tokens * arch.moe.experts_per_token * arch.moe.expert_ffn_hidden_size
    return replicated, sharded


def megatron_top(arch: Arch, c: ActContext, first: bool, last: bool) -> float:
    """Korthikanti §4.3: embedding dropout mask (first stage); final LayerNorm, output-layer
    input and fp32 cross-entropy logits (last stage), vocabulary-parallel over TP."""
    sbh = c.s * c.b * arch.hidden
    div = c.tp if c.sp else 1
    total = 0.0
    if first and arch.spec.dropout > 0:
        total += sbh / div
    if last:
        total += 2 * c.p * sbh / div + 4 * c.s * c.b * arch.vocab / c.tp
    return total
