"""Serving as the engine runs it: its memory (core/kv_pool.py, core/offload.py), whether it
starts, and the speed users see under the stated load (the report's ``serving`` block).

Speed: the engine's scheduler simulated step by step under ``serving.load``
(core/serving/scheduler.py, core/serving/load.py), each step from the step model
(core/speed/step.py: operations at achieved rates, kernel floors, collectives at alpha +
bytes / beta, the engine's host cost). ``serving.step_latency_seconds`` replaces the fixed
cost of every step.

- Time to first token: mean and 99th percentile over the run's requests; time per output
  token: the mean of (E2E - TTFT) / (output - 1); tokens/s per user: 1 / TPOT; tokens/s:
  output tokens of every replica over the run (as ``vllm bench serve`` reports them).
- ``running``: requests that may decode together (``max_sequences`` and the pool).
"""

from __future__ import annotations

import math

from ..memo import Memo
from ..memory.inference import attention_layers, inference_memory, kv_bytes_per_token_layer
from ..memory.overhead import scenario_overhead
from ..model.architecture import Arch
from ..model.params import ParamCounts
from ..model.result import Memory, Serving
from ..model.sharding import stage_params
from ..model.specs import GPUSpec, Scenario
from ..registry.engines import cuda_total_bytes
from .engine_settings import EngineSettings, engine_settings
from .kv_pool import EngineMemory, pool_memory
from .load import load_note, serving_load
from .offload import offload_memory


def _transformers(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec, st: EngineSettings
) -> EngineMemory:
    """transformers allocates as requests need it: the memory is core/inference.py's; the
    "pool" is the batch's cache, its capacity what the free memory would hold."""
    mem, peak = inference_memory(s, arch, counts)
    over = scenario_overhead(s, peak)
    mem = Memory(**{**mem.__dict__, "overhead": over, "total": peak + over})
    p = s.parallelism
    sp = stage_params(counts, arch, p.tensor, p.pipeline, p.expert, True)  # the heaviest stage
    per = kv_bytes_per_token_layer(arch, s.precision.kv_cache, p.tensor) * attention_layers(
        arch, sp, p.pipeline
    )
    free = max(0, gpu.capacity_bytes - mem.total)
    tokens = int((mem.kv_cache + free) // per) if per else 0
    ctx = st.max_context or 1
    return EngineMemory(mem, mem.kv_cache, tokens, tokens / ctx, True, None, ctx, None, per)


_MEMORY: Memo[tuple[EngineMemory, EngineSettings]] = Memo(1024)


def engine_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec
) -> tuple[EngineMemory, EngineSettings]:
    """The serving engine's memory on the heaviest GPU, by the profile's ``memory_rule``
    (kept per frozen scenario and GPU: sweeps, the advisor and the window ask again)."""
    return _MEMORY.get((id(s), id(gpu)), lambda: _engine_memory(s, arch, counts, gpu), (s, gpu))


def _engine_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec
) -> tuple[EngineMemory, EngineSettings]:
    st = engine_settings(s, gpu)
    rule = s.profile.memory_rule
    if rule == "transformers":
        return _transformers(s, arch, counts, gpu, st), st
    if rule == "layer_offload":
        return offload_memory(s, arch, counts, gpu, st), st
    return pool_memory(s, arch, counts, gpu, st), st


def required_bytes(s: Scenario, em: EngineMemory, st: EngineSettings, gpu: GPUSpec) -> int:
    """Per-GPU memory the engine needs to start and hold ``concurrency`` requests of prompt +
    output tokens (and one of max_context): its budget rule solved for the device size (the
    driver's reserve added back: engines see cudaMemGetInfo's total). The request of
    max_context is counted as the start-up check counts it (vLLM V1: windows paged)."""
    w, m = s.workload, em.memory
    users = st.concurrency * (w.prompt_tokens + w.generated_tokens)
    block = max(1, st.kv_block_tokens)
    kv = em.kv_bytes_per_token * math.ceil(max(em.max_context, users) / block) * block
    if st.release is not None and st.release.window_pages and em.request_bytes:
        kv = max(em.request_bytes, em.kv_bytes_per_token * math.ceil(users / block) * block)
    rule, f = s.profile.memory_rule, em.fraction or 1.0
    driver = gpu.capacity_bytes - cuda_total_bytes(gpu)
    if rule == "profiled_pool":  # fraction x total >= inside, and everything fits the device
        inside = em.reserved_bytes + kv  # (V1 also needs fraction x total free at start)
        free_check = em.outside_bytes / (1 - f) if f < 1 and em.outside_free_check else 0.0
        return int(max(inside / f, inside + em.outside_bytes, free_check) + driver)
    if rule == "static_pool":  # (total - outside) x fraction >= weights + pool
        return int((em.reserved_bytes + kv) / f + em.outside_bytes + driver)
    if rule == "free_pool":  # fraction x (total - outside - weights - activations) >= pool
        return int(em.reserved_bytes + kv / f + em.outside_bytes + driver)
    return int(m.total - m.kv_cache + kv)


def _running(s: Scenario, em: EngineMemory, st: EngineSettings) -> int:
    """Requests decoding together: the concurrency, within max_sequences and the pool."""
    w = s.workload
    per = w.prompt_tokens + w.generated_tokens
    fit = em.kv_capacity_tokens // per if per else st.concurrency
    limit = min(st.concurrency, em.max_sequences or st.concurrency, max(1, fit))
    return max(1, limit)


def serving_result(s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings) -> Serving:
    """The report's ``serving`` block of a validated inference scenario."""
    p = s.parallelism
    served = serving_load(s, gpu, em, st)
    step, run = served.step, served.run
    tps = p.data * run.tokens_per_second if em.starts else 0.0
    price = gpu.price_per_hour
    cost = price * p.gpus / 3600 / tps * 1e6 if price is not None and tps else None
    rel = st.release
    return Serving(
        engine=s.framework,
        engine_version=rel.version if rel else None,
        kv_pool_bytes=em.kv_pool_bytes,
        kv_capacity_tokens=em.kv_capacity_tokens,
        max_concurrency=em.max_concurrency,
        starts=em.starts,
        reason=em.reason,
        ttft_seconds=run.ttft,
        tpot_seconds=run.tpot,
        tokens_per_second_per_user=1 / run.tpot if run.tpot else 0.0,
        tokens_per_second=tps,
        host_memory_bytes=em.host_memory_bytes,
        cost_per_million_tokens=cost,
        concurrency=st.concurrency,
        running=_running(s, em, st),
        max_context=em.max_context,
        max_sequences=em.max_sequences,
        prefill_chunk_tokens=st.prefill_chunk_tokens,
        kv_block_tokens=st.kv_block_tokens,
        memory_fraction=st.memory_fraction,
        cuda_graphs=st.cuda_graphs,
        gpu_layers=em.gpu_layers,
        prefill_step_overhead_seconds=step.fixed,
        decode_step_overhead_seconds=step.fixed,
        kv_bytes_per_token=em.kv_bytes_per_token,
        required_bytes=required_bytes(s, em, st, gpu),
        load=s.serving.load or "steady",
        ttft_p99_seconds=run.ttft_p99,
        e2e_seconds=run.e2e,
        request_rate=s.serving.request_rate if s.serving.load == "rate" else None,
    )


def serving_notes(
    s: Scenario, arch: Arch, em: EngineMemory, st: EngineSettings, gpu: GPUSpec
) -> tuple[str, ...]:
    """The engine's settings and the step cost, for the assumptions, one phrase each."""
    rel = st.release
    if rel is None:
        return ()
    asked = s.serving.engine_version
    if asked is not None and asked != rel.version:  # a version between two documented ones
        out = [
            f"{s.profile.label} {asked}: the defaults of release {rel.version} ({rel.date}), "
            "the newest documented not newer"
        ]
    else:
        out = [f"{s.profile.label} {rel.version} defaults ({rel.date})"]
    if em.fraction is not None:
        out.append(f"memory fraction {em.fraction:g} of {cuda_total_bytes(gpu) / 2**30:,.2f} GiB")
    out.append(
        f"max context {em.max_context:,} tokens, "
        f"{em.max_sequences or 'engine-sized'} sequences, prefill chunk "
        f"{st.prefill_chunk_tokens or 'whole prompt'}, KV block {st.kv_block_tokens}"
    )
    out.append(load_note(s, gpu, em, st))
    return (*out, *em.notes)
