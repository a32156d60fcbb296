"""What the engines that reserve a paged KV pool up front share (vLLM, SGLang, TensorRT-LLM;
each one's budget is its rule in core/serving/rules): the stages as the engine loads them,
the profile forward peak, and the report's components of the memory it holds.

The memory an engine holds is the pool as it reserves it, mapped onto the report's components:
``weights``; the profile peak in ``activations`` (the forward pass of the profile batch) or in
``temporary`` (vLLM's sampler on full-vocabulary fp32 logits, when that is larger);
``overhead`` = non-torch memory (CUDA context, NCCL, allocator) + CUDA graphs; ``kv_cache`` =
the pool (sources: core/registry/engines.py and docs/evidence/serving.md §1-3).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memory.overhead import overhead_bytes, scenario_overhead
from ..model.architecture import Arch
from ..model.params import ParamCounts
from ..model.redundant import expert_divisor
from ..model.result import COMPONENTS, Memory
from ..model.sharding import StageParams, stage_params
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..registry.engines import cuda_total_bytes
from .a2a_memory import a2a_buffers, a2a_note
from .engine_settings import EngineSettings
from .moe_layout import MoeLayout, served_weight_bytes
from .tp_replicated import replicated_extra_bytes

__all__ = [
    "EngineView",
    "PoolBudget",
    "Stage",
    "engine_view",
    "forward_peak",
    "layout_note",
    "pool_parts",
    "sequences",
    "stages",
]


def forward_peak(s: Scenario, arch: Arch, tokens: float) -> float:
    """Largest live activations of a forward pass over ``tokens`` tokens (no autograd): the
    residual stream and normalised input plus the widest intermediate (gated MLP: gate, up
    and their product; attention q, k, v), split by TP (core/memory/inference.py's rule). A fused MoE
    layer holds [T, k, 2I], [T·k, I] and the per-expert outputs [T, k, H] (vLLM/SGLang
    fused_moe.py ``fused_experts_impl`` intermediate_cache1-3, chunks of 32,768 tokens). A MoE
    model's dense layers (DeepSeek's leading ones, Llama 4 Maverick's every other layer, whose
    MLP is ``intermediate_size_mlp`` 16,384 wide against the experts' 8,192) run their own MLP,
    so the peak is the wider of the two."""
    pb, tp = nbytes(s.precision.activations), s.parallelism.tensor
    moe = arch.moe
    dense = pb * tokens * arch.ffn * (3 if arch.spec.mlp == "gated" else 2) / tp
    if moe is not None:
        t = min(tokens, 32768) * moe.experts_per_token
        mlp = pb * t * (3 * moe.expert_ffn_hidden_size / tp + arch.hidden)
        mlp = max(mlp, dense) if arch.dense_layers else mlp
    else:
        mlp = dense
    attn = pb * tokens * (arch.q_dim + 2 * arch.kv_dim) / tp
    return 2 * pb * tokens * arch.hidden + max(mlp, attn)


@dataclass(frozen=True)
class Stage:
    """One distinct pipeline stage as the engine loads it (bytes on one of its GPUs)."""

    weights: float
    body: float
    sampler: float
    sp: StageParams
    layout: MoeLayout | None = None  # how the engine lays out MXFP4 experts (None: as stored)
    stored: float = 0.0  # the same weights as the checkpoint stores them
    host: float = 0.0  # weights kept in host memory (serving.cpu_offload_gib), not in ``weights``


def stages(s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings) -> list[Stage]:
    """Each distinct pipeline stage: weights as the engine loads them, profile forward peak,
    sampler peak (last)."""
    p = s.parallelism
    rel = st.release
    out = []
    for first in [True, False] if p.pipeline > 1 else [True]:
        sp = stage_params(counts, arch, p.tensor, p.pipeline, expert_divisor(s), first)
        seqs = min(st.max_sequences or 1, st.profile_tokens or 1)
        per_logit = rel.sampler_bytes(s.serving.flashinfer_sampler) if rel else 0.0
        sampler = per_logit * seqs * arch.vocab if sp.last else 0.0
        weights, layout, stored = served_weight_bytes(s, arch, counts, sp, gpu, rel)
        weights += replicated_extra_bytes(s, arch, sp)  # vLLM's whole MLA down-projections, router
        out.append(Stage(weights, forward_peak(s, arch, st.profile_tokens), sampler, sp, layout, stored))
    return out


def pool_parts(weights: float, peak_body: float, sampler: float, overhead: float, pool: float) -> Memory:
    """The report's components of a pool engine's GPU: the profile peak in ``activations``
    (the forward pass) or ``temporary`` (the sampler), whichever is larger."""
    body_wins = peak_body >= sampler
    parts = {
        "weights": int(weights),
        "activations": int(peak_body) if body_wins else 0,
        "temporary": 0 if body_wins else int(sampler),
        "overhead": int(overhead),
        "kv_cache": int(max(0.0, pool)),
    }
    return Memory(
        **parts,
        total=sum(parts.values()),
        peak_phase="serving",
        alive_at_peak=tuple(c for c in COMPONENTS if c not in ("gradients", "optimizer")),
    )


def layout_note(stage: Stage) -> tuple[str, ...]:
    """The assumption a backend's MoE layout adds (its bytes beyond the checkpoint's)."""
    if stage.layout is None:
        return ()
    return (
        f"MXFP4 experts as vLLM's {stage.layout.label} MoE backend lays them out "
        f"({(stage.weights - stage.stored) / 2**30:+.2f} GiB per GPU against the "
        "checkpoint)",
    )


@dataclass(frozen=True)
class EngineView:
    """The scenario on one GPU as a pool engine sees it at start-up: what its rule's budget
    and inverse read (core/serving/rules)."""

    s: Scenario
    gpu: GPUSpec
    st: EngineSettings
    total: int  # the device total the engine sees (cudaMemGetInfo: less the driver's reserve)
    outside: int  # context, workspaces and NCCL, taken before the engine's memory snapshot
    nccl: int = 0  # the part of ``outside`` that only exists with more than one rank (NCCL)
    # DeepEP's buffers (serving.moe_a2a_backend, core/serving/a2a_memory.py): each rule puts
    # them where its engine's sizing meets them (0: no DeepEP exchange is read)
    a2a: int = 0
    a2a_notes: tuple[str, ...] = ()

    @property
    def driver(self) -> int:
        """What the driver keeps of the GPU's capacity (engines never see it)."""
        return self.gpu.capacity_bytes - self.total


def engine_view(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> EngineView:
    outside = scenario_overhead(s, 0)
    single = overhead_bytes(s.profile, s.overhead, 0, 1)
    a2a = a2a_buffers(s)
    total = cuda_total_bytes(gpu)
    return EngineView(s, gpu, st, total, outside, outside - single, a2a.total, a2a_note(s, a2a))


@dataclass(frozen=True)
class PoolBudget:
    """A pool engine's budget on one stage's GPU, as its rule computes it (core/serving/rules):
    the memory fraction, what it reserves beside the pool inside the budget, what it takes
    outside the budget (the memory's total is the budget's share plus this) and the pool."""

    fraction: float
    reserved: float
    away: float
    pool: float
    memory: Memory
    notes: tuple[str, ...] = ()  # what the rule's budget adds to the assumptions


def sequences(st: EngineSettings, tokens: int) -> int | None:
    """Requests run at once: the setting, else SGLang's ``max_running_requests`` (half the
    pool's tokens, within its 2,048-4,096 request slots; managers/tp_worker.py)."""
    if st.max_sequences is not None:
        return st.max_sequences
    slots = min(max(int(tokens / max(1, st.max_context or 1) * 512), 2048), 4096)
    return max(1, min(tokens // 2, slots))
