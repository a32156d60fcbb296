"""The engine settings a serving scenario runs with: the ``serving`` block where set, else the
engine release's defaults for this GPU (core/registry/engines.py; sources there)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.specs import GPUSpec, Scenario
from ..registry.engines import EAGER_STEP_COST, EngineRelease, GiB, StepCost, release
from .context_limit import derived_context

# Assumed host RAM bandwidth for layers and KV kept in system memory (dual-channel DDR5-5000:
# 2 channels x 8 B x 5,000 MT/s = 80 GB/s); ``serving.host_bandwidth_gb_per_s`` replaces it.
# A unified-memory device reads "host" memory at its own bandwidth.
HOST_BANDWIDTH_GB_PER_S = 80.0


@dataclass(frozen=True)
class EngineSettings:
    """Resolved settings (``None`` where the engine decides from its memory: SGLang's running
    requests, llama.cpp's layers and context)."""

    release: EngineRelease | None
    memory_fraction: float | None
    max_context: int | None
    max_sequences: int | None
    prefill_chunk_tokens: int | None  # tokens per step; None: whole prompts
    kv_block_tokens: int
    cuda_graphs: bool
    gpu_layers: int | None
    concurrency: int
    step: StepCost
    step_latency_seconds: float | None  # the scenario's override of every step's fixed cost
    host_bandwidth: float  # bytes/s
    profile_tokens: int  # tokens of vLLM's profile forward pass (its max_num_batched_tokens)


def _chunk(rel: EngineRelease, gpu: GPUSpec, max_context: int) -> tuple[int | None, int]:
    """(prefill tokens per step, tokens of the profile pass) by the release's rule."""
    tier = rel.tier(gpu)
    if rel.chunks_long_context_only:  # vLLM V0: chunked only above 32,768
        chunk = 2048 if max_context > 32768 else max(max_context, 2048)
        return chunk, chunk
    if rel.prefills_whole_prompts:
        cap = tier.prefill_chunk_tokens if tier else 0
        return None, cap or max_context
    size = tier.prefill_chunk_tokens if tier else 2048
    return size, size


def _context(s: Scenario, rel: EngineRelease | None, gpu: GPUSpec, fitted: bool) -> int | None:
    """The default max context: transformers has none (the request's length); vLLM, SGLang
    and TensorRT-LLM take the model's (max_model_len = the config's max_position_embeddings;
    as a stated RoPE scaling stretches it by the engine's rule, core/serving/context_limit.py);
    Ollama its num_ctx by total VRAM, capped at the model's; an engine that fits it to memory
    (``fitted``: llama.cpp) None (core/serving/offload.py)."""
    w = s.workload
    if rel is None:
        return w.prompt_tokens + w.generated_tokens
    rule = s.profile.long_context
    own = derived_context(s.model, rule) if rule else s.model.max_context
    model = own or (w.prompt_tokens + w.generated_tokens)
    if rel.llama_cpp.context_tiers:
        gib = gpu.capacity_bytes / GiB
        return min(next(t for g, t in rel.llama_cpp.context_tiers if gib >= g), model)
    return None if fitted else model


def engine_settings(
    s: Scenario, gpu: GPUSpec, *, fitted_context: bool = False, ubatch_prefill: bool = False
) -> EngineSettings:
    """The settings of a validated inference scenario on ``gpu``. The memory rule
    (core/serving/rules) says what its engine does differently: ``fitted_context``, an unset
    context is fitted to memory; ``ubatch_prefill``, prompts run in the release's micro-batch
    (llama.cpp ``n_ubatch``) unless the scenario sets a chunk."""
    sv, prof = s.serving, s.profile
    rel = release(prof.releases, sv.engine_version) if prof.releases else None
    ctx = sv.max_context or _context(s, rel, gpu, fitted_context)
    chunk, profile_tokens = (None, 0) if rel is None else _chunk(rel, gpu, ctx or 0)
    if sv.prefill_chunk_tokens is not None:
        chunk = profile_tokens = sv.prefill_chunk_tokens
    if rel is not None and ubatch_prefill:
        chunk = sv.prefill_chunk_tokens or rel.llama_cpp.ubatch_tokens
    seqs = sv.max_sequences
    if seqs is None and rel is not None:
        tier = rel.tier(gpu)
        default = rel.max_sequences or (tier.max_sequences if tier else 0)
        seqs = min(default, profile_tokens) if default and profile_tokens else default or None
    w = s.workload
    host = sv.host_bandwidth_gb_per_s or (
        gpu.hbm_bandwidth_gb_per_s if gpu.unified_memory else HOST_BANDWIDTH_GB_PER_S
    )
    return EngineSettings(
        release=rel,
        memory_fraction=sv.memory_fraction
        if sv.memory_fraction is not None
        else (rel.memory_fraction if rel else None),
        max_context=ctx,
        max_sequences=seqs,
        prefill_chunk_tokens=chunk,
        kv_block_tokens=sv.kv_block_tokens or (rel.kv_block_tokens if rel else 1),
        cuda_graphs=sv.cuda_graphs if sv.cuda_graphs is not None else (rel.cuda_graphs if rel else False),
        gpu_layers=sv.gpu_layers,
        concurrency=sv.concurrency or w.batch_size,
        step=rel.step_cost(gpu) if rel else EAGER_STEP_COST,
        step_latency_seconds=sv.step_latency_seconds,
        host_bandwidth=host * 1e9,
        profile_tokens=profile_tokens,
    )
