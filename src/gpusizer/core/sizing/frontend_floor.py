"""The first token a serving frontend delays whatever the GPUs: a floor no count of GPUs moves.

Ray Serve LLM before Ray PR 64534 (``serving.frontend`` "ray_serve_llm";
core/registry/serving_frontends.py, read at ray-project/ray
``python/ray/llm/_internal/serve/utils/batcher.py``) holds a stream's first token until its
batcher's first tick, ``MODEL_RESPONSE_BATCH_TIMEOUT_MS`` (50 ms) after the replica takes the
request, and its actor hops add 9.4 ms (ray-project/ray#59681: 64.8 ms to the first token through Ray
Serve against 16.9 ms from ``vllm serve`` on a 0.5B model). However fast the engine, a first
token then leaves at least ``hops + interval`` after the request (a token the engine yields at
``t < interval`` waits ``interval - t``; one past it waits half an interval more on the mean).
A first-token target under that floor is missed on any count of GPUs, and "more GPUs do not
close the gap" alone leaves the buyer looking at the GPUs; the clause names the field.
"""

from __future__ import annotations

from ..model.specs import Scenario
from ..serving.frontend import frontend_of


def frontend_floor(s: Scenario) -> float | None:
    """Seconds the scenario's frontend adds to a first token at the least (None: no frontend,
    or one that adds nothing)."""
    f = frontend_of(s)
    if f is None:
        return None
    floor = f.hops + (f.interval if f.first_tick else 0.0)
    return floor if floor > 0 else None


def frontend_floor_clause(s: Scenario) -> str | None:
    """``Ray Serve LLM (...) (serving.frontend) holds every first token at least 59 ms ...``
    where that floor reaches the stated ``targets.max_ttft_seconds`` (None otherwise)."""
    floor, ask = frontend_floor(s), s.targets.max_ttft_seconds
    f = frontend_of(s)
    if f is None or floor is None or ask is None or floor < ask:
        return None
    return (
        f"{f.label} (serving.frontend) holds every first token at least {floor * 1e3:,.0f} ms "
        f"(its actor hops and stream batcher's first tick), at or past the {ask:,.2f} s asked "
        "on any count of GPUs; serving.frontend null (the engine's own API server) takes it off"
    )
