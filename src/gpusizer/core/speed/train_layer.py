"""One decoder layer's forward and backward on one GPU for one micro-batch of a training step
(core/speed/train_step.py puts the step together). Its T tokens = micro_batch x sequence /
context:

- Matmuls: 2 FLOPs per weight and token forward, 4 backward (2 for a frozen LoRA/QLoRA base:
  input gradients only), split over tensor parallelism, at the GPU's achieved matmul rate in
  the activation dtype, or FP8 under ``precision.matmuls`` (the LM head stays 16-bit:
  torchtitan's Float8 leaves ``output`` alone) (Kaplan et al. 2020 arXiv 2001.08361 §2.1).
- Attention (core/model/flops.py) at the fused kernel's rate; its backward runs five matmuls
  to the forward's two (FlashAttention-2, Dao 2023 arXiv 2307.08691 §3.1.2): 2.5x.
- Elementwise ops at the achieved HBM bandwidth (core/speed/train_ops.py: eager, or fused by
  ``workload.compile`` / the framework's kernels), Float8 casts, QLoRA's dequantisation of
  each weight per pass (bitsandbytes ``dequantize_4bit`` before the matmul).
- Recompute: ``full`` reruns the forward (Narayanan et al. 2021 arXiv 2104.04473 §5.1);
  ``selective`` what the framework's policy reruns (core/registry/frameworks.py).
- Tensor parallelism: an all-gather or reduce-scatter of the hidden state beside each of the
  layer's four matmul groups (attention input and output projections, MLP input and output;
  a routed-only MoE layer's MLP block runs the experts' own instead, core/speed/train_moe_comm.py),
  forward and backward (Shoeybi et al. 2019 arXiv 1909.08053 §3; with sequence parallelism,
  Korthikanti et al. 2022 arXiv 2205.05198 §4.2.2: the same bytes as the all-reduces); full
  recompute reruns the forward's, op-level SAC the all-gathers only (it keeps the
  reduce-scatters' outputs). Exposed, unless ``async_tensor_parallel`` decomposes each matmul
  into TP chunks that overlap the transfer (PyTorch async TP, torchtitan
  ``enable_async_tensor_parallel``): then each collective waits for what its own matmul cannot
  hide, at least its first chunk (1/TP).
- Context parallelism: the K/V shards are all-gathered forward and their gradients
  reduce-scattered backward (torchtitan's default ``context_parallel_rotate_method =
  "allgather"``); the first sub-attention on the local shard (1/CP of it) hides the transfer.
  Where the context splits the heads (Ulysses: DeepSpeed, verl's FSDP workers), the all-to-alls
  of q, k, v and the output instead, exposed (core/speed/train_ulysses.py).
- Expert parallelism: dispatch and combine all-to-all of the routed tokens, both passes (and
  the forward's again under full recompute, which wraps the whole layer in
  ``tensor_parallel.checkpoint``: Megatron-LM ``megatron/core/transformer/transformer_block.py``
  ``_checkpointed_forward`` at core_v0.13.0 and core_v0.14.0, ``megatron/core/recompute.py`` on main),
  at NCCL's measured all-to-all time where it was timed on the GPU and group size inside a node
  (core/speed/alltoall_measured.py), else priced as an all-gather of the same bytes; under TP
  with sequence parallelism (Megatron requires it for MoE with TP) each TP rank routes its own
  1/TP of the tokens, and the experts' TP ranks (Megatron's default expert TP = TP) all-gather
  what each received before the expert GEMMs and reduce-scatter it after
  (Megatron-LM ``token_dispatcher.py`` at 0014f13, ``gather_from_sequence_parallel_region`` /
  ``reduce_scatter_to_sequence_parallel_region`` when ``tp_size > 1``).
- Routed experts' GEMMs at their own shapes: each local expert's fc1 and fc2, forward and
  backward, at the share of the large-GEMM rate cuBLAS reaches on (tokens per expert) x (width)
  x (hidden), measured (core/speed/expert_gemm.py): narrow experts at a few thousand tokens each
  run below the MAMF rate the dense layers take.
- MoE token permutation: the copies of each token per routed expert around the all-to-all
  and the expert GEMMs (core/speed/train_ops.py ``permute_bytes``), forward and backward; where
  the framework adds the experts' output bias outside the GEMM (Megatron-Core's ``_apply_bias``,
  ``FrameworkProfile.eager_expert_bias``), its eager passes over the routed copies
  (``expert_bias_bytes``), on the busiest rank's share.
- Routing skew (``parallelism.expert_routing: "router"``): the router's own load, not the
  benchmarks' forced balance (Megatron ``moe_router_force_load_balancing``); every EP rank
  waits for the busiest one (core/speed/expert_load.py, at the prefill skew
  ``PREFILL_ROUTING_ALPHA`` over the EP group's tokens of a micro-batch), whose routed experts'
  matmuls and received share of the dispatch and combine scale by that factor.

Kernels in a whole training step run below their standalone rates: ``SUSTAINED``, the share per
GPU generation, and the per-layer context these formulas read are core/speed/train_context.py's
(imported here under their old names too).
"""

from __future__ import annotations

from operator import add
from typing import NamedTuple

from ..memory.lora import recorded_share
from ..model.specs import Scenario
from ..registry.frameworks import FRAMEWORKS
from ..registry.loss_kinds import LOSS_KINDS
from .alltoall_measured import all_to_all_seconds_measured
from .alltoall_network import network_all_to_all_seconds
from .train_context import SUSTAINED as SUSTAINED
from .train_context import LayerContext as LayerContext
from .train_context import layer_context as layer_context
from .train_context import network as network
from .train_context import sustained as sustained
from .train_moe_comm import expert_tensor_seconds, routed_only_share
from .train_ops import (
    BACKWARD_BYTES,
    EAGER_LOSS_BYTES,
    FUSED_LOSS_BYTES,
    activation_clamp_bytes,
    elementwise_bytes,
    expert_bias_bytes,
    float8_bytes,
    permute_bytes,
    unfused_rope_bytes,
)
from .train_rates import collective_seconds
from .train_ulysses import ulysses_seconds

ATTENTION_BACKWARD = 2.5


class StepParts(NamedTuple):
    """Seconds of one optimizer step on the slowest GPU, by what they are spent on (the
    communication parts are what is left exposed after overlap). A named tuple: the sizing
    search adds and scales thousands of them."""

    matmul: float = 0.0
    attention: float = 0.0
    memory: float = 0.0
    tp_communication: float = 0.0
    cp_communication: float = 0.0
    ep_communication: float = 0.0
    dp_communication: float = 0.0
    pipeline_bubble: float = 0.0
    optimizer: float = 0.0

    def scaled(self, k: float) -> StepParts:
        return StepParts._make([v * k for v in self])

    def plus(self, other: StepParts) -> StepParts:
        return StepParts._make(map(add, self, other))

    def as_dict(self) -> dict[str, float]:
        return {f"{name}_seconds": v for name, v in zip(self._fields, self, strict=True)}


class LayerTime(NamedTuple):
    """One layer's compute for one micro-batch: its parts, and the forward, backward, matmul
    and forward-attention seconds that collectives can hide behind."""

    parts: StepParts
    forward: float
    backward: float
    matmul: float
    attention_forward: float
    forward_parts: StepParts  # the forward pass alone (a layer below the first adapter)


def layer_compute(c: LayerContext) -> LayerTime:
    """One layer's forward + backward (+ recompute) compute of a micro-batch."""
    w = (c.ts.layer_matmul + (c.busiest - 1.0) * c.ts.routed_matmul) / c.tp
    mm_f = 2 * w * c.tokens / c.mm_rate
    att_f = c.attention_per_token * c.tokens / c.tp / c.attn_rate
    ew_f = elementwise_bytes(c.ts, c.a, c.tp, c.sp, c.fused) * c.tokens / c.bandwidth
    deq = w * c.dequant_bytes / c.bandwidth
    mm_b = mm_f * (1 if c.adapter else 2)
    extra_mm = {"full": mm_f, "every_other_matmul": c.ts.every_other_share * mm_f}.get(c.recompute, 0.0)
    # the routed experts' GEMMs at their own shapes (narrow experts, few tokens each)
    routed_f = 2 * c.busiest * c.ts.routed_matmul / c.tp * c.tokens / c.mm_rate
    slow_f, slow_b, slow_in = c.expert_shape
    mm_f += routed_f * (slow_f - 1.0)
    mm_b += routed_f * ((slow_in - 1.0) if c.adapter else 2 * (slow_b - 1.0))
    if c.recompute == "full":
        extra_mm += routed_f * (slow_f - 1.0)
    extra_att = att_f if c.recompute in ("full", "attention") else 0.0
    extra_ew = ew_f if c.recompute in ("full", "every_other_matmul") else 0.0
    casts = float8_bytes(c.ts, c.a, c.tp) * c.tokens / c.bandwidth if c.fp8 else 0.0
    moe_share = c.ts.moe_layers / c.ts.layers if c.ts.layers else 0.0
    perm = permute_bytes(c.ts, c.a, c.tp, c.sp, c.ep) * moe_share * c.tokens / c.bandwidth
    perm += expert_bias_bytes(c.ts, c.a, c.eager_expert_bias) * c.busiest * moe_share * c.tokens / c.bandwidth
    clamp_f, clamp_b = _eager_seconds(c, bool(extra_ew))
    passes = 2 + (1 if extra_mm else 0)
    rr_mem, rr_mm = _rerun_seconds(c)
    clamp_b += rr_mem
    extra_mm += rr_mm
    fwd = mm_f + att_f + ew_f + deq + perm + clamp_f
    bwd = mm_b + extra_mm + ATTENTION_BACKWARD * att_f + extra_att + BACKWARD_BYTES * ew_f + extra_ew
    bwd += deq * (passes - 1) + casts + perm + clamp_b
    parts = StepParts(
        matmul=mm_f + mm_b + extra_mm,
        attention=att_f * (1 + ATTENTION_BACKWARD) + extra_att,
        memory=ew_f * (1 + BACKWARD_BYTES) + extra_ew + deq * passes + casts + 2 * perm + clamp_f + clamp_b,
    )
    alone = StepParts(matmul=mm_f, attention=att_f, memory=ew_f + deq + perm + clamp_f)
    return LayerTime(parts, fwd, bwd, mm_f + mm_b + extra_mm, att_f, alone)


def _eager_seconds(c: LayerContext, rerun: bool) -> tuple[float, float]:
    """(forward, backward) seconds of one layer's eager clamp of its gated activation's inputs
    (core/speed/train_ops.py ``activation_clamp_bytes``, on the busiest rank's routed copies) and
    of its unfused YaRN RoPE beyond the fused kernel's (``unfused_rope_bytes``); the backward
    reruns the forward's under a recompute that reruns the elementwise ops."""
    clamp_f, clamp_b = activation_clamp_bytes(c.ts, c.a, c.tp, c.eager_activation_clamp)
    rope_f, rope_b = unfused_rope_bytes(c.ts, c.a, c.tp, c.unfused_scaled_rope)
    fwd = (clamp_f * c.busiest + rope_f) * c.tokens / c.bandwidth
    bwd = (clamp_b * c.busiest + rope_b) * c.tokens / c.bandwidth
    return fwd, bwd + (fwd if rerun else 0.0)


def _rerun_seconds(c: LayerContext) -> tuple[float, float]:
    """(memory-bound, matmul) seconds the backward spends rebuilding the modules of Megatron-Core's
    ``parallelism.recompute_modules`` (core/speed/train_recompute.py) for one micro-batch."""
    r = c.rerun
    mem = (r.bytes + r.routed_bytes * c.busiest) * c.tokens / c.bandwidth
    return mem, 2 * r.weights * c.tokens / c.mm_rate


def frozen_layer(c: LayerContext, layer: LayerTime, moe_share: float) -> StepParts:
    """A layer below the first adapter (``workload.lora_layers``): its forward and the
    forward's half of its collectives, no backward and no recompute (:func:`backward_share`)."""
    comm = layer_communication(c._replace(recompute="none"), layer, moe_share)
    return layer.forward_parts.plus(comm.scaled(0.5))


def backward_share(s: Scenario, layers: int) -> float:
    """The share of the model's ``layers`` the backward runs through: autograd records an op
    only when an input needs a gradient (PyTorch autograd; MLX's ``vjp`` walks only what
    depends on the trainable parameters), so with adapters on the last ``workload.lora_layers``
    and nothing trained below (the embedding frozen) the backward stops at the first adapted
    layer; every layer where the framework makes the embedding's output need a gradient (PEFT
    under gradient checkpointing: core/memory/lora.py ``recorded_share``, the rule the
    activations follow too). 1 without ``lora_layers``."""
    w = s.workload
    if w.lora_layers is None or not w.is_adapter or layers <= 0:
        return 1.0
    return recorded_share(s, layers)


def _tensor_parallel(c: LayerContext, mlp: bool = True) -> float:
    """Exposed TP collectives of one layer and micro-batch: an all-gather or reduce-scatter
    of the hidden state beside each of the four matmul groups (the attention's two alone
    without ``mlp``), forward and backward, plus the forward's again under recompute (the
    all-gathers only under op-level SAC). Async TP hides each behind the matmul it feeds or
    follows, all but its first chunk (1/TP)."""
    one = collective_seconds("all_gather", c.tokens * c.ts.hidden * c.a, c.tp, c.tp_link)
    pairs_in = (c.ts.tp_pairs[0], c.ts.tp_pairs[2])
    inputs: tuple[float, ...] = pairs_in if mlp else pairs_in[:1]
    outputs: tuple[float, ...] = (c.ts.tp_pairs[1], c.ts.tp_pairs[3]) if mlp else (c.ts.tp_pairs[1],)
    rerun = {"full": inputs + outputs, "every_other_matmul": inputs}.get(c.recompute, ())
    pairs = (*inputs, *outputs) * 2 + rerun
    if not c.async_tp:
        return one * len(pairs)
    mm = 2 * c.ts.layer_matmul / c.tp * c.tokens / c.mm_rate  # one forward pass of the layer
    return sum(max(one / c.tp, one - share * mm) for share in pairs)


def layer_communication(c: LayerContext, layer: LayerTime, moe_share: float) -> StepParts:
    """Exposed TP, CP and EP collectives of one layer and micro-batch. A routed-only MoE
    layer's MLP block runs the experts' own gather and scatter in place of a dense MLP's TP pair
    (core/speed/train_moe_comm.py)."""
    tp = _tensor_parallel(c) if c.tp > 1 else 0.0
    routed_only = routed_only_share(c, moe_share)
    if routed_only:
        tp = (1.0 - routed_only) * tp + routed_only * _tensor_parallel(c, mlp=False)
    cp = 0.0
    if c.cp > 1 and c.ulysses[0]:
        cp = ulysses_seconds(c)
    elif c.cp > 1:
        shard = c.tokens * 2 * c.ts.kv / c.tp * c.a * c.cp
        n = 2 + (1 if c.recompute == "full" else 0)
        one = collective_seconds("all_gather", shard, c.cp, c.cp_link)
        cp = n * max(0.0, one - layer.attention_forward / c.cp)
    ep = 0.0
    # each TP rank routes its own sequence-parallel share of the tokens; the experts' TP ranks
    # then all-gather what each received before the expert GEMMs and reduce-scatter it after,
    # both passes, at EP 1 too (core/speed/train_moe_comm.py)
    routed = c.tokens / (c.tp if c.sp else 1) * c.ts.top_k * c.ts.hidden * c.a
    etp_one = expert_tensor_seconds(c, routed) if moe_share else 0.0
    if moe_share and (c.ep > 1 or etp_one):
        if c.ep <= 1:
            ep = 0.0
        elif c.ep_all_to_all:
            ep = all_to_all_seconds_measured(c.ep_all_to_all, routed)
        elif c.ep_copies[0]:
            ep = network_all_to_all_seconds(routed / c.ts.top_k, c.ep_copies, c.ep_nic, c.ep_inside)
        else:
            ep = collective_seconds("all_to_all", routed, c.ep, c.ep_link)
        # dispatch and combine, forward and backward, and the forward's again under a full
        # recompute (the module docstring), as the CP all-gather above; Megatron's MoE-only
        # checkpoint (moe_layer.py ``moe_layer_recompute``, recompute_modules "moe") runs under
        # "selective" alone, and no recompute module id here selects it
        passes = 4 + (2 if c.recompute == "full" else 0)
        ep = (ep + etp_one) * (passes * moe_share * c.busiest)
        if c.expert_overlap:
            ep = _overlapped(ep, layer)
    return StepParts(tp_communication=tp, cp_communication=cp, ep_communication=ep)


def _overlapped(ep: float, layer: LayerTime) -> float:
    """Exposed EP all-to-all of one layer under batch-level overlap (``parallelism.expert_overlap``:
    Megatron-Core ``--overlap-moe-expert-parallel-comm``, "Overlaps All-to-All with computation by
    merging FWD-BWD passes of adjacent microbatches", Megatron-LM
    ``megatron/core/transformer/moe/README.md`` at d98e8a6; DeepSeek-V3's DualPipe, arXiv
    2412.19437 §3.2.1, the same pairing of one chunk's forward with another's backward): the
    forward's dispatch and combine (half of ``ep``) run beside the other micro-batch's backward
    compute, the backward's beside its forward; what a pass's compute cannot cover stays exposed."""
    half = ep / 2
    return max(0.0, half - layer.backward) + max(0.0, half - layer.forward)


def loss_bytes_per_logit(s: Scenario) -> float:
    """Bytes the training loss moves per logit, forward and backward: a fused or compiled loss's,
    or the eager cast and log-softmax (core/speed/train_ops.py)."""
    w = s.workload
    fused = w.compile or FRAMEWORKS[s.framework].fused_kernels or LOSS_KINDS[w.loss].fused
    return FUSED_LOSS_BYTES if fused else EAGER_LOSS_BYTES


def head_parts(s: Scenario, c: LayerContext, head_rate: float) -> StepParts:
    """The LM head's matmul (16-bit) and the loss over the logits, one micro-batch."""
    head = 2 * c.ts.head / c.tp * c.tokens / head_rate
    loss = c.ts.vocab / c.tp * c.tokens * loss_bytes_per_logit(s) / c.bandwidth
    return StepParts(matmul=head * (2 if c.adapter else 3), memory=loss)
