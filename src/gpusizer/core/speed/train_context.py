"""The per-layer context of a training step on one GPU (core/speed/train_layer.py prices a layer
from it): a micro-batch's tokens on one GPU, the splits, bytes and recompute policy, the
sustained rates of the GPU for the framework's kernels and dtypes, the links of the TP, CP and
EP groups, the routed experts' shape and the busiest EP rank's load.

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

from typing import NamedTuple

from ..memo import Memo
from ..memory.training import base_weight_dtype
from ..model.architecture import resolve
from ..model.context_algorithm import context_splits_heads, ulysses_widths
from ..model.expert_tensor import ep_stride, expert_shards, expert_tensor
from ..model.flops import attention_flops_per_token
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..registry.frameworks import FRAMEWORKS
from ..registry.training_formats import FP8_MATMULS
from .alltoall_measured import Points, measured_all_to_all
from .alltoall_network import DEDUPLICATING, node_copies
from .collectives import NETWORK_ALPHA, NETWORK_BETA, NO_LINK, Link
from .collectives import link as node_link
from .expert_gemm import routed_shape
from .expert_load import PREFILL_ROUTING_ALPHA, busiest_rank_factor
from .train_mixers import replicated_shape, replicated_state_flops
from .train_ops import TrainShape, train_shape
from .train_rates import (
    NIC_GB_PER_S,
    attention_rate,
    group_link,
    matmul_rate,
    memory_rate,
    network_gb_per_s,
)
from .train_recompute import Rerun, RerunInput, module_rerun

SUSTAINED = {8: 0.84, 9: 0.66}


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
    eager_activation_clamp: bool = False  # the framework clamps the gated activation eagerly
    unfused_scaled_rope: bool = False  # the framework runs a YaRN-scaled RoPE unfused
    rerun: Rerun = Rerun()  # Megatron-Core's module recompute, per token (core/speed/train_recompute.py)
    # an EP group across NVLink nodes: a token's copies sent off the node and over NVLink, one
    # GPU's NIC and the node's link (core/speed/alltoall_network.py); no copies off the node
    # where the group fits one
    ep_copies: tuple[float, float] = (0.0, 0.0)  # a token's copies off the node, over NVLink
    ep_nic: Link = NO_LINK
    ep_inside: Link = NO_LINK
    # the experts' TP (core/model/expert_tensor.py; 0: TP) and its group's link
    etp: int = 0
    etp_link: Link = NO_LINK
    expert_overlap: bool = False  # the EP all-to-all overlapped with the other micro-batch's compute
    # the context ranks split the heads (Ulysses, core/speed/train_ulysses.py): the q, output
    # and k/v widths a token sends into its all-to-alls; zeros: ring attention
    ulysses: tuple[int, int, int] = (0, 0, 0)


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
    arch = resolve(s.model)
    ts = replicated_shape(s, arch, train_shape(s.model))  # mixers whole on each TP rank
    a = nbytes(pr.activations)
    fp8 = pr.matmuls in FP8_MATMULS and "fp8" in gpu.dense_tflops
    rates = _rates(gpu, prof.attention_kernel, pr.activations, fp8)
    per_node, net = s.hardware.gpus_per_node, network(s, gpu)
    # the stored base: QLoRA's NF4 where the weights field names no quantised format (the
    # memory's own rule, core/memory/training.py), so its dequantisation is priced by default
    base = nbytes(base_weight_dtype(s))
    quantised = w.is_adapter and base < 2
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
        eager_activation_clamp=prof.eager_activation_clamp,
        unfused_scaled_rope=prof.unfused_scaled_rope,
        fp8=fp8,
        adapter=w.is_adapter,
        recompute=prof.selective_recompute if p.recompute == "selective" else p.recompute,
        async_tp=p.async_tensor_parallel,
        attention_per_token=attention_flops_per_token(arch, w.attention_span, causal) / ts.layers
        + replicated_state_flops(s, arch) / ts.layers,
        mm_rate=rates.matmul,
        attn_rate=rates.attention,
        bandwidth=rates.bandwidth,
        dequant_bytes=base + 2 * a if quantised else 0.0,
        tp_link=group_link(gpu, p.tensor, 1, per_node, net),
        cp_link=group_link(gpu, p.context, p.tensor, per_node, net),
        ep_link=group_link(gpu, p.expert, ep_stride(p), per_node, net),
        etp=expert_tensor(p),
        etp_link=group_link(gpu, expert_tensor(p), 1, per_node, net),
        busiest=_busiest(s, ts),
        expert_overlap=p.expert_overlap,
    )
    if p.context > 1 and context_splits_heads(s):
        ctx = ctx._replace(ulysses=ulysses_widths(arch, p.context, s.model.mla is not None))
    # each expert's GEMMs at its expert-TP shard over EP x expert TP / TP shares of tokens
    shards, etp = expert_shards(p), expert_tensor(p)
    shape = routed_shape(ctx.tokens, ts, shards, etp, ctx.busiest, gpu.compute_capability, fp8)
    a2a = measured_all_to_all(gpu.id, p.expert) if ctx.ep_link.kind == "nvlink" else ()
    ctx = ctx._replace(expert_shape=shape, ep_all_to_all=a2a, rerun=_rerun(s, ctx))
    return _across_nodes(ctx, s, gpu, net), rates.head


def _rerun(s: Scenario, c: LayerContext) -> Rerun:
    """The backward's module rebuilds of ``parallelism.recompute_modules`` where the framework
    honours them and the layout does not rerun the whole layer anyway (``recompute: "full"``)."""
    mods = s.parallelism.recompute_modules
    if not mods or not FRAMEWORKS[s.framework].module_recompute or c.recompute == "full":
        return Rerun()
    r = RerunInput(c.ts, s.model, c.a, c.tp, c.sp, c.fused, c.eager_activation_clamp)
    return module_rerun(r, mods)


def _across_nodes(ctx: LayerContext, s: Scenario, gpu: GPUSpec, net: float) -> LayerContext:
    """``ctx`` with a token's copies off the node and over NVLink, one GPU's NIC and the node's
    link where the EP group spans NVLink nodes (core/speed/alltoall_network.py); unchanged
    otherwise. The EP group strides the expert TP, Megatron's default TP: Megatron-Core builds the
    experts' ranks apart from the dense ones, CP folded in (``parallel_state.py``
    ``initialize_model_parallel`` at d98e8a6: ``expert_decoder_rank_generator`` with ``tp`` the
    expert TP, ``cp=1``, the dense order "tp-cp-ep-dp-pp"), so EP neighbours are expert-TP apart."""
    p, per_node = s.parallelism, s.hardware.gpus_per_node
    inside = node_link(gpu, 2, max(2, per_node))
    in_node = max(1, min(ctx.ep, per_node // max(1, expert_tensor(p))))
    if ctx.ep_link.kind != "network" or inside.kind != "nvlink" or in_node >= ctx.ep:
        return ctx
    dedup = p.expert_dispatcher in DEDUPLICATING
    copies = node_copies(ctx.ts.top_k, ctx.ts.experts, ctx.ep, in_node, dedup)
    nic = Link("network", NETWORK_ALPHA, NETWORK_BETA * net / NIC_GB_PER_S)
    return ctx._replace(ep_copies=copies, ep_nic=nic, ep_inside=inside)


def _busiest(s: Scenario, ts: TrainShape) -> float:
    """The busiest EP rank's routed work over the mean rank's under the router's own load
    (``parallelism.expert_routing``); 1 when balanced, dense or without EP. The EP group's
    tokens are one micro-batch per rank."""
    p, w = s.parallelism, s.workload
    if p.expert_routing != "router" or not ts.top_k or p.expert <= 1:
        return 1.0
    tokens = w.micro_batch_size * w.sequence_length / p.context * expert_shards(p)
    return busiest_rank_factor(ts.experts, ts.top_k, tokens, p.expert, PREFILL_ROUTING_ALPHA)
