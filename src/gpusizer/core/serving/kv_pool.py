"""Per-GPU memory of engines that reserve a paged KV pool up front (vLLM, SGLang, TensorRT-LLM).

The memory an engine holds is the pool as it reserves it, mapped onto the report's components:
``weights``; the profile peak in ``activations`` (the forward pass of the profile batch) or in
``temporary`` (vLLM's sampler on full-vocabulary fp32 logits, when that is larger);
``overhead`` = non-torch memory (CUDA context, NCCL, allocator) + CUDA graphs; ``kv_cache`` =
the pool. Rules by ``FrameworkProfile.memory_rule`` (sources: core/engines.py and
docs/evidence/serving.md §1-3):

- profiled_pool (vLLM ``determine_available_memory``): pool = fraction x total - weights -
  profile peak - non-torch (- CUDA graphs from 0.20); KV pages of ``block`` tokens; the engine
  refuses to start when one request of ``max_model_len`` does not fit
  (``check_enough_kv_cache_memory``; V0 ``raise_if_cache_size_invalid``).
- static_pool (SGLang ``profile_max_num_token``): pool = free x fraction - weights, the
  fraction from the reservation formula of the release.
- free_pool (TensorRT-LLM ``KvCacheConfig``): pool = fraction x (free after weights and the
  activations of ``max_num_tokens``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..memory.overhead import scenario_overhead
from ..model.architecture import Arch
from ..model.params import ParamCounts
from ..model.result import COMPONENTS, Memory
from ..model.sharding import StageParams, stage_params
from ..model.specs import GPUSpec, Scenario
from ..registry.dtypes import nbytes
from ..registry.engines import MiB, cuda_total_bytes
from .engine_settings import EngineSettings
from .kv_request import capacity, startup_check
from .moe_layout import MoeLayout, served_weight_bytes


@dataclass(frozen=True)
class EngineMemory:
    """What an engine holds on its heaviest GPU, and what its KV cache can serve."""

    memory: Memory
    kv_pool_bytes: int  # per GPU
    kv_capacity_tokens: int
    max_concurrency: float  # requests of max_context tokens the pool holds at once
    starts: bool
    reason: str | None
    max_context: int
    max_sequences: int | None
    kv_bytes_per_token: float  # per GPU (its layers)
    host_memory_bytes: int = 0
    gpu_layers: int | None = None
    host_read_bytes: float = 0.0  # weights + KV a decode step reads from host RAM
    notes: tuple[str, ...] = ()
    fraction: float | None = None  # the memory fraction applied
    reserved_bytes: float = 0.0  # inside the budget besides the pool (weights, peak, ...)
    outside_bytes: float = 0.0  # taken outside the budget (context, NCCL, graphs)
    outside_free_check: bool = False  # the engine refuses unless fraction x total is free
    host_parts: dict[str, float] | None = None  # system RAM by buffer (llama.cpp)
    request_bytes: float = 0.0  # pool bytes one request of max_context needs (start-up check)


def forward_peak(s: Scenario, arch: Arch, tokens: float) -> float:
    """Largest live activations of a forward pass over ``tokens`` tokens (no autograd): the
    residual stream and normalised input plus the widest intermediate (gated MLP: gate, up
    and their product; attention q, k, v), split by TP (core/inference.py's rule). A fused MoE
    layer holds [T, k, 2I], [T·k, I] and the per-expert outputs [T, k, H] (vLLM/SGLang
    fused_moe.py ``fused_experts_impl`` intermediate_cache1-3, chunks of 32,768 tokens)."""
    pb, tp = nbytes(s.precision.activations), s.parallelism.tensor
    moe = arch.moe
    if moe is not None:
        t = min(tokens, 32768) * moe.experts_per_token
        mlp = pb * t * (3 * moe.expert_ffn_hidden_size / tp + arch.hidden)
    else:
        mlp = pb * tokens * arch.ffn * (3 if arch.spec.mlp == "gated" else 2) / tp
    attn = pb * tokens * (arch.q_dim + 2 * arch.kv_dim) / tp
    return 2 * pb * tokens * arch.hidden + max(mlp, attn)


@dataclass(frozen=True)
class _Stage:
    weights: float
    body: float
    sampler: float
    sp: StageParams
    layout: MoeLayout | None = None  # how the engine lays out MXFP4 experts (None: as stored)
    stored: float = 0.0  # the same weights as the checkpoint stores them


def _stages(s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings) -> list[_Stage]:
    """Each distinct pipeline stage: weights as the engine loads them, profile forward peak,
    sampler peak (last)."""
    p = s.parallelism
    rel = st.release
    out = []
    for first in [True, False] if p.pipeline > 1 else [True]:
        sp = stage_params(counts, arch, p.tensor, p.pipeline, p.expert, first)
        seqs = min(st.max_sequences or 1, st.profile_tokens or 1)
        per_logit = rel.sampler_bytes(s.serving.flashinfer_sampler) if rel else 0.0
        sampler = per_logit * seqs * arch.vocab if sp.last else 0.0
        weights, layout, stored = served_weight_bytes(s, arch, counts, sp, gpu, rel)
        out.append(_Stage(weights, forward_peak(s, arch, st.profile_tokens), sampler, sp, layout, stored))
    return out


def _memory(weights: float, peak_body: float, sampler: float, overhead: float, pool: float) -> Memory:
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


def _layout_note(stage: _Stage) -> tuple[str, ...]:
    """The assumption a backend's MoE layout adds (its bytes beyond the checkpoint's)."""
    if stage.layout is None:
        return ()
    return (
        f"MXFP4 experts as vLLM's {stage.layout.label} MoE backend lays them out "
        f"({(stage.weights - stage.stored) / 2**30:+.2f} GiB per GPU against the "
        "checkpoint)",
    )


def pool_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
) -> EngineMemory:
    """Memory of a pool engine's heaviest GPU (the stage with the smallest pool under PP)."""
    # context, workspaces and NCCL: taken before the engine's snapshot, outside its budget
    total, outside = cuda_total_bytes(gpu), scenario_overhead(s, 0)
    best: EngineMemory | None = None
    for stage in _stages(s, arch, counts, gpu, st):
        em = _stage_memory(s, arch, gpu, st, stage, total, outside)
        if best is None or em.kv_capacity_tokens < best.kv_capacity_tokens:
            best = em
    assert best is not None
    return best


@dataclass(frozen=True)
class _Budget:
    fraction: float
    reserved: float  # inside the budget besides the pool
    away: float  # outside the budget
    pool: float
    memory: Memory


def _budget(
    s: Scenario, gpu: GPUSpec, st: EngineSettings, stage: _Stage, total: int, outside: int
) -> _Budget:
    """The pool and what the engine reserves beside it, by the profile's memory rule."""
    rule, rel, p = s.profile.memory_rule, st.release, s.parallelism
    assert rel is not None
    graphs = rel.graph_bytes if st.cuda_graphs else 0
    ranks = p.tensor * p.pipeline
    if rule == "profiled_pool":
        fraction = st.memory_fraction or 0.9
        non_torch = rel.non_torch_bytes + (
            rel.comm_bytes + (ranks - 1) * rel.comm_per_peer_bytes if ranks > 1 else 0
        )
        reserved = (
            stage.weights + max(stage.body, stage.sampler) + non_torch + (graphs if rel.graphs_in_pool else 0)
        )
        pool = fraction * total - reserved
        away = (0 if rel.context_in_budget else outside) + (0 if rel.graphs_in_pool else graphs)
        return _Budget(
            fraction,
            reserved,
            away,
            pool,
            _memory(
                stage.weights,
                stage.body,
                stage.sampler,
                non_torch + graphs + (0 if rel.context_in_budget else outside),
                pool,
            ),
        )
    if rule == "static_pool":
        fraction = st.memory_fraction or sglang_fraction(s, gpu, st)
        pool = (total - outside) * fraction - stage.weights
        return _Budget(
            fraction,
            stage.weights,
            outside + graphs,
            pool,
            _memory(stage.weights, stage.body, 0.0, outside + graphs, pool),
        )
    fraction = st.memory_fraction or 0.9  # free_pool
    reserved = stage.weights + stage.body
    pool = fraction * (total - outside - reserved)
    return _Budget(fraction, reserved, outside, pool, _memory(stage.weights, stage.body, 0.0, outside, pool))


def _stage_memory(
    s: Scenario, arch: Arch, gpu: GPUSpec, st: EngineSettings, stage: _Stage, total: int, outside: int
) -> EngineMemory:
    b = _budget(s, gpu, st, stage, total, outside)
    rel = st.release
    assert rel is not None
    tokens, conc, per_token = capacity(s, arch, st, stage.sp, b.pool)
    reason, needed = startup_check(s, arch, st, stage.sp, b.pool, tokens)
    check = s.profile.memory_rule == "profiled_pool" and not rel.context_in_budget and rel.startup_free_check
    if check and b.fraction * total > total - outside:
        reason = (
            f"free memory on the device ({(total - outside) / 2**30:.2f} GiB) is less "
            f"than memory_fraction x total ({b.fraction * total / 2**30:.2f} GiB)"
        )
    return EngineMemory(
        b.memory,
        int(max(0.0, b.pool)),
        tokens,
        conc,
        reason is None,
        reason,
        st.max_context or 0,
        _sequences(st, tokens),
        per_token,
        notes=_layout_note(stage),
        fraction=b.fraction,
        reserved_bytes=b.reserved,
        outside_bytes=b.away,
        outside_free_check=check,
        request_bytes=needed,
    )


def _sequences(st: EngineSettings, tokens: int) -> int | None:
    """Requests run at once: the setting, else SGLang's ``max_running_requests`` (half the
    pool's tokens, within its 2,048-4,096 request slots; managers/tp_worker.py)."""
    if st.max_sequences is not None:
        return st.max_sequences
    slots = min(max(int(tokens / max(1, st.max_context or 1) * 512), 2048), 4096)
    return max(1, min(tokens // 2, slots))


def sglang_fraction(s: Scenario, gpu: GPUSpec, st: EngineSettings) -> float:
    """SGLang's default ``mem_fraction_static`` (server_args.py): 0.4.x by TP size; 0.5.x
    1 - reserved / memory with reserved MiB = 512 + max(chunk, 2048) x 1.5 + graph batch x 2
    + TP x PP / 8 x 1024, at least 10 GiB on GPUs above 60 GiB."""
    p, rel = s.parallelism, st.release
    assert rel is not None
    if rel.sglang_reserve == "by_tp":
        return next(f for n, f in ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87), (1, 0.88)) if p.tensor >= n)
    mem_mib = cuda_total_bytes(gpu) / MiB
    tier = rel.tier(gpu)
    chunk = st.prefill_chunk_tokens or (tier.prefill_chunk_tokens if tier else 2048)
    graph = tier.graph_batch if tier else 8
    reserved = 512 + max(chunk, 2048) * 1.5 + graph * 2 + p.tensor * p.pipeline / 8 * 1024
    if mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return round((mem_mib - reserved) / mem_mib, 3) if mem_mib > reserved else 0.0
