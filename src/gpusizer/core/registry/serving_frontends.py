"""The serving framework in front of the engine's API layer (``serving.frontend``): a registry,
one spec per frontend owning what it adds to a request's first token beyond the engine's own
API server (``StepCost.front_end``, already priced: the frontend runs the engine's OpenAI layer
in-process, so nothing here is counted twice). Null: nothing added, as before.

Ray Serve LLM (``ray.serve.llm`` ``build_openai_app`` / ``build_pd_openai_app``), read at the
source (ray-project/ray ``python/ray/llm/_internal/serve/``):

- The path: Serve's HTTP proxy actor (uvicorn) -> the ingress deployment (``OpenAiIngress``) ->
  an ``LLMServer`` replica, each a Ray actor call, the stream coming back the same way; under
  P/D the decode server first sends the prefill server a copy clamped to one non-streaming token
  (``engines/common/kv_transfer/base.py`` ``clamp_request_to_single_token``: ``max_tokens`` 1,
  ``stream`` False) and then runs the request on its own engine. ``LLMServer`` wraps the engine's
  vLLM ``OpenAIServing*`` in-process (``llm_server.py`` ``LLMServer._run_request``).
- The stream batcher: ``_run_request`` wraps a streaming chat or completion response in
  ``utils/batcher.py`` ``Batcher`` at ``MODEL_RESPONSE_BATCH_TIMEOUT_MS`` (50 ms by default since
  ray-project/ray PR 50786, 2025-02, "50ms seems to be performing the best"; overridable by
  ``experimental_configs["stream_batching_interval_ms"]``). Until PR 64534 (2026-07) its
  ``stream()`` waited out the whole interval before its first drain, then drained every
  interval: the first token leaves at the first tick after the engine yields it (ray issue
  59681: "the first token of every streaming request sits in the queue until the first timer
  tick"). A non-streaming response (the P/D prefill call) is not batched.
- Measured (ray-project/ray#59681 and PR 64534, 2026-07-04: ray 2.56.0, vLLM 0.22.0, one replica on one
  RTX 5050 host over loopback, Qwen2.5-0.5B-Instruct, streaming chat, one user): first token
  p50 16.9 ms with ``vllm serve``, 64.8 ms through Ray Serve LLM by default, 26.3 ms with
  ``stream_batching_interval_ms`` 0. The hops (proxy, ingress, replica, the stream back) are
  26.3 - 16.9 = 9.4 ms; the rest the batcher's first tick.

A first token the engine yields ``t`` seconds after the replica takes the request leaves at the
first tick at or after ``t``: ``I - t`` later where ``t < I``; past the first tick the phase of
``t`` within an interval is spread by the run (the requests' first tokens vary by more than an
interval), and the mean residual to the next tick is ``I / 2`` (the renewal residual of fixed
ticks, Kleinrock, Queueing Systems vol. 1, 1975, §5.2, as core/registry/pd_connectors.py's busy
step).
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add


@dataclass(frozen=True)
class ServingFrontend:
    """One frontend: ``hops`` seconds its actor hops add to a request (the stream back
    included), ``interval`` the stream batcher's seconds (0: none), ``first_tick`` whether the
    first token waits for the batcher's first tick (Ray before PR 64534); ``label`` the words a
    user picks it by; ``source`` the code and measurement read."""

    id: str
    label: str
    hops: float
    interval: float
    first_tick: bool
    source: str

    def first_token_wait(self, engine_seconds: float) -> float:
        """Seconds a first token the engine yields ``engine_seconds`` after the replica takes the
        request waits for the batcher (module docstring); 0 without a first-tick batcher."""
        i = self.interval
        if not self.first_tick or i <= 0:
            return 0.0
        return i - engine_seconds if engine_seconds < i else i / 2


SERVING_FRONTENDS: dict[str, ServingFrontend] = {}


def register(f: ServingFrontend) -> ServingFrontend:
    """Add a frontend (a DuplicateId if its id is taken)."""
    return add(SERVING_FRONTENDS, f.id, f, "serving frontend")


_MS = 1e-3
register(
    ServingFrontend(
        "ray_serve_llm",
        "Ray Serve LLM (before Ray PR 64534)",
        hops=(26.3 - 16.9) * _MS,  # ray-project/ray#59681: batcher off against vllm serve, p50 at c=1
        interval=50 * _MS,  # MODEL_RESPONSE_BATCH_TIMEOUT_MS (ray PR 50786)
        first_tick=True,
        source="ray-project/ray python/ray/llm/_internal/serve/utils/batcher.py and "
        "python/ray/llm/_internal/serve/core/server/llm_server.py; ray-project/ray#59681, PRs 50786 "
        "and 64534",
    )
)
# The same path with the stream batcher off (``experimental_configs["stream_batching_interval_ms"]``
# 0, as Anyscale's ray-serve-llm-perf-examples ``launch_gptoss.py`` sets it): the batcher then
# forwards each chunk as the engine yields it, so only the actor hops remain; ray-project/ray#59681
# measured that arm itself (26.3 ms to the first token against 16.9 ms from ``vllm serve``).
register(
    ServingFrontend(
        "ray_serve_llm_unbatched",
        "Ray Serve LLM, stream batcher off (stream_batching_interval_ms 0)",
        hops=(26.3 - 16.9) * _MS,  # ray-project/ray#59681: batcher off against vllm serve, p50 at c=1
        interval=0.0,
        first_tick=False,
        source="ray-project/ray python/ray/llm/_internal/serve/utils/batcher.py "
        "(stream_batching_interval_ms); ray-project/ray#59681 (the batcher-off run)",
    )
)
