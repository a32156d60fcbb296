"""FLOP counts of a decoder-only transformer: matmuls, attention, training passes.

Formulas and their sources:

- A matmul weight costs 2 FLOPs per token forward (one multiply, one add) and 4 backward (the
  input gradient and the weight gradient), hence training ≈ 6·N·D and inference ≈ 2·N per token:
  Kaplan et al. 2020, "Scaling Laws for Neural Language Models", arXiv 2001.08361 §2.1 and
  Table 1; Hoffmann et al. 2022 (Chinchilla), arXiv 2203.15556 Appendix F. N counts the weights
  that are multiplied: active experts only, LM head included (even when tied), the embedding
  lookup excluded.
- Attention scores (Q·Kᵀ) and values (P·V) cost 2·d FLOPs per query-key pair each, per layer,
  forward: Kaplan Table 1 (2·n_layer·n_ctx·d_attn); Narayanan et al. 2021, arXiv 2104.04473 §5.1
  (4·b·s²·h per layer forward, so 12·L·s·h per token over forward and backward).
- Causal masking: query i sees i keys, a mean of (s+1)/2; fused kernels skip the masked blocks
  (FlashAttention-2, Dao 2023, arXiv 2307.08691 §3.1), so the count is halved. Eager attention
  computes the whole s×s score matrix and masks it afterwards: no halving. Sliding-window
  layers see at most the window (Mistral 7B, arXiv 2310.06825 §2).
- Activation recomputation: full recompute runs the forward pass once more (8·N·D instead of
  6·N·D; Narayanan et al. 2021 §5.1: 96·B·s·l·h² instead of 72); selective recompute reruns the
  attention core only (Korthikanti et al. 2022, arXiv 2205.05198 §5), or, under torchtitan's
  op-level policy (``parallelize_llama.py`` ``_custom_policy``: every second ``aten.mm`` of a
  layer is not saved), the layer's even-numbered matmuls.
- Hybrid models: only softmax-attention layers attend; recurrent layers (Gated DeltaNet,
  Mamba-2) add their projections to N and about 6 FLOPs per state value per token for the
  state update (core/model/state.py), whatever the context.
- LoRA / QLoRA: the frozen base weights need the input gradient only (2 FLOPs per weight per
  token backward, no weight gradient): 4·N·D plus 6 per adapter weight (Hu et al. 2021,
  arXiv 2106.09685 §4.1: no gradients or optimizer states for the frozen weights).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..registry.frameworks import FRAMEWORKS
from .architecture import Arch
from .params import ParamCounts
from .specs import Scenario
from .state import state_flops_per_token


def matmul_params(counts: ParamCounts) -> float:
    """Weights multiplied per token: active layers' projections + the LM head (tied or not).

    Norm weights and the embedding lookup are not matmuls and are left out."""
    norms = counts.dense_layer.norms * counts.dense_layers + counts.final_norm
    if counts.moe_layer is not None:
        norms += counts.moe_layer.norms * counts.moe_layers
    untied_embedding = counts.embedding if counts.lm_head else 0  # tied: it is the LM head
    return float(counts.active - counts.position_embedding - norms - untied_embedding)


def mean_causal_context(seq: float, window: int | None = None) -> float:
    """Mean number of keys a query attends to over a causal sequence of ``seq`` tokens."""
    if window is None or seq <= window:
        return (seq + 1) / 2
    return (window * (window + 1) / 2 + (seq - window) * window) / seq


def local_layers(arch: Arch) -> int:
    """Layers that use the sliding window (the others attend to the whole context)."""
    spec = arch.spec
    return min(spec.sliding_window_layers, arch.attention_layers) if spec.sliding_window else 0


def attention_flops_per_token(arch: Arch, seq: float, causal: bool = True) -> float:
    """Forward FLOPs of Q·Kᵀ and P·V per token, all layers, mean over a sequence of ``seq``.

    Per layer 2·ctx·(q_dim + attn_out_dim), i.e. 4·s·h for MHA without masking (Narayanan et
    al. 2021 §5.1); ``causal`` halves it (FlashAttention-2 skips masked blocks)."""
    width = 2.0 * (arch.q_dim + arch.attn_out_dim)
    local = local_layers(arch)
    full = mean_causal_context(seq) if causal else float(seq)
    window = arch.spec.sliding_window
    win = (mean_causal_context(seq, window) if causal else float(min(seq, window or seq))) if local else 0.0
    recurrent = state_flops_per_token(arch) if arch.mixer_layers else 0.0
    return width * ((arch.attention_layers - local) * full + local * win) + recurrent


def decode_attention_flops(arch: Arch, context: float) -> float:
    """Forward Q·Kᵀ and P·V FLOPs of one new token attending to ``context`` cached tokens."""
    local = local_layers(arch)
    window = arch.spec.sliding_window or context
    width = 2.0 * (arch.q_dim + arch.attn_out_dim)
    recurrent = state_flops_per_token(arch) if arch.mixer_layers else 0.0
    return width * ((arch.attention_layers - local) * context + local * min(context, window)) + recurrent


def _attention_matmuls(arch: Arch) -> list[float]:
    """Weights of the attention's matmuls in forward order (the output projection last)."""
    h, mla = arch.hidden, arch.mla
    if mla is None:
        return [float(h * arch.q_dim), h * arch.kv_dim, h * arch.kv_dim, arch.attn_out_dim * h]
    q = [float(h * mla.q_lora_rank), mla.q_lora_rank * arch.q_dim] if mla.q_lora_rank else [h * arch.q_dim]
    kv_b = mla.kv_lora_rank * arch.heads * (mla.qk_nope_head_dim + mla.v_head_dim)
    return [*q, h * (mla.kv_lora_rank + mla.qk_rope_head_dim), kv_b, arch.attn_out_dim * h]


def _mlp_matmuls(arch: Arch) -> list[float]:
    """Weights of the MLP's matmuls in forward order (per routed expert of an MoE layer)."""
    h, moe = arch.hidden, arch.moe
    ffn = moe.expert_ffn_hidden_size if moe else arch.ffn
    mlp = [float(h * ffn)] * (3 if arch.spec.mlp == "gated" else 2)
    return mlp * (moe.experts_per_token if moe else 1)


def layer_matmuls(arch: Arch) -> list[float]:
    """Weights of one layer's matmuls in the order the forward runs them."""
    return _attention_matmuls(arch) + _mlp_matmuls(arch)


def tensor_parallel_pairs(arch: Arch) -> tuple[float, float, float, float]:
    """Shares of a layer's matmul weights next to each TP collective: the attention's input
    projections (after its all-gather), its output projection (before its reduce-scatter),
    the MLP's input and output matmuls (Megatron column/row-parallel pairs)."""
    attn, mlp = _attention_matmuls(arch), _mlp_matmuls(arch)
    per = 3 if arch.spec.mlp == "gated" else 2
    out = sum(m for i, m in enumerate(mlp) if i % per == per - 1)
    total = sum(attn) + sum(mlp)
    return sum(attn[:-1]) / total, attn[-1] / total, (sum(mlp) - out) / total, out / total


def every_other_matmul_share(arch: Arch) -> float:
    """Share of a layer's matmul weights in its even-numbered matmuls (k, o and up of q, k,
    v, o, gate, up, down): what torchtitan's op-level selective recompute runs again."""
    mms = layer_matmuls(arch)
    return sum(mms[1::2]) / sum(mms)


@dataclass(frozen=True)
class TrainingFlops:
    """FLOPs per training token: ``model`` (the work the model needs, what MFU counts; PaLM,
    Chowdhery et al. 2022 arXiv 2204.02311 Appendix B) and ``executed`` (recompute included,
    what the GPUs run), plus the forward attention share."""

    model: float
    executed: float
    attention_forward: float
    matmul_params: float


def training_flops_per_token(
    s: Scenario, arch: Arch, counts: ParamCounts, adapter_params: int = 0
) -> TrainingFlops:
    """FLOPs per trained token for the scenario's workload, recompute and attention kernel."""
    m = matmul_params(counts)
    causal = s.parallelism.attention == "flash"
    a = attention_flops_per_token(arch, s.workload.attention_span, causal)
    forward = 2.0 * m + a
    if s.workload.is_adapter:
        forward += 2.0 * adapter_params
        # backward: input gradients of frozen weights (2m), attention (2a), adapters (4 each)
        model = forward + 2.0 * m + 2.0 * a + 4.0 * adapter_params
    else:
        model = 3.0 * forward  # backward = 2 x forward (Kaplan et al. 2020 §2.1)
    recompute = s.parallelism.recompute
    extra = forward if recompute == "full" else 0.0
    if recompute == "selective":
        every_other = FRAMEWORKS[s.framework].selective_recompute == "every_other_matmul"
        extra = 2.0 * m * every_other_matmul_share(arch) if every_other else a
    # a preference fine-tune's no-grad forwards (reference, KTO's KL batch) per trained token
    extra += s.workload.extra_forward_share * (2.0 * m + a)
    return TrainingFlops(model, model + extra, a, m)
