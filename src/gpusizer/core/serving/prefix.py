"""Automatic prefix caching (``serving.prefix``): the first ``shared_tokens`` of every prompt
are the same, and a request finds them cached with probability ``hit_rate``.

- Prefill: a hit skips the cached tokens; the rest of the prompt is computed after them
  (attention still reads the cached keys and values). Only whole blocks are cached, and the last
  prompt token is always recomputed, for its logits (vLLM ``v1/core/kv_cache_manager.py``
  ``get_computed_blocks``: ``max_cache_hit_length = request.num_tokens - 1``, hits counted in
  full blocks; SGLang's radix tree matches per page). The run's mean request skips
  ``hit_rate`` x the cached blocks' tokens.
- Memory: the cached blocks are shared by every running request (reference-counted pages,
  vLLM ``KVCacheBlock.ref_cnt``; SGLang RadixAttention, Zheng et al. 2024 arXiv 2312.07104 §3),
  so the pool holds them once and each request only its own tokens: more requests fit.
- Decode: unchanged; each request still attends over the whole context.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import ScenarioError
from ..model.result import EngineMemory
from ..model.serving_features import PrefixSpec
from ..model.specs import Scenario
from ..speed.step import StepModel
from ..speed.step_wrap import StepWrapper
from .inverse import moved, need_cut
from .scheduler_types import Engine, Workload


def prefix_of(s: Scenario) -> PrefixSpec | None:
    """The scenario's prefix caching when it is on (a serving scenario with shared tokens, or
    multi-turn chats: core/serving/multi_turn.py, where nothing is shared across requests)."""
    p = s.serving.prefix
    if p is None or (p.shared_tokens is None and p.turns is None) or s.workload.trains:
        return None
    return p


def check_prefix(s: Scenario) -> None:
    """The shared prefix is part of the prompt (beside ``turns`` it is the system prompt before
    the turns' tokens: core/serving/multi_turn.py ``check_turns``)."""
    p = prefix_of(s)
    if p is None or p.shared_tokens is None or p.turns is not None:
        return
    if p.shared_tokens > s.workload.prompt_tokens:
        raise ScenarioError(
            "serving.prefix.shared_tokens",
            f"must be at most workload.prompt_tokens ({s.workload.prompt_tokens:,}); got {p.shared_tokens:,}",
        )


def shared_tokens(s: Scenario, block: int) -> int:
    """Tokens of the prefix held in cached blocks (whole blocks, short of the prompt's last
    token): what one copy shares with every request. Beside ``turns`` the system prompt, which
    every turn's history and new tokens follow."""
    p = prefix_of(s)
    if p is None or p.shared_tokens is None:
        return 0
    b = max(1, block)
    most = p.shared_tokens if p.turns is not None else min(p.shared_tokens, s.workload.prompt_tokens - 1)
    return max(0, most) // b * b


def cached_tokens(s: Scenario, block: int) -> int:
    """Prompt tokens the mean request skips: the hit rate of the shared blocks' tokens (beside
    ``turns`` all of them: every turn touches the system prompt, and ``hit_rate`` is the
    histories', core/serving/multi_turn.py)."""
    p = prefix_of(s)
    if p is None:
        return 0
    hit = 1.0 if p.hit_rate is None or p.turns is not None else p.hit_rate
    return round(hit * shared_tokens(s, block))


class PrefixStep(StepWrapper):
    """The target's step model for requests whose first ``cached`` tokens are in the cache: the
    scheduler counts a request's own tokens, the attention spans the cached ones too."""

    def __init__(self, base: StepModel, cached: int) -> None:
        super().__init__(base)
        self.cached = cached

    def positions(self, ctx: float) -> float:
        return self._base.positions(ctx + self.cached)

    def chunk(self, start: float, tokens: float) -> tuple[float, float]:
        return self._base.chunk(start + self.cached, tokens)


def with_prefix(
    s: Scenario, step: StepModel, eng: Engine, wl: Workload
) -> tuple[StepModel, Engine, Workload]:
    """The run's step, engine and workload with the prefix cached: prompts shortened by the
    cached tokens (computed after them) and the pool less one shared copy. Multi-turn chats:
    as given (core/serving/multi_turn.py ``with_turns`` skips the system prompt with the history)."""
    p = prefix_of(s)
    cached = cached_tokens(s, eng.block) if p is not None and p.turns is None else 0
    if not cached:
        return step, eng, wl
    shared = shared_tokens(s, eng.block)
    eng = replace(eng, kv_tokens=max(float(eng.block), eng.kv_tokens - shared))
    wl = replace(wl, prompt=max(1, wl.prompt - cached))
    return PrefixStep(step, cached), eng, wl


def prefix_memory(s: Scenario, em: EngineMemory, block: int, concurrency: int) -> EngineMemory:
    """The engine's memory with the load's shared blocks held once (module docstring)."""
    cached = cached_tokens(s, block)
    if not cached or concurrency <= 1:
        return em
    saved = (concurrency - 1) * cached * em.kv_bytes_per_token
    load = max(0.0, em.load_bytes - saved)
    # the pool's term, by what its need loses (none where a max_context request sets it)
    em = moved(em, -int(need_cut(em, saved) / (em.fraction or 1.0)))
    return replace(em, load_bytes=load, holds_load=em.holds_load or load <= em.kv_pool_bytes)


def users_held(s: Scenario, em: EngineMemory, block: int) -> int:
    """Requests of prompt + output tokens the pool holds with the prefix shared."""
    w = s.workload
    per = w.prompt_tokens + w.generated_tokens - cached_tokens(s, block)
    room = em.kv_capacity_tokens - shared_tokens(s, block)
    return max(0, room // per) if per > 0 else 0
