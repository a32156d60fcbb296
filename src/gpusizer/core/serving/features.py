"""The serving block's deployment features applied to the engine's memory and to the simulated
run (core/serving/prefix.py, core/serving/speculative.py). A scenario without them gets back
exactly what it gave: every function returns its inputs unchanged."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..model.architecture import Arch, resolve
from ..model.params import ParamCounts, count_parameters
from ..model.result import EngineMemory
from ..model.serving_features import SpeculativeSpec
from ..model.specs import GPUSpec, Scenario
from ..registry.sglang_reserve import reserve_step
from ..speed.step import EngineCosts, StepModel
from ..speed.step_model import step_model
from .eagle_extra import head_extra
from .engine_settings import EngineSettings
from .inverse import kv_moved, outside
from .kv_offload import load_seconds, offload_fields, offload_note
from .lora_serving import lora_bytes, lora_fields, with_lora
from .mtp import mtp_note
from .mtp_depth import chain_tokens, depth_note, reused
from .multi_turn import turn_fields, turn_note, with_turns
from .prefix import cached_tokens, prefix_memory, prefix_of, shared_tokens, users_held, with_prefix
from .rules import memory_rule
from .rules.pool import is_request_refusal, request_refusal
from .scheduler_types import Engine, Workload
from .spec_tree import tree_note, tree_of
from .speculative import (
    SpeculativeStep,
    draft_layers,
    draft_memory,
    expected_tokens,
    method,
    settings,
    speculative_of,
)


def featured_memory(
    s: Scenario, arch: Arch, counts: ParamCounts, em: EngineMemory, st: EngineSettings
) -> EngineMemory:
    """The engine's memory with the proposer's weights and KV and the shared prefix."""
    em = _draft(s, arch, counts, em, st)
    caps = memory_rule(s.profile).caps_context
    em = reserve(em, lora_bytes(s), 0.0, "the LoRA adapters' slots", caps=caps)
    return prefix_memory(s, em, max(1, st.kv_block_tokens), st.concurrency)


def _draft(
    s: Scenario, arch: Arch, counts: ParamCounts, em: EngineMemory, st: EngineSettings
) -> EngineMemory:
    """The proposer's weights and KV (core/serving/speculative.py)."""
    dm = draft_memory(s, arch, counts)
    if _draft_after_pool(s, st):
        return after_pool(em, dm.weight_bytes, dm.kv_bytes_per_token)
    what = "the speculative proposer's weights"
    rule = memory_rule(s.profile)
    share = em.fraction if em.fraction and rule.fraction_after_weights else 1.0
    return reserve(em, dm.weight_bytes, dm.kv_bytes_per_token, what, share, rule.caps_context)


def _draft_after_pool(s: Scenario, st: EngineSettings) -> bool:
    """SGLang to 0.5.13 loads the draft after sizing the target's pool
    (core/registry/sglang_reserve.py ``draft_after_pool``)."""
    rel = st.release
    if rel is None or rel.sglang is None:
        return False
    return reserve_step(s.serving.engine_version or rel.version).draft_after_pool


def after_pool(em: EngineMemory, weight_bytes: float, kv_per_token: float) -> EngineMemory:
    """The draft's weights and its own KV pool of the target's tokens, allocated after the
    target's pool (SGLang to 0.5.13): the pool and its tokens are as without the draft; the GPU
    holds both beside them, outside the fraction, and the smallest GPU that starts needs them
    too (its draft pool at least the load's tokens)."""
    if not weight_bytes and not kv_per_token:
        return em
    m, w = em.memory, int(weight_bytes)
    kv = int(em.kv_capacity_tokens * kv_per_token)
    mem = replace(m, weights=m.weights + w, kv_cache=m.kv_cache + kv, total=m.total + w + kv)
    load_kv = em.load_bytes * kv_per_token / em.kv_bytes_per_token if em.kv_bytes_per_token else 0.0
    return outside(replace(em, memory=mem, outside_bytes=em.outside_bytes + w + kv), w + load_kv)


def reserve(
    em: EngineMemory,
    weight_bytes: float,
    kv_per_token: float,
    what: str,
    share: float = 1.0,
    caps: bool = False,
) -> EngineMemory:
    """Weights loaded beside the model's (and KV bytes each token adds): a pool engine loads
    them before it profiles, so its pool shrinks by ``share`` of them (1: its budget holds
    them, vLLM ``determine_available_memory``; the fraction where the pool is that fraction of
    the memory the weights leave, TensorRT-LLM ``_torch/pyexecutor/_util.py`` 1.0
    ``_cal_max_tokens``) and the inverse's pool term by what the pool gives up over the
    fraction (TensorRT-LLM: the weights' own bytes), its start-up check re-run on that pool
    (``caps``: the engine caps a request to its pool instead, SGLang); an on-demand engine
    grows by both."""
    if not weight_bytes and not kv_per_token:
        return em
    m, w = em.memory, int(weight_bytes)
    per = em.kv_bytes_per_token + kv_per_token
    load_kv = em.load_bytes * kv_per_token / em.kv_bytes_per_token if em.kv_bytes_per_token else 0.0
    if em.fraction is None:  # on demand: the GPU holds the draft beside the target
        kv = int(load_kv)
        mem = replace(m, weights=m.weights + w, kv_cache=m.kv_cache + kv, total=m.total + w + kv)
        return replace(
            em,
            memory=mem,
            kv_bytes_per_token=per,
            load_bytes=em.load_bytes + load_kv,
            required_bytes=em.required_bytes + w + kv if em.required_bytes else 0,
        )
    give = w if share == 1.0 else int(w * share)  # the pool's bytes the weights take
    pool = max(0, em.kv_pool_bytes - give)
    shrink = pool / em.kv_pool_bytes * em.kv_bytes_per_token / per if em.kv_pool_bytes else 0.0
    # what the pool cannot give up is more memory: the peak holds the weights loaded (before,
    # 2,500 GiB of adapter slots showed under a 73 GiB peak)
    kv_left = max(0, m.kv_cache - give)
    mem = replace(m, weights=m.weights + w, kv_cache=kv_left, total=m.total + w - (m.kv_cache - kv_left))
    more_request = em.request_bytes * kv_per_token / em.kv_bytes_per_token if em.kv_bytes_per_token else 0.0
    em = kv_moved(em, give, more_request, load_kv)  # the pool's term; the floor stays (inverse.py)
    starts, reason = _start_check(em, pool, what, caps)
    return replace(
        em,
        memory=mem,
        kv_pool_bytes=pool,
        kv_capacity_tokens=int(em.kv_capacity_tokens * shrink),
        max_concurrency=em.max_concurrency * shrink,
        kv_bytes_per_token=per,
        starts=starts,
        reason=reason,
        holds_load=em.holds_load and em.load_bytes <= pool and (not caps or em.request_bytes <= pool),
    )


def _start_check(em: EngineMemory, pool: int, what: str, caps: bool) -> tuple[bool, str | None]:
    """The engine's start-up check on the pool the weights leave: refused when it is empty or
    (an engine that refuses rather than caps a request, vLLM ``check_enough_kv_cache_memory``)
    one request of ``max_context`` needs more than it, the proposer's KV included. Where the
    rule already refused on that check its words are re-said on this pool, the one the engine
    has once the weights are loaded (the report's KV pool); another check's refusal stands."""
    if not em.starts and not is_request_refusal(em.reason):
        return em.starts, em.reason
    if pool <= 0:
        return False, f"{what} leave no memory for the KV cache"
    if not caps and em.request_bytes > pool:
        return False, request_refusal(em.max_context, em.request_bytes, pool) + f" once {what} are loaded"
    return em.starts, em.reason


def featured_run(
    s: Scenario,
    gpu: GPUSpec,
    costs: EngineCosts,
    step: StepModel,
    eng: Engine,
    wl: Workload,
    kv_bytes_per_token: float = 0.0,
) -> tuple[StepModel, Engine, Workload]:
    """The run's step model, engine and workload with speculative decodes, LoRA slots, the
    prefix and its KV loaded from the offload tier (a wait of each request's, like the API
    server's: core/serving/scheduler.py ``client_view``)."""
    wait = load_seconds(s, gpu, kv_bytes_per_token, eng.block)
    if wait:
        eng = replace(eng, front_end=eng.front_end + wait)
    step = with_lora(s, step)  # under the verify: the target's tokens pass the adapters
    step, eng, wl = with_turns(s, gpu, step, eng, wl, kv_bytes_per_token)  # multi-turn (null: as is)
    return with_prefix(s, with_speculative(s, gpu, costs, step), eng, wl)


def with_speculative(s: Scenario, gpu: GPUSpec, costs: EngineCosts, step: StepModel) -> StepModel:
    """The step model with speculative decodes (unchanged without ``serving.speculative``)."""
    spec = speculative_of(s)
    if spec is None:
        return step
    k, a = settings(spec)
    draft = None
    if spec.draft_model is not None:
        draft = step_model(s.model_copy(update={"model": spec.draft_model}), gpu, costs)
    layers, vocab = draft_layers(spec)
    per_gpu = vocab / s.parallelism.tensor if vocab else step.shape.vocab
    tree = tree_of(spec, k)  # SGLang's draft tree; the chain's when unset
    extra = head_extra(spec.method, resolve(s.model), s.parallelism.tensor)  # EAGLE's own projections
    return SpeculativeStep(step, k, a, draft, layers, per_gpu, tokens_per_step(s, spec), tree, extra)


def tokens_per_step(s: Scenario, spec: SpeculativeSpec) -> float:
    """Tokens a speculative step emits per request: Leviathan et al.'s, or the chain's where a
    reused MTP layer drafts some positions (core/serving/mtp_depth.py)."""
    k, a = settings(spec)
    n = reused(s.model, spec, k)
    return chain_tokens(a, k, n) if n else expected_tokens(a, k)


def feature_fields(s: Scenario, em: EngineMemory, st: EngineSettings, gpu: GPUSpec) -> dict[str, Any]:
    """The report's ``serving`` fields of the features (empty: none set, the defaults apply)."""
    out: dict[str, Any] = {}
    block = max(1, st.kv_block_tokens)
    if prefix_of(s) is not None:
        out.update(
            prefix_cached_tokens=cached_tokens(s, block),
            prefix_shared_tokens=shared_tokens(s, block),
            prefix_users_held=users_held(s, em, block),
        )
    spec = speculative_of(s)
    if spec is not None:
        k, a = settings(spec)
        out.update(
            speculative_method=spec.method,
            speculative_tokens=k,
            speculative_acceptance_rate=a,
            speculative_tokens_per_step=tokens_per_step(s, spec),
            draft_weight_bytes=int(draft_memory(s, resolve(s.model), count_parameters(s.model)).weight_bytes),
        )
    out.update(lora_fields(s), **offload_fields(s, gpu, em.kv_bytes_per_token, block))
    return {**out, **turn_fields(s, gpu, em.kv_capacity_tokens, st.concurrency, em.kv_bytes_per_token, block)}


def feature_notes(s: Scenario, st: EngineSettings, em: EngineMemory | None = None) -> tuple[str, ...]:
    """The assumptions the features add: the acceptance rate's origin and the cached prefix
    (the multi-turn histories' where ``serving.prefix.turns`` is set, priced on ``em``'s pool)."""
    out = []
    spec = speculative_of(s)
    if spec is not None:
        k, a = settings(spec)
        origin = "as set" if spec.acceptance_rate is not None else method(spec).source
        out.append(
            f"speculative decoding ({spec.method}): {k} draft tokens a step, acceptance {a:g} ({origin}), "
            f"{tokens_per_step(s, spec):.2f} tokens a step (Leviathan et al. 2023)"
        )
        table = s.profile.features(s.serving.engine_version)
        engine = table.engine if table is not None else "SGLang"
        notes = [mtp_note(s, spec.method), depth_note(s.model, spec, k), tree_note(spec, k, engine)]
        out += filter(None, notes)
    block = max(1, st.kv_block_tokens)
    turns = em and turn_note(s, em.kv_capacity_tokens, st.concurrency, em.kv_bytes_per_token, block)
    if turns:
        out.append(turns)
    elif prefix_of(s) is not None:
        out.append(
            f"prefix caching: {cached_tokens(s, block):,} prompt tokens a request found cached (whole "
            f"{block}-token blocks, the last prompt token recomputed), the shared blocks held once"
        )
    tier = em and offload_note(s, em.kv_bytes_per_token, block)  # a tier with no stated reuse
    if tier:
        out.append(tier)
    return tuple(out)
