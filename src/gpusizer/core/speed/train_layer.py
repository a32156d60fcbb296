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
  layer's four matmul groups (attention input and output projections, MLP input and output),
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
- Expert parallelism: dispatch and combine all-to-all of the routed tokens, both passes,
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

Kernels in a whole training step run below their standalone rates (sustained clocks under a
power cap, collectives sharing the SMs, gaps between kernels): ``SUSTAINED`` is that share per
GPU generation, set from one published run each and checked against the others
(docs/evidence/speed.md "Training", tests/core/data/speed-figures-training.json):

- Ampere 0.84: fms-fsdp Llama 2 7B on 128 A100 80GB, 4,550 tokens/s/GPU
  (foundation-model-stack/fms-fsdp README, "Training throughput benchmarks").
- Hopper and later 0.66: the same table's 7B on 96 H100, 9,600 tokens/s/GPU. GPUs without a
  CUDA compute capability (AMD, Intel, Apple) take it too: no published run here sets theirs.
  GeForce and workstation cards take Ampere's whatever their generation (:func:`sustained`).
"""

from __future__ import annotations

from operator import add
from typing import NamedTuple

from ..memo import Memo
from ..memory.lora import recorded_share
from ..model.architecture import resolve
from ..model.flops import attention_flops_per_token
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..registry.frameworks import FRAMEWORKS
from ..registry.loss_kinds import LOSS_KINDS
from .alltoall_measured import Points, all_to_all_seconds_measured, measured_all_to_all
from .collectives import Link
from .expert_gemm import routed_shape
from .expert_load import PREFILL_ROUTING_ALPHA, busiest_rank_factor
from .train_ops import (
    BACKWARD_BYTES,
    EAGER_LOSS_BYTES,
    FUSED_LOSS_BYTES,
    TrainShape,
    elementwise_bytes,
    expert_bias_bytes,
    float8_bytes,
    permute_bytes,
    train_shape,
)
from .train_rates import (
    attention_rate,
    collective_seconds,
    group_link,
    matmul_rate,
    memory_rate,
    network_gb_per_s,
)

SUSTAINED = {8: 0.84, 9: 0.66}
ATTENTION_BACKWARD = 2.5


def sustained(gpu: GPUSpec) -> float:
    """The share of standalone kernel rates a training step sustains on this GPU: each run's
    share for the datacenter generation it measured (Ampere below compute capability 9, Hopper
    and later from 9). GeForce and workstation cards were measured by neither run; they take
    one share, Ampere's, whatever their generation, so that two of them differ by their own
    rates alone. By compute capability the RTX 5090 (12.0) took Hopper's 0.66 and the RTX 4090
    (8.9) Ampere's 0.84, which cancelled the 5090's 27 % higher FP32-accumulate tensor peak
    (209.5 against 165.2 TFLOPS, NVIDIA's Ada and Blackwell GeForce whitepapers; GeForce runs
    PyTorch's BF16 GEMMs, FP32-accumulate, at half the FP16-accumulate rate) and gave both the
    same QLoRA matmul time."""
    if gpu.category in ("consumer", "workstation"):
        return SUSTAINED[8]
    cc = gpu.compute_capability
    major = int(cc.split(".")[0]) if cc else 9
    return SUSTAINED[8] if major < 9 else SUSTAINED[9]


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


class LayerContext(NamedTuple):
    """What the per-layer formulas need: tokens, splits, bytes, rates and links (a named
    tuple: built once per layout, where a frozen dataclass's init costs microseconds)."""

    ts: TrainShape
    tokens: float  # per micro-batch on one GPU
    tp: int
    cp: int
    ep: int
    a: float
    sp: bool
    fused: bool
    fp8: bool
    adapter: bool
    recompute: str  # "none" | "full" | "attention" | "every_other_matmul"
    async_tp: bool
    attention_per_token: float  # forward FLOPs of one layer's attention per token
    mm_rate: float
    attn_rate: float
    bandwidth: float
    dequant_bytes: float  # per weight and pass (QLoRA), 0 otherwise
    tp_link: Link
    cp_link: Link
    ep_link: Link
    busiest: float = 1.0  # busiest EP rank's routed tokens over the mean rank's (routing skew)
    # routed experts' GEMM time at their own shapes over the large-GEMM rate's: forward,
    # backward, input gradients alone (core/speed/expert_gemm.py)
    expert_shape: tuple[float, float, float] = (1.0, 1.0, 1.0)
    # NCCL's measured all-to-all over the EP group inside one node (core/speed/alltoall_measured.py)
    ep_all_to_all: Points = ()
    eager_expert_bias: bool = False  # the framework adds the experts' output bias eagerly


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
    passes = 2 + (1 if extra_mm else 0)
    fwd = mm_f + att_f + ew_f + deq + perm
    bwd = mm_b + extra_mm + ATTENTION_BACKWARD * att_f + extra_att + BACKWARD_BYTES * ew_f + extra_ew
    bwd += deq * (passes - 1) + casts + perm
    parts = StepParts(
        matmul=mm_f + mm_b + extra_mm,
        attention=att_f * (1 + ATTENTION_BACKWARD) + extra_att,
        memory=ew_f * (1 + BACKWARD_BYTES) + extra_ew + deq * passes + casts + 2 * perm,
    )
    alone = StepParts(matmul=mm_f, attention=att_f, memory=ew_f + deq + perm)
    return LayerTime(parts, fwd, bwd, mm_f + mm_b + extra_mm, att_f, alone)


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


def _tensor_parallel(c: LayerContext) -> float:
    """Exposed TP collectives of one layer and micro-batch: an all-gather or reduce-scatter
    of the hidden state beside each of the four matmul groups, forward and backward, plus the
    forward's again under recompute (the all-gathers only under op-level SAC). Async TP
    hides each behind the matmul it feeds or follows, all but its first chunk (1/TP)."""
    one = collective_seconds("all_gather", c.tokens * c.ts.hidden * c.a, c.tp, c.tp_link)
    inputs, outputs = (c.ts.tp_pairs[0], c.ts.tp_pairs[2]), (c.ts.tp_pairs[1], c.ts.tp_pairs[3])
    rerun = {"full": inputs + outputs, "every_other_matmul": inputs}.get(c.recompute, ())
    pairs = (*inputs, *outputs) * 2 + rerun
    if not c.async_tp:
        return one * len(pairs)
    mm = 2 * c.ts.layer_matmul / c.tp * c.tokens / c.mm_rate  # one forward pass of the layer
    return sum(max(one / c.tp, one - share * mm) for share in pairs)


def layer_communication(c: LayerContext, layer: LayerTime, moe_share: float) -> StepParts:
    """Exposed TP, CP and EP collectives of one layer and micro-batch."""
    tp = _tensor_parallel(c) if c.tp > 1 else 0.0
    cp = 0.0
    if c.cp > 1:
        shard = c.tokens * 2 * c.ts.kv / c.tp * c.a * c.cp
        n = 2 + (1 if c.recompute == "full" else 0)
        one = collective_seconds("all_gather", shard, c.cp, c.cp_link)
        cp = n * max(0.0, one - layer.attention_forward / c.cp)
    ep = 0.0
    if moe_share and c.ep > 1:
        # each TP rank routes its own sequence-parallel share of the tokens; the experts' TP
        # ranks (Megatron's default expert TP = TP) then all-gather what each received before
        # the expert GEMMs and reduce-scatter it after, both passes
        routed = c.tokens / (c.tp if c.sp else 1) * c.ts.top_k * c.ts.hidden * c.a
        if c.ep_all_to_all:
            ep = all_to_all_seconds_measured(c.ep_all_to_all, routed)
        else:
            ep = collective_seconds("all_to_all", routed, c.ep, c.ep_link)
        if c.tp > 1 and c.sp:
            ep += collective_seconds("all_gather", routed * c.tp, c.tp, c.tp_link)
        ep *= 4 * moe_share * c.busiest
    return StepParts(tp_communication=tp, cp_communication=cp, ep_communication=ep)


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


def network(s: Scenario, gpu: GPUSpec) -> float:
    return s.hardware.network_gb_per_s or network_gb_per_s(gpu)


class _Rates(NamedTuple):
    matmul: float  # the linear layers' dtype
    head: float  # the activation dtype (the LM head)
    attention: float
    bandwidth: float


_RATES: Memo[_Rates] = Memo(256)


def _rates(gpu: GPUSpec, kernel: str, activations: str, fp8: bool) -> _Rates:
    """Sustained rates of a GPU for one framework's kernels and dtypes (kept per GPU)."""

    def compute() -> _Rates:
        k = sustained(gpu)
        head = matmul_rate(gpu, activations) * k
        mm = matmul_rate(gpu, "fp8") * k if fp8 else head
        return _Rates(mm, head, attention_rate(gpu, kernel) * k, memory_rate(gpu))

    return _RATES.get((id(gpu), kernel, activations, fp8), compute, (gpu,))


def layer_context(s: Scenario, gpu: GPUSpec) -> tuple[LayerContext, float]:
    """The per-layer context of a scenario on its GPU, and the LM head's matmul rate."""
    p, w, pr = s.parallelism, s.workload, s.precision
    prof = FRAMEWORKS[s.framework]
    ts, arch = train_shape(s.model), resolve(s.model)
    a = nbytes(pr.activations)
    fp8 = pr.matmuls == "fp8" and "fp8" in gpu.dense_tflops
    rates = _rates(gpu, prof.attention_kernel, pr.activations, fp8)
    per_node, net = s.hardware.gpus_per_node, network(s, gpu)
    quantised = w.is_adapter and nbytes(pr.weights) < 2
    causal = p.attention == "flash"
    ctx = LayerContext(
        ts=ts,
        tokens=w.micro_batch_size * w.sequence_length / p.context,
        tp=p.tensor,
        cp=p.context,
        ep=p.expert,
        a=a,
        sp=p.sequence_parallel,
        fused=w.compile or prof.fused_kernels,
        eager_expert_bias=prof.eager_expert_bias,
        fp8=fp8,
        adapter=w.is_adapter,
        recompute=prof.selective_recompute if p.recompute == "selective" else p.recompute,
        async_tp=p.async_tensor_parallel,
        attention_per_token=attention_flops_per_token(arch, w.sequence_length, causal) / ts.layers,
        mm_rate=rates.matmul,
        attn_rate=rates.attention,
        bandwidth=rates.bandwidth,
        dequant_bytes=nbytes(pr.weights) + 2 * a if quantised else 0.0,
        tp_link=group_link(gpu, p.tensor, 1, per_node, net),
        cp_link=group_link(gpu, p.context, p.tensor, per_node, net),
        ep_link=group_link(gpu, p.expert, p.tensor * p.context, per_node, net),
        busiest=_busiest(s, ts),
    )
    shape = routed_shape(ctx.tokens, ts, ctx.ep, ctx.tp, ctx.busiest, gpu.compute_capability, fp8)
    a2a = measured_all_to_all(gpu.id, p.expert) if ctx.ep_link.kind == "nvlink" else ()
    return ctx._replace(expert_shape=shape, ep_all_to_all=a2a), rates.head


def _busiest(s: Scenario, ts: TrainShape) -> float:
    """The busiest EP rank's routed work over the mean rank's under the router's own load
    (``parallelism.expert_routing``); 1 when balanced, dense or without EP. The EP group's
    tokens are one micro-batch per rank."""
    p, w = s.parallelism, s.workload
    if p.expert_routing != "router" or not ts.top_k or p.expert <= 1:
        return 1.0
    tokens = w.micro_batch_size * w.sequence_length / p.context * p.expert
    return busiest_rank_factor(ts.experts, ts.top_k, tokens, p.expert, PREFILL_ROUTING_ALPHA)
