"""Serving as the engine runs it: its memory (by the framework's rule, core/serving/rules),
whether it starts, and the speed users see at a concurrency (the report's ``serving`` block).

Speed is the roofline (core/roofline.py) plus what it has no term for (core/engines.py
``StepCost``, an explicit assumption the report shows): a fixed cost per engine step, per layer
for prefill steps and eager decode, once for a graph-replayed decode step, and a latency per
tensor-parallel all-reduce. ``serving.step_latency_seconds`` replaces it for every step.

- Requests: ``concurrency`` users arrive together; the engine runs ``running`` of them at once
  (``max_sequences``, and as many prompt + output tokens as the KV pool holds); the rest wait
  for a slot (waves).
- Time to first token: the prompts of the running requests are prefilled in chunks of
  ``prefill_chunk_tokens`` per step (vLLM ``max_num_batched_tokens``, SGLang
  ``chunked_prefill_size``, llama.cpp ``n_ubatch``; whole prompts where the engine has no
  chunking); each step re-reads the weights and pays the step cost; the mean request waits for
  half the chunks of the batch before its own (docs/evidence/serving.md §7.3).
- Time per output token: one decode step of ``running`` sequences at the mean context (prompt
  + half the output); layers in system RAM (llama.cpp) are read at the host's bandwidth, and
  for prefill their weights cross PCIe to the GPU once per step (ggml-cuda offloads large
  batches of CPU-layer matmuls).
- Tokens/s per user: 1 / TPOT. Tokens/s: output tokens of every replica over the whole request
  time, prefill included (as serving benchmarks report "output token throughput").
"""

from __future__ import annotations

import math

from ..memo import Memo
from ..model.architecture import Arch, resolve
from ..model.params import ParamCounts, count_parameters
from ..model.result import Estimate, Serving
from ..model.specs import GPUSpec, Scenario
from ..registry.engines import cuda_total_bytes
from ..speed.roofline import RooflineModel
from .engine_result import EngineMemory, PoolLine
from .engine_settings import EngineSettings
from .rules import memory_rule

_MEMORY: Memo[tuple[EngineMemory, EngineSettings]] = Memo(1024)


def engine_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec
) -> tuple[EngineMemory, EngineSettings]:
    """The serving engine's memory on the heaviest GPU, by the framework's memory rule
    (core/serving/rules; kept per frozen scenario and GPU: sweeps, the advisor and the window
    ask again)."""
    return _MEMORY.get((id(s), id(gpu)), lambda: _engine_memory(s, arch, counts, gpu), (s, gpu))


def _engine_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, gpu: GPUSpec
) -> tuple[EngineMemory, EngineSettings]:
    rule = memory_rule(s.profile)
    st = rule.settings(s, gpu)
    return rule.memory(s, arch, counts, gpu, st), st


def required_bytes(s: Scenario, em: EngineMemory, st: EngineSettings, gpu: GPUSpec) -> int:
    """Per-GPU memory the engine needs to start and hold ``concurrency`` requests of prompt +
    output tokens (and one of max_context): its rule's inverse (core/serving/rules), which
    ``engine_memory`` already solved."""
    return em.required_bytes


def pool_line(est: Estimate) -> PoolLine | None:
    """What the memory chart draws over a serving estimate's bar, as its rule says (None for
    training)."""
    s = est.scenario
    if est.serving is None or s.workload.is_training:
        return None
    em, _ = engine_memory(s, resolve(s.model), count_parameters(s.model), est.gpu)
    return memory_rule(s.profile).pool_line(est, em)


def _overheads(s: Scenario, arch: Arch, st: EngineSettings) -> tuple[float, float]:
    """(prefill step, decode step) fixed costs, seconds (core/engines.py StepCost)."""
    if st.step_latency_seconds is not None:
        return st.step_latency_seconds, st.step_latency_seconds
    c, tp = st.step, s.parallelism.tensor
    reduce = 2 * arch.layers * c.allreduce if tp > 1 else 0.0
    layers = c.layer * arch.layers
    return layers + reduce, (c.decode if st.cuda_graphs else layers) + reduce


def _running(s: Scenario, em: EngineMemory, st: EngineSettings) -> int:
    """Requests decoding together: the concurrency, within max_sequences and the pool."""
    w = s.workload
    per = w.prompt_tokens + w.generated_tokens
    fit = em.kv_capacity_tokens // per if per else st.concurrency
    limit = min(st.concurrency, em.max_sequences or st.concurrency, max(1, fit))
    return max(1, limit)


def _prefill(
    s: Scenario,
    gpu: GPUSpec,
    model: RooflineModel,
    em: EngineMemory,
    st: EngineSettings,
    running: int,
    fixed: float,
    share: float,
) -> float:
    """Mean time to first token of ``running`` requests arriving together, seconds."""
    prompt = s.workload.prompt_tokens
    tokens, chunk = running * prompt, st.prefill_chunk_tokens
    steps = 1 if not chunk else max(1, math.ceil(tokens / chunk))
    roof = model.prefill_seconds(running, prompt)  # reads the weights once already
    if steps > 1:  # every chunk reads them again
        roof = max(roof, steps * model.decode_seconds(1, 1))
    roof *= share
    pcie = 0.0
    if em.host_read_bytes and not gpu.unified_memory:
        link = max(1.0, gpu.interconnect_gb_per_s * 1e9 * model.interconnect_efficiency)
        pcie = steps * em.host_read_bytes / link
    total = roof + pcie + steps * fixed
    if steps == 1:
        return total
    mean = 1.0 if not chunk else prompt * (running + 1) / 2 / chunk + 0.5
    return total * min(1.0, max(1.0 / steps, mean / steps))


def serving_result(
    s: Scenario, gpu: GPUSpec, arch: Arch, model: RooflineModel, em: EngineMemory, st: EngineSettings
) -> Serving:
    """The report's ``serving`` block of a validated inference scenario."""
    w, p = s.workload, s.parallelism
    pre_fixed, dec_fixed = _overheads(s, arch, st)
    running = _running(s, em, st)
    gpus_weights = em.memory.weights * p.tensor * p.pipeline
    share = 1.0 - em.host_read_bytes / (em.host_read_bytes + gpus_weights) if (em.host_read_bytes) else 1.0
    ttft = _prefill(s, gpu, model, em, st, running, pre_fixed, share)
    host = em.host_read_bytes / (st.host_bandwidth * model.bandwidth_efficiency)
    ctx = w.prompt_tokens + w.generated_tokens / 2
    tpot = model.decode_seconds(running, ctx) * share + host + dec_fixed
    waves = math.ceil(st.concurrency / running)
    request = ttft + w.generated_tokens * tpot
    ttft_mean = ttft + (waves - 1) / 2 * request
    tps = p.data * running * w.generated_tokens / request if request and em.starts else 0.0
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
        ttft_seconds=ttft_mean,
        tpot_seconds=tpot,
        tokens_per_second_per_user=1 / tpot if tpot else 0.0,
        tokens_per_second=tps,
        host_memory_bytes=em.host_memory_bytes,
        cost_per_million_tokens=cost,
        concurrency=st.concurrency,
        running=running,
        max_context=em.max_context,
        max_sequences=em.max_sequences,
        prefill_chunk_tokens=st.prefill_chunk_tokens,
        kv_block_tokens=st.kv_block_tokens,
        memory_fraction=st.memory_fraction,
        cuda_graphs=st.cuda_graphs,
        gpu_layers=em.gpu_layers,
        prefill_step_overhead_seconds=pre_fixed,
        decode_step_overhead_seconds=dec_fixed,
        kv_bytes_per_token=em.kv_bytes_per_token,
        required_bytes=em.required_bytes,
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
    pre, dec = _overheads(s, arch, st)
    origin = (
        "serving.step_latency_seconds"
        if st.step_latency_seconds is not None
        else (f"{s.profile.label} on a {gpu.category or 'datacenter'} GPU")
    )
    out.append(f"fixed cost per step {pre * 1e3:.2f} ms prefill, {dec * 1e3:.2f} ms decode ({origin})")
    return (*out, *em.notes)
