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

from dataclasses import dataclass, replace

from ..model.architecture import Arch
from ..registry.fused_kernels import Effect, kernel_on
from ..registry.loss_kinds import LOSS_KINDS
from . import loss as lm_loss


@dataclass(frozen=True)
class ActContext:
    """Everything the per-layer formulas need besides the architecture."""

    b: int
    s: int
    p: float  # bytes of the compute dtype
    r: float  # bytes of the residual stream / norm outputs
    tp: int = 1
    sp: bool = False
    recompute: str = "none"
    eager: bool = False
    # LoRA: which projections keep their inputs (frozen Linear layers keep none); None = all
    targets: frozenset[str] | None = None
    adapter_bytes: float = 0.0  # bytes of LoRA adapters (PEFT casts inputs to this dtype)
    lora_rank: int = 0
    autocast: bool = False  # fp32 weights under torch.autocast: each Linear casts its input
    # LoRA dropout (p > 0): bytes per input element of the mask each targeted module's dropout
    # keeps (CUDA native_dropout: a 1-byte bool mask); 0 = no dropout (nn.Identity)
    dropout_mask: float = 0.0
    loss: str = "full"  # workload.loss (core/memory/loss.py)
    loss_compiled: bool = False
    compiled: bool = False  # workload.compile: Inductor's partition of each layer
    kernels: frozenset[str] = frozenset()  # workload.fused_kernels (core/registry/fused_kernels.py)
    fp8_inputs: bool = False  # FP8 matmuls: Transformer Engine keeps FP8 Linear inputs
    quantised_inputs: bool = False  # bitsandbytes < 0.43.2: each 4-bit Linear keeps its input
    # parallelism.recompute_modules (Megatron-Core, core/registry/recompute_modules.py)
    recompute_modules: frozenset[str] = frozenset()

    @property
    def tokens(self) -> int:
        return self.b * self.s


# Norms that multiply the weight in fp32 keep the fp32 normalised tensor instead of a copy in
# the input dtype: GemmaRMSNorm (x * (1 + w.float())) and Olmo2RMSNorm ((w * x).to(dtype)).
_FP32_WEIGHT_NORMS = ("gemma", "olmo2")


def fused(arch: Arch, c: ActContext, effect: Effect) -> bool:
    """Whether compile (``norm``, ``activation``) or a ticked kernel fuses this part. Inductor's
    min-cut partitioner (torch/_functorch/partitioners.py) recomputes pointwise ops in the
    backward unless a matmul reads them there, and saves reductions: a norm keeps its input
    and fp32 rstd, a gated MLP gate, up and their product (measured to the byte,
    tests/core/data/compile-measured.json)."""
    spec = arch.spec
    if c.compiled and effect in ("norm", "activation"):
        return True
    return bool(c.kernels) and kernel_on(c.kernels, effect, spec.norm, spec.activation)


def norm_block(arch: Arch, c: ActContext, width: int, keep_output: bool, rows: int = 0) -> float:
    """Bytes an RMSNorm/LayerNorm keeps (transformers' LlamaRMSNorm, GemmaRMSNorm,
    Olmo2RMSNorm, nn.LayerNorm); ``rows`` normalised vectors (default: one per token). Fused
    or compiled: the input and an fp32 rstd per row (the output is its reader's input)."""
    t = c.tokens
    rows = rows or t
    if arch.spec.norm == "layernorm":  # native_layer_norm keeps input, fp32 mean and rstd
        return c.r * t * width + 8 * rows
    if fused(arch, c, "norm"):
        return c.r * t * width + 4 * rows
    family = arch.spec.family
    if family.startswith(_FP32_WEIGHT_NORMS):  # input.float(), rsqrt, fp32 normalised
        extra = 4 * width if family.startswith("gemma") else 0  # (1 + w).float() is new
        # the fp32 normalised tensor is kept for the weight's gradient: not when it is frozen
        return (4 if c.targets is not None else 8) * t * width + 4 * rows + extra
    # x.to(fp32) and rsqrt are kept; the normalised copy is kept by weight * x.to(input dtype)
    # unless the weight is frozen (LoRA), where only the input gradient is needed.
    return 4 * t * width + 4 * rows + (c.r * t * width if keep_output else 0)


def _adapter_extra(c: ActContext, modules: tuple[str, ...], width: int, tokens: float) -> float:
    """What LoRA adapters keep on top of a shared input (PEFT ``tuners/lora/layer.py``
    ``Linear.forward``: ``lora_B(lora_A(dropout(_cast_input_dtype(x))))``): lora_A keeps the
    input cast to the adapter dtype per module, or with dropout the dropout's new output plus
    its mask; lora_B keeps the rank-r intermediate."""
    if c.targets is None:
        return 0.0
    kept = [m for m in modules if m in c.targets]
    if c.dropout_mask:
        own = (c.adapter_bytes + c.dropout_mask) * tokens * width
    else:
        own = c.adapter_bytes * tokens * width if c.adapter_bytes != c.p else 0.0
    casts = len(kept)
    if c.compiled and not c.dropout_mask and kept:  # Inductor keeps one cast of a shared input
        casts = 1  # (measured, tests/core/data/compile-measured.json lora record)
    return casts * own + len(kept) * c.adapter_bytes * tokens * c.lora_rank


def _block_inputs(c: ActContext, modules: tuple[str, ...], width: int, tokens: float) -> float:
    """Linear layers reading one input keep it once; frozen ones keep none (LoRA: only the
    adapters of targeted modules need it, and none shares it once dropout makes its own)."""
    if c.targets is None:  # Transformer Engine's Linear (Lightning's TE plugin) keeps the FP8
        # copy of its input (the LM head counted 16-bit)
        return (1.0 if c.fp8_inputs and modules != ("lm_head",) else c.p) * tokens * width
    shared = c.adapter_bytes == c.p and not c.dropout_mask and any(m in c.targets for m in modules)
    shared = shared or (c.quantised_inputs and modules != ("lm_head",))  # the head is 16-bit
    return (c.p * tokens * width if shared else 0.0) + _adapter_extra(c, modules, width, tokens)


def _inputs(arch: Arch, block: str) -> tuple[str, ...]:
    """Module names of the Linear layers reading the block's input (a fused one is one)."""
    spec = arch.spec
    if block == "attention":
        return ("qkv",) if spec.fused_qkv and spec.mla is None else ("q", "k", "v")
    if spec.mlp != "gated":
        return ("up",)
    return ("gate_up",) if spec.fused_gate_up else ("gate", "up")


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
        if arch.spec.dropout > 0:  # dropout keeps its scaled noise and the dropped probs
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
    down = _block_inputs(c, ("down",), ffn, tokens)
    if c.compiled or c.kernels:
        if fused(arch, c, "activation") or fused(arch, c, "gated_mlp"):
            kept = 2 if gated else 1
        if gated and c.targets is None and fused(arch, c, "gated_mlp"):
            down = 0.0
    return c.p * tokens * ffn * kept + down + _block_inputs(c, _inputs(arch, "mlp"), arch.hidden, tokens)


def _moe(arch: Arch, c: ActContext) -> float:
    """Routed experts: fp32 router softmax, gathered token copies, expert MLPs, weighted outputs."""
    moe, t = arch.moe, c.tokens
    assert moe is not None
    routed = t * moe.experts_per_token
    kept = 4 * t * moe.experts + 8 * routed + c.p * routed * arch.hidden  # softmax, top-k, outputs
    kept += c.p * t * arch.hidden if c.targets is None else 0  # the router keeps its input
    kept += mlp_block(arch, c, moe.expert_ffn_hidden_size, routed)
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
    total = _block_inputs(c, _inputs(arch, "attention"), arch.hidden, t)
    total += _attention_core(arch, c) + _mla_latents(arch, c)
    if c.eager and c.recompute != "selective":
        total += _block_inputs(c, ("o",), arch.attn_out_dim, t)
    else:  # the fused kernel's output is the o_proj input: kept already (but for the FP8
        # copy Transformer Engine's o_proj keeps of it)
        total += _adapter_extra(c, ("o",), arch.attn_out_dim, t)
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
            total += _block_inputs(c, ("lm_head",), h, t)
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
    reads = _inputs(arch, "attention")
    masks = c.dropout_mask * t * h * sum(m in c.targets for m in reads)
    saved = norm_block(arch, c, h, False) + masks
    if c.quantised_inputs:  # a 4-bit matmul keeps no input that needs no gradient
        saved += _block_inputs(c, reads, h, t) - _block_inputs(
            replace(c, quantised_inputs=False), reads, h, t
        )
    if c.eager and not arch.spec.fused_qkv and arch.mla is None and c.recompute != "selective":
        # q @ k^T keeps q only for k's gradient and k (repeated to every head) only for q's:
        # an untargeted projection of a frozen input needs none (measured: q and v targeted)
        saved += c.p * t * arch.q_dim * (("k" not in c.targets) + ("q" not in c.targets))
        if "q" not in c.targets and "k" not in c.targets:  # scores need no gradient at all
            saved += 4 * c.b * arch.heads * c.s * c.s
    return saved


def megatron_attention(arch: Arch, c: ActContext) -> float:
    """Korthikanti et al. 2022 §4.1, the attention core (TP-sharded, bytes before the split):
    q, k, v and the output; eager attention keeps the softmax output and, with dropout, its
    mask and output (5as²b at p = 2), the fused kernel its fp32 log-sum-exp only. A hybrid
    model's recurrent layer has none of it (core/memory/activations_hybrid.py takes off exactly this)."""
    s, b, p = c.s, c.b, c.p
    out = 1.0 if c.fp8_inputs else p  # the proj input: FP8 under Transformer Engine
    kept = s * b * (p * (arch.q_dim + 2 * arch.kv_dim) + out * arch.attn_out_dim)
    if c.eager and c.recompute != "selective":
        mask = 1 if arch.spec.dropout > 0 else 0
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
