"""Per-token work of one decoder layer in training: matmul weights, activation widths, and the
bytes its memory-bound (elementwise) operations move, eager or fused.

The step model (core/speed/train_layer.py) multiplies these by the tokens of a micro-batch and
divides the widths by tensor parallelism. Counted from the modelling code the frameworks run
(torchtitan ``models/llama/model.py`` at 9dec370, transformers ``modeling_llama.py``):

- Eager RMSNorm (torchtitan ``RMSNorm``, transformers ``LlamaRMSNorm``): ``x.float()``, ``pow``,
  ``mean``, ``* rsqrt``, ``type_as``, ``* weight``: six kernels, 28 + 4·a bytes per value (a:
  activation bytes); fused (torch.compile, Megatron/TE or apex kernels): read the input and the
  residual, write the sum and the normalised value, 4·a. LayerNorm is one kernel either way.
- Eager RoPE (complex multiply in fp32, or ``rotate_half``): about 16 + 2·a per q/k value;
  fused 2·a. GQA ``repeat_kv`` copies k and v to every head (2·a·(kv + q) each, both ways);
  the attention output's ``transpose(1, 2).contiguous()`` copies it (2·a·q).
- Two residual adds (3·a per value each, eager); gated MLP ``silu(gate) * up``: 5·a per
  intermediate value eager, 3·a fused; plain MLP activation 2·a.
- Backward moves about twice the forward bytes: a pointwise op's backward reads its output
  gradient and saved inputs and writes one gradient per input.
- The loss over the logits: eager ``cross_entropy(logits.float())`` casts, takes max and
  sum-exp, writes the fp32 log-softmax and runs its backward and the cast's: about 44 bytes per
  logit; a fused or compiled loss reads the 16-bit logits and writes their gradient: 6.
- Float8 training (torchao ``Float8Linear``, dynamic tensorwise scales): each linear's input,
  and in backward its output gradient, is read for the amax, read again and written in FP8,
  and a transposed FP8 copy made for the weight gradient: (2·a + 3) bytes per value of every
  distinct input and output (q/k/v share their input, gate/up theirs). A MoE layer's routed
  experts quantise what they receive: Transformer Engine's ``GroupedLinear`` (the experts of
  Megatron-Core's ``TEGroupedMLP``; ``transformer_engine/pytorch/module/grouped_linear.py``,
  ``tex.split_quantize`` in v2.9 at 70f5366, ``tex.fused_multi_quantize`` at 0069563) quantises
  the permuted input of fc1 in forward and fc2's output gradient in backward, top_k hidden
  states per token each, where a dense MLP casts one; the router's linear is not an FP8 layer,
  so without shared experts the MLP's own hidden input and output are not cast at all.
- MoE token permutation (Megatron-LM ``megatron/core/transformer/moe/token_dispatcher.py`` at 0014f13,
  ``MoEAlltoAllTokenDispatcher``; the same steps run in transformers' per-expert gather and
  ``index_add_``): permutation 1 copies each token once per routed expert into the all-to-all
  buffer (reads the hidden state, writes top_k of them), unpermutation 1 reads the top_k expert
  outputs back and writes their weighted sum; with more than one expert on a GPU, permutation 2
  sorts the received tokens by local expert and unpermutation 2 restores them (read and write
  top_k hidden states each). Backward runs the inverse gathers: the same bytes again.
- A MoE layer's routed experts with biases (gpt-oss) under Megatron-Core: ``TEGroupedMLP``
  builds fc2 with ``skip_bias_add=True`` and adds its bias outside the GEMM, scaled by each
  copy's routing probability, in ``_apply_bias`` (Megatron-LM ``megatron/core/transformer/moe/
  experts.py`` at d728871, the commit Megatron-Bridge v0.4.0 pins, and 0d8e071, v0.2.1's):
  ``torch.cat([t + b * p for t, b, p in zip(split(out), biases, split(probs))])``, eager, per
  local expert. Per value of fc2's output (top_k hidden states a token): ``b * p`` writes one
  (a), the add reads two and writes one (3·a), the ``cat`` copies it (2·a): 6·a forward; its
  backward multiplies the output gradient by ``p`` and by ``b`` and sums each to the bias's and
  the probability's shape (3·a each): 6·a. The probabilities take the router's dtype, the
  activations' where ``moe_router_dtype`` is unset (Megatron-Core ``router.py``), as in the
  gpt-oss providers (Megatron-Bridge ``gpt_oss_provider.py``, ``add_bias_linear=True``).
- A clamped gated activation (gpt-oss, ``ModelSpec.activation_clamp``) under Megatron-Core:
  ``weighted_bias_quick_geglu_impl`` (Megatron-LM ``megatron/core/fusions/fused_bias_geglu.py``
  at 0d8e071 and d728871; called by ``TEGroupedMLP`` in ``moe/experts.py`` and by ``MLP`` in
  ``mlp.py``) clamps the two halves of fc1's output and concatenates them eagerly before the
  fused activation kernel: ``torch.cat((x_glu.clamp(max=v), x_linear.clamp(-v, v)), -1)``.
  Per intermediate value (one of each half): the two clamps read and write one each (4·a), the
  ``cat`` reads and writes both (4·a): 8·a forward. Backward, each clamp's gradient reads the
  output gradient and the saved input and writes one (3·a each), and the ``chunk``'s backward
  concatenates the two halves' gradients (4·a): 10·a, a lower bound (PyTorch's
  ``clamp_backward`` also builds its masks).
- A YaRN-scaled RoPE (gpt-oss, ``ModelSpec.rope_scaling``) under Megatron-Bridge: its
  ``validate_rope_fusion_compatibility`` (``src/megatron/bridge/utils/fusions.py`` at v0.2.1 and
  v0.4.0) turns ``apply_rope_fusion`` off for any ``position_embedding_type`` but "rope" (gpt-oss's
  is "yarn"), and Megatron-Core's TE fused RoPE refuses YaRN's mscale != 1 anyway
  (``models/common/embeddings/rope_utils.py`` at 0d8e071 and d728871), so each q and k value runs
  ``_apply_rotary_pos_emb_bshd``: ``t * cos`` (2·a), ``_rotate_half``'s negation of one half and
  ``cat`` (a + 2·a), ``* sin`` (2·a), the add (3·a) and the final ``cat`` with the empty pass-through
  part (2·a): 12·a forward where the fused kernel's 2·a is priced, so 10·a more; backward the two
  products' gradients (2·a each), the negation (a), the chunk's and the slice's copies (2·a each)
  and the sum of the two gradients (3·a): 12·a where 4·a is priced, 8·a more. MLA's RoPE keeps
  its fused YaRN path (Megatron-Core ``multi_latent_attention.py``).
- Selective op-level recompute (torchtitan ``selective_ac_option = "op"``,
  ``parallelize_llama.py`` ``_custom_policy``): ``aten.mm`` outputs are saved except every second
  one of a layer, so the even-numbered matmuls (k, o and up of q, k, v, o, gate, up, down) run
  again in backward; attention's output is saved, the elementwise ops are all recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.architecture import memo_by_identity, resolve
from ..model.flops import every_other_matmul_share, matmul_params, tensor_parallel_pairs
from ..model.params import count_parameters
from ..model.specs import ModelSpec

EAGER_LOSS_BYTES = 44.0  # per logit: cast, log-softmax forward and backward, cast back
FUSED_LOSS_BYTES = 6.0  # per logit: read the 16-bit logits, write their gradient
BACKWARD_BYTES = 2.0  # backward bytes of an elementwise op over its forward bytes


@dataclass(frozen=True)
class TrainShape:
    """One model's per-token training work per layer (whole layer, before TP)."""

    layers: int
    hidden: int
    q: int  # query / attention-output width
    kv: int  # key (= value) width
    act: int  # MLP intermediate values per token (active experts included)
    gated: bool
    rms_norms: int  # RMSNorm applications per layer (LayerNorm ones are cheap either way)
    layer_norms: int
    vocab: int
    layer_matmul: float  # matmul weights per layer, average over layers (active experts)
    head: float  # LM head weights
    every_other_share: float  # share of a layer's matmul weights in its even-numbered matmuls
    parameters: int  # all parameters (the optimizer steps each)
    moe_layers: int = 0
    experts: int = 0  # routed experts per MoE layer
    expert_parameters: int = 0  # routed experts' parameters, all layers (sharded over EP)
    shared_experts: bool = False  # a shared expert beside the routed ones (its own FP8 casts)
    top_k: int = 0  # routed experts per token (expert-parallel all-to-all)
    routed_matmul: float = 0.0  # the routed experts' share of layer_matmul (top_k of them)
    expert_width: int = 0  # one routed expert's intermediate size
    expert_bias: bool = False  # the routed experts' linears carry biases (gpt-oss)
    activation_clamp: bool = False  # the gated activation's inputs are clamped (gpt-oss)
    scaled_rope: bool = False  # YaRN-scaled RoPE outside MLA (gpt-oss)
    # shares of the layer's matmul weights next to each TP collective (model/flops.py)
    tp_pairs: tuple[float, float, float, float] = (0.25, 0.25, 0.25, 0.25)


@memo_by_identity
def train_shape(spec: ModelSpec) -> TrainShape:
    """The per-token work of a model's layers (memoised by the model)."""
    arch, counts = resolve(spec), count_parameters(spec)
    head = float(arch.vocab * arch.hidden)
    moe = arch.moe
    act = (moe.experts_per_token * moe.expert_ffn_hidden_size + moe.shared_ffn) if moe else arch.ffn
    norms = spec.norms_per_layer
    return TrainShape(
        layers=arch.layers,
        hidden=arch.hidden,
        q=arch.q_dim,
        kv=arch.kv_dim,
        act=act,
        gated=spec.mlp == "gated",
        rms_norms=norms if spec.norm == "rmsnorm" else 0,
        layer_norms=norms if spec.norm != "rmsnorm" else 0,
        vocab=arch.vocab,
        layer_matmul=(matmul_params(counts) - head) / arch.layers,
        head=head,
        every_other_share=every_other_matmul_share(arch),
        parameters=counts.total,
        moe_layers=counts.moe_layers,
        experts=moe.experts if moe else 0,
        expert_parameters=counts.expert_params,
        shared_experts=bool(moe and moe.shared_ffn),
        top_k=moe.experts_per_token if moe else 0,
        routed_matmul=counts.expert_params * moe.experts_per_token / moe.experts / arch.layers
        if moe
        else 0.0,
        tp_pairs=tensor_parallel_pairs(arch),
        expert_width=moe.expert_ffn_hidden_size if moe else 0,
        expert_bias=bool(moe and spec.mlp_bias),
        activation_clamp=spec.activation_clamp is not None and spec.mlp == "gated",
        scaled_rope=spec.rope_scaling == "yarn" and spec.mla is None,
    )


def elementwise_bytes(ts: TrainShape, a: float, tp: int, sp: bool, fused: bool) -> float:
    """Forward bytes of one layer's elementwise ops per token on one TP rank (``a``: bytes per
    activation value; ``sp``: sequence parallel shards the hidden-width ops too)."""
    h = ts.hidden / tp if sp else float(ts.hidden)
    q, kv, act = ts.q / tp, ts.kv / tp, ts.act / tp
    gqa = 2 * a * (kv + q) * 2 if ts.kv < ts.q else 0.0  # repeat_kv of k and v
    if fused:
        norms = (ts.rms_norms + ts.layer_norms) * 4 * a * h
        return norms + 2 * a * (q + kv) + gqa + 2 * a * q + (3 if ts.gated else 2) * a * act
    norms = ts.rms_norms * (28 + 4 * a) * h + ts.layer_norms * 4 * a * h
    residual = 2 * 3 * a * h
    return norms + (16 + 2 * a) * (q + kv) + gqa + 2 * a * q + residual + (5 if ts.gated else 2) * a * act


def float8_bytes(ts: TrainShape, a: float, tp: int) -> float:
    """Float8 casts of one layer per token on one TP rank, forward and backward together."""
    inputs = 2 * ts.hidden + ts.q + ts.act
    outputs = ts.q + 2 * ts.kv + 2 * ts.hidden + (2 if ts.gated else 1) * ts.act
    return (2 * a + 3) * (inputs + outputs + 2 * _routed_cast(ts)) / tp


def _routed_cast(ts: TrainShape) -> float:
    """Values per token, averaged over the layers, that a MoE layer's FP8 casts add to a dense
    MLP's once each way (the experts' fc1 input and fc2 output gradient, top_k hidden states
    each; less the MLP's one hidden state when no shared expert is cast)."""
    if not ts.top_k or not ts.layers:
        return 0.0
    own = 0 if ts.shared_experts else ts.hidden
    return (ts.top_k * ts.hidden - own) * ts.moe_layers / ts.layers


def permute_bytes(ts: TrainShape, a: float, tp: int, sp: bool, ep: int) -> float:
    """Forward bytes per token of one MoE layer's token permutation and unpermutation on one
    GPU (``a``: bytes per activation value; sequence parallelism gives each TP rank 1/TP of the
    tokens); the backward moves the same. Zero for a dense layer."""
    if not ts.top_k:
        return 0.0
    h, k = ts.hidden * a / (tp if sp else 1), ts.top_k
    outer = 2 * (1 + k) * h  # permutation 1 and unpermutation 1
    local = 4 * k * h if ts.experts > ep else 0.0  # permutation 2 and its inverse
    return outer + local


EXPERT_BIAS_PASSES = 6.0  # bytes per value over the activation bytes, forward (and backward)


def expert_bias_bytes(ts: TrainShape, a: float, eager: bool) -> float:
    """Forward bytes per token of one MoE layer's eager expert-output bias on the GPU that runs
    the experts (``eager``: the framework adds it outside the GEMM, Megatron-Core's
    ``_apply_bias``; module docstring): 6·a per routed copy's hidden value; the backward moves
    the same. Zero without expert biases, for a dense layer, or where the bias is fused."""
    if not (eager and ts.expert_bias and ts.top_k):
        return 0.0
    return EXPERT_BIAS_PASSES * a * ts.top_k * ts.hidden


CLAMP_FORWARD = 8.0  # bytes per intermediate value over the activation bytes (two clamps, a cat)
CLAMP_BACKWARD = 10.0  # the clamps' gradients and the chunk's concatenation


def activation_clamp_bytes(ts: TrainShape, a: float, tp: int, eager: bool) -> tuple[float, float]:
    """(forward, backward) bytes per token of one layer's eager clamp of its gated activation's
    inputs on one TP rank (``eager``: the framework clamps outside the fused kernel, Megatron-Core's
    ``weighted_bias_quick_geglu_impl``; module docstring): 8·a and 10·a per intermediate value
    (``act``: the active experts' ones). Zero without a clamp or where it is fused."""
    if not (eager and ts.activation_clamp):
        return 0.0, 0.0
    values = ts.act / tp
    return CLAMP_FORWARD * a * values, CLAMP_BACKWARD * a * values


ROPE_FORWARD = 10.0  # bytes per q/k value over the activation bytes, beyond the fused kernel's 2
ROPE_BACKWARD = 8.0  # beyond the 4 the fused kernel's backward is priced at


def unfused_rope_bytes(ts: TrainShape, a: float, tp: int, unfused: bool) -> tuple[float, float]:
    """(forward, backward) bytes per token of one layer's unfused YaRN RoPE on one TP rank beyond
    the fused kernel's that :func:`elementwise_bytes` prices (``unfused``: the framework runs a
    scaled RoPE unfused, Megatron-Core's ``_apply_rotary_pos_emb_bshd``; module docstring). Zero
    for a plain RoPE, under MLA, or where it is fused."""
    if not (unfused and ts.scaled_rope):
        return 0.0, 0.0
    values = (ts.q + ts.kv) / tp
    return ROPE_FORWARD * a * values, ROPE_BACKWARD * a * values
