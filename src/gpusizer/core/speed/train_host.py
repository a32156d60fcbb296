"""The host's work in an eager Megatron-Core training pass: the ops one decoder layer issues from
Python, priced per op on the scenario's host CPU, against the GPU time of the same layer.

A training pass that captures no CUDA graph issues every kernel from Python (PyTorch's dispatch,
TransformerEngine's module logic, the CUDA launch). The GPU runs ahead of the host only as far
as the queue the host has filled; a layer whose kernels finish faster than the host issues them
runs at the host's pace ("CPU overhead or host boundedness": Megatron-LM
``docs/discussions/deepseek-v3-gb200-optimization``, DeepSeek-V3 on 256 GB200 at micro-batch 1:
"large gaps between kernels, and the CPU kernel launch speed cannot keep up with the kernel
execution speed on GPU"). A dropless MoE layer under the all-to-all dispatcher also waits once
for the GPU (``MoEAlltoAllTokenDispatcher._maybe_dtoh_and_synchronize``: the tokens per expert
copied to the host and ``d2h_event.synchronize()``, Megatron-LM d30c3ae, the commit NeMo RL
v0.6.0 pins), so the host's lead does not carry from one layer to the next: each layer pass
takes the larger of its host and GPU times (:func:`host_bound_extra`).

Pre-training steps pay the same wait (every dropless dispatcher at the Megatron-Core commits
Megatron-Bridge v0.2.1-v0.4.2 pin, 0d8e071-2edffad: the all-to-all's ``before_ep_alltoall``
sync, HybridEP's ``num_permuted_tokens = None``, DeepEP's received counts; a ``moe_preprocess``
CUDA graph moves the copy, not the wait; forced balance changes the counts, not the wait) but
are not paced here: at these per-op costs their x86 layers outlast the host's eager ops (all but
two B200 rows, which would gain 2.5 %), and their recipes graph what the inventory counts as
eager (tests/core/test_pretrain_host_sync.py).

Per-op host time (NVIDIA/TransformerEngine#2053, BF16, hidden 2,048, 8,192 tokens, mean of
repeated runs): a ``torch.nn.Linear`` forward 13.48 us of CPU on an H100 DGX (Xeon Platinum
8480C, the x86 reference, ``TORCH_OP_SECONDS``); a TransformerEngine ``Linear`` forward
99.66 us against torch's 37.08 us on the same GB200 (90.53 against 33.17 on a GH200): a TE
module call is 2.69 torch ops (``TE_MODULE_OPS``). The host CPU's factor
(core/registry/host_cpus.py ``op_dispatch``, Grace 2.75) scales both.

Ops per layer (:data:`INVENTORIES`), read from Megatron-Core at d30c3ae with the TE layer spec
(``gpt_layer_specs``): counted at the level of Python calls (a TE module, a torch op, a
collective), not measured.

The routed experts' ``GroupedLinear`` (fc1, fc2) issues one cuBLASLt GEMM per local expert
(experts / EP) in C++: ``general_grouped_gemm`` -> ``te_general_grouped_gemm`` ->
``nvte_multi_stream_cublas_gemm`` (``nvte_multi_tensor_gemm`` from 2.14) loops over the experts,
and each ``cublas_gemm`` builds its matmul and layout descriptors, asks
``cublasLtMatmulAlgoGetHeuristic`` and launches (TransformerEngine
``transformer_engine/common/gemm/cublaslt_gemm.cu`` at v2.5, v2.8, 71bbefb and 42b8400, the
versions NeMo RL v0.4.0-v0.7.0 pin; the CUTLASS grouped path is opt-in). A forward launches one
GEMM per expert (fprop), a backward two (dgrad, wgrad: ``_GroupedLinear.backward`` in
``module/grouped_linear.py``), in BF16 and FP8 alike. Such a call costs about 10 us of host time
from entry to kernel launch (NVIDIA/raft#1736, NVTX, descriptors and heuristic built per call;
``CUBLASLT_GEMM_SECONDS``), scaled by the host CPU's factor like a torch op. The TE module call's
price already holds one GEMM (its forward) or two (its backward), so only the other experts'
launches are added (:func:`expert_gemm_ops`).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil
from typing import NamedTuple

from ..model.presets import host_cpu
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..registry.table import add
from .train_layer import layer_communication, layer_compute, layer_context
from .train_step import step_for

TORCH_OP_SECONDS = 13.48e-6  # TE#2053: torch Linear forward, CPU time, H100 DGX (x86)
TE_MODULE_OPS = 99.66 / 37.08  # TE#2053 on GB200: a TE Linear forward's CPU time in torch ops
CUBLASLT_GEMM_SECONDS = 10e-6  # raft#1736: a per-call-heuristic cuBLASLt matmul, host to launch


@dataclass(frozen=True)
class Block:
    """One part of a layer's forward: TE module calls and torch ops (each a Python-level call),
    and of those torch ops the ones with a backward node (autograd replays them)."""

    te: int
    torch: int
    torch_backward: int

    def ops(self, backward: bool) -> float:
        """Torch-op equivalents the host issues in this block's forward (or backward)."""
        return self.te * TE_MODULE_OPS + (self.torch_backward if backward else self.torch)


@dataclass(frozen=True)
class Inventory:
    """A framework's ops per layer forward, by block (Megatron-Core d30c3ae, TE spec)."""

    id: str
    # GQA self-attention: linear_qkv (TELayerNormColumnParallelLinear), core_attention
    # (TEDotProductAttention), linear_proj; the QKV view and split, RoPE on q and k,
    # bias-dropout-add (attention.py, transformer_layer.py)
    attention: Block
    # q_layernorm and k_layernorm (TENorm) where the model normalises q and k (Qwen3)
    qk_norm: Block
    # MLA (multi_latent_attention.py): q down/up, kv down/up, q and kv layernorms, core
    # attention, linear_proj; the nope/rope splits and cats, RoPE, bias-dropout-add
    mla: Block
    # dense MLP: linear_fc1 (with its layernorm), linear_fc2; the fused SwiGLU, bias-dropout-add
    mlp: Block
    # MoE: pre_mlp_layernorm, the experts' fc1 and fc2 (TE GroupedLinear); the router (gating
    # with its dtype casts, view, score function, top-k, the probs and routing-map scatters:
    # router.py, moe_utils.topk_routing_with_score_function), the all-to-all dispatcher's
    # preprocess (13 ops: token counts, their all-gather and splits), its device-to-host copies and
    # synchronisation (8), the two dispatch and one combine all-to-alls, the experts' activation
    # with the probs, the output view, the residual (token_dispatcher.py, experts.py)
    moe: Block
    shared_expert: Block  # a shared expert's fc1 and fc2, and its output added
    # permute, sort_chunks_by_idxs, its inverse and unpermute (moe_utils.py): unfused the argsort
    # permute (10 ops), split + cat sorting (5, and 3 back), masked-select unpermute (7); fused
    # (``moe_permute_fusion``) one TE call each
    permute: Block
    permute_fused: Block
    # the routed experts' TE GroupedLinear modules a MoE layer calls (fc1, fc2), each launching a
    # cuBLASLt GEMM per local expert (grouped_linear.py, cpp_extensions/gemm.py)
    grouped_linears: int = 0


INVENTORIES: dict[str, Inventory] = {}


def register(inv: Inventory) -> Inventory:
    """Add an inventory (a DuplicateId if its id is taken)."""
    return add(INVENTORIES, inv.id, inv, "host inventory")


_MEGATRON = dict(
    attention=Block(te=3, torch=5, torch_backward=3),
    qk_norm=Block(te=2, torch=0, torch_backward=0),
    mla=Block(te=8, torch=9, torch_backward=7),
    mlp=Block(te=2, torch=2, torch_backward=2),
    moe=Block(te=3, torch=10 + 13 + 8 + 3 + 2 + 2, torch_backward=3 + 2 + 2),
    shared_expert=Block(te=2, torch=1, torch_backward=1),
    permute=Block(te=0, torch=10 + 5 + 3 + 7, torch_backward=2 + 2 + 2 + 3),
    permute_fused=Block(te=0, torch=4, torch_backward=4),
)
for _id in ("megatron", "megatron-bridge"):  # Megatron-Bridge builds the same Megatron-Core layers
    register(Inventory(_id, grouped_linears=2, **_MEGATRON))  # fc1 and fc2 (experts.py TEGroupedMLP)


def expert_gemm_ops(inv: Inventory, local_experts: int, backward: bool) -> float:
    """Torch-op equivalents of the cuBLASLt GEMMs a MoE layer's ``GroupedLinear`` modules launch
    in a forward (one per local expert) or backward (two: dgrad, wgrad) beyond the one or two
    their TE module call is priced with (``CUBLASLT_GEMM_SECONDS`` in units of
    ``TORCH_OP_SECONDS``)."""
    gemms = inv.grouped_linears * (2 if backward else 1) * max(0, local_experts - 1)
    return gemms * CUBLASLT_GEMM_SECONDS / TORCH_OP_SECONDS


def layer_host_ops(
    inv: Inventory, model: ModelSpec, moe_share: float, fused_permute: bool, local_experts: int = 1
) -> tuple[float, float]:
    """(forward, backward) torch-op equivalents the host issues for one average layer of
    ``model`` (``moe_share``: the share of its layers with routed experts; ``local_experts``:
    the routed experts on one GPU, experts / EP)."""
    attn = (
        [inv.mla]
        if model.mla is not None
        else [inv.attention] + ([inv.qk_norm] if model.qk_norm != "none" else [])
    )
    moe = [inv.moe, inv.permute_fused if fused_permute else inv.permute]
    if model.moe is not None and model.moe.shared_experts:
        moe.append(inv.shared_expert)

    def ops(backward: bool) -> float:
        dense = sum(b.ops(backward) for b in attn)
        routed = sum(b.ops(backward) for b in moe) + expert_gemm_ops(inv, local_experts, backward)
        return dense + moe_share * routed + (1 - moe_share) * inv.mlp.ops(backward)

    return ops(False), ops(True)


def host_bound_extra(gpu: float, host: float) -> float:
    """Seconds a layer pass of ``gpu`` GPU seconds takes beyond them when its host issues it in
    ``host`` seconds: the larger sets the pace (a MoE layer's synchronisation keeps the host's lead
    from carrying over)."""
    return max(0.0, host - gpu)


def stage_layers(layers: int, pipeline: int) -> int:
    """Layers on the fullest pipeline stage."""
    return ceil(layers / max(1, pipeline))


def local_experts(s: Scenario) -> int:
    """Routed experts one GPU holds: the model's experts over the expert-parallel degree (1
    without routed experts)."""
    moe = s.model.moe
    return ceil(moe.experts / max(1, s.parallelism.expert)) if moe is not None else 1


class HostPace(NamedTuple):
    """Seconds one micro-batch on the fullest pipeline stage takes beyond its GPU time because
    the host issues its ops more slowly: a forward alone (a log-prob pass), and a training pass
    (forward, backward and, under full recompute, the forward again)."""

    forward: float = 0.0
    train: float = 0.0


def host_pace(s: Scenario, gpu: GPUSpec, fused_permute: bool) -> HostPace:
    """:class:`HostPace` of a training scenario's layout on its GPU and host CPU, eager (no CUDA
    graph); nothing for a framework without an inventory. The layer's GPU time is its compute
    (core/speed/train_layer.py) and its exposed collectives, half in each pass."""
    inv = INVENTORIES.get(s.framework)
    if inv is None:
        return HostPace()
    c, _ = layer_context(s, gpu)
    layer = layer_compute(c)
    moe_share = c.ts.moe_layers / c.ts.layers if c.ts.layers else 0.0
    comm = sum(layer_communication(c, layer, moe_share)) / 2
    fwd_ops, bwd_ops = layer_host_ops(inv, s.model, moe_share, fused_permute, local_experts(s))
    per_op = TORCH_OP_SECONDS * host_cpu(s.hardware).op_dispatch
    host_f, host_b = fwd_ops * per_op, bwd_ops * per_op
    if c.recompute == "full":  # the backward reruns the layer's forward first
        host_b += host_f
    n = stage_layers(c.ts.layers, s.parallelism.pipeline)
    forward = host_bound_extra(layer.forward + comm, host_f)
    return HostPace(n * forward, n * (forward + host_bound_extra(layer.backward + comm, host_b)))


def paced_seconds(
    s: Scenario, gpu: GPUSpec, fused_permute: bool, train: float, forwards: int, epochs: int
) -> tuple[float, float]:
    """(log-prob, training) seconds an RL policy's passes run beyond their GPU time where the
    host issues its eager layers more slowly: ``forwards`` forward passes over one epoch's
    micro-batches, and the ``train`` seconds of training (``epochs`` epochs) with each optimizer
    step's micro-batches and pipeline bubble (core/speed/train_step.py)."""
    return pace_seconds(host_pace(s, gpu, fused_permute), s, gpu, train, forwards, epochs)


def pace_seconds(
    pace: HostPace, s: Scenario, gpu: GPUSpec, train: float, forwards: int, epochs: int
) -> tuple[float, float]:
    """(log-prob, training) seconds of ``pace`` (a micro-batch's host time beyond its GPU time)
    over :func:`paced_seconds`' micro-batches: ``forwards`` forward passes over one epoch's, and
    each optimizer step's with its pipeline bubble over the ``train`` seconds of training."""
    if not (pace.forward or pace.train):
        return 0.0, 0.0
    step, p = step_for(s, gpu), s.parallelism
    updates = train / step.seconds if step.seconds else 0.0  # optimizer steps over the epochs
    slots = step.microbatches + (p.pipeline - 1) / p.virtual_stages
    return forwards * updates / epochs * step.microbatches * pace.forward, updates * slots * pace.train
