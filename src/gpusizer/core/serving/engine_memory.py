"""Serving as the engine runs it: its memory (by the framework's rule, core/serving/rules),
whether it starts, and the speed users see under the stated load (the report's ``serving``
block).

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

from dataclasses import replace

from ..memo import Memo
from ..memory.kv_cap import capped_tokens, kv_cap, prefill_step
from ..model.architecture import Arch, resolve
from ..model.params import ParamCounts
from ..model.result import EngineMemory, Estimate, PoolLine, Serving
from ..model.specs import GPUSpec, Scenario
from ..registry.attention_backends import attention_backend_note
from ..registry.engines import EngineRelease, cuda_total_bytes
from .a2a_memory import a2a_buffers
from .disaggregated import disaggregated_fields
from .engine_settings import EngineSettings
from .expert_in_tensor import tensor_view
from .features import feature_fields, feature_notes, featured_memory
from .load import load_note, serving_load
from .prefix import prefix_of, users_held
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
    """Every figure of the answer from one GPU as the engine lays it out. With the routed
    experts expert-parallel inside TP (vLLM ``--enable-expert-parallel``) each worker holds
    ``experts / EP`` whole experts (vllm/model_executor/layers/fused_moe/config.py
    ``FusedMoEParallelConfig.make``), so the rule runs on ``tensor_view`` (expert_in_tensor.py;
    the view of a view is itself): read raw, the experts were divided by TP and by EP again.
    vLLM V1 computes the figures on that worker: ``gpu_worker.py determine_available_memory``
    prints "Available KV cache memory" = fraction x total - (weights + peak + non-torch), and
    ``kv_cache_utils.py`` its tokens and concurrency from those same bytes (engine/core.py
    ``_initialize_kv_caches``, v0.10.x)."""
    s = tensor_view(s)
    rule = memory_rule(s.profile)
    st = rule.settings(s, gpu)
    em, st = rule.fit(s, arch, counts, gpu, st)
    return featured_memory(s, arch, counts, em, st), st  # prefix, speculative (null: as is)


def required_bytes(s: Scenario, em: EngineMemory, st: EngineSettings, gpu: GPUSpec) -> int:
    """Per-GPU memory the engine needs to start and hold ``concurrency`` requests of prompt +
    output tokens (and one of max_context): its rule's inverse (core/serving/rules), which
    ``engine_memory`` already solved."""
    return em.required_bytes


def engine_pool_line(s: Scenario, gpu: GPUSpec, em: EngineMemory) -> PoolLine:
    """What the memory chart draws over the engine's bar, as its memory rule says (the
    estimate keeps it: ``Estimate.pool``)."""
    return memory_rule(s.profile).pool_line(gpu, em)


def pool_line(est: Estimate) -> PoolLine | None:
    """What the memory chart draws over a serving estimate's bar, as its rule said when the
    estimate was made (None for training)."""
    return est.pool  # the estimate keeps it (core/pipeline/estimate.py)


def _running(s: Scenario, em: EngineMemory, st: EngineSettings) -> int:
    """Requests decoding together: the concurrency, within max_sequences and the pool."""
    w = s.workload
    per = w.prompt_tokens + w.generated_tokens
    fit = em.kv_capacity_tokens // per if per else st.concurrency
    if prefix_of(s) is not None:  # the shared prefix is held once
        fit = users_held(s, em, max(1, st.kv_block_tokens))
    limit = min(st.concurrency, em.max_sequences or st.concurrency, max(1, fit))
    return max(1, limit)


def serving_result(
    s: Scenario, gpu: GPUSpec, em: EngineMemory, st: EngineSettings, whole: Scenario | None = None
) -> Serving:
    """The report's ``serving`` block of a validated inference scenario (``s`` one attention-DP
    rank's view of ``whole``, the scenario as set: core/serving/attention_dp.py)."""
    p = s.parallelism
    served = serving_load(s, gpu, em, st)
    step, run = served.step, served.run
    need = s.workload.prompt_tokens + s.workload.generated_tokens
    # An engine refuses a request longer than its context (vLLM: a 400 "This model's maximum
    # context length is ..."; llama.cpp: "the request exceeds the available context size"):
    # no speed, no cost to quote.
    serves = em.starts and need <= em.max_context
    if not serves:
        run = replace(run, ttft=0.0, ttft_p99=0.0, tpot=0.0, e2e=0.0, tokens_per_second=0.0)
    tps = p.data * run.tokens_per_second if serves else 0.0
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
        required_bytes=em.required_bytes,
        load=s.serving.load or "steady",
        ttft_p99_seconds=run.ttft_p99,
        e2e_seconds=run.e2e,
        request_rate=s.serving.arrival_rate,
        simulation_note=served.note,
        **feature_fields(s, em, st, gpu),
        **disaggregated_fields(s, gpu, em, st, whole),
        kv_tokens_per_user=_capped_user(s),
        moe_a2a_buffer_bytes=a2a_buffers(s).total,
    )


def _capped_user(s: Scenario) -> int:
    """Tokens one user's cache holds under ``serving.max_kv_size`` (0: not capped)."""
    cap = kv_cap(s, resolve(s.model))
    if cap is None:
        return 0
    w = s.workload
    return int(capped_tokens(w.prompt_tokens + w.generated_tokens, w.prompt_tokens, cap, prefill_step(s)))


def serving_notes(
    s: Scenario, arch: Arch, em: EngineMemory, st: EngineSettings, gpu: GPUSpec
) -> tuple[str, ...]:
    """The engine's settings and the load the speed is for, for the assumptions, one phrase
    each."""
    rel = st.release
    if rel is None:
        return (load_note(s, gpu, em, st), *feature_notes(s, st, em))
    asked = s.serving.engine_version
    if asked is not None and asked != rel.version:  # a version between two documented ones
        out = [
            f"{s.profile.label} {asked}: the defaults of release {rel.version} ({rel.date}), "
            "the newest documented not newer"
        ]
    else:
        out = [f"{s.profile.label} {rel.version} defaults ({rel.date})"]
    if em.fraction is not None:
        base = em.fraction_of or cuda_total_bytes(gpu)
        what = "free at start" if em.fraction_of and em.fraction_of < cuda_total_bytes(gpu) else "in all"
        out.append(f"memory fraction {em.fraction:g} of {base / 2**30:,.2f} GiB ({what})")
    out.append(
        f"max context {em.max_context:,} tokens, "
        f"{em.max_sequences or 'engine-sized'} sequences, prefill chunk "
        f"{st.prefill_chunk_tokens or 'whole prompt'}, KV block {st.kv_block_tokens}"
    )
    if rel.vllm.sampler_bytes_per_logit:
        out.append(sampler_note(rel, s.serving.flashinfer_sampler))
    if s.serving.async_output is False:  # validated: a V0 release (pipeline/validate.py)
        fixed, per_seq = rel.vllm.serial_output
        out.append(
            f"async output processing off (--disable-async-output-proc): each step waits "
            f"{fixed * 1e3:.3f} ms + {per_seq * 1e3:.3f} ms a sequence for the last one's outputs"
        )
    out.append(load_note(s, gpu, em, st))
    backend = attention_backend_note(s.serving.attention_backend)  # registry/attention_backends.py
    return (*out, *((backend,) if backend else ()), *em.notes, *feature_notes(s, st, em))


def sampler_note(rel: EngineRelease, flashinfer: bool | None) -> str:
    """Which top-k/top-p path the profile run's sampler peak is for, and how to say the other."""
    knobs = rel.vllm
    fi = knobs.uses_flashinfer_sampler(flashinfer)
    how = "as set" if flashinfer is not None else "this release's default"
    if fi:
        return (
            f"profile-run sampler: FlashInfer top-k/top-p, {knobs.flashinfer_sampler_bytes_per_logit:g} B a "
            f"logit ({how}; serving.flashinfer_sampler false for VLLM_USE_FLASHINFER_SAMPLER=0)"
        )
    other = (
        "; serving.flashinfer_sampler true where the log says 'Using FlashInfer for top-p & top-k sampling.'"
        if knobs.flashinfer_sampler_bytes_per_logit
        else ""
    )
    return (
        f"profile-run sampler: {knobs.sampler_bytes_per_logit:g} B a logit without FlashInfer ({how}{other})"
    )
