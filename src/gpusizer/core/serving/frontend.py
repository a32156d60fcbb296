"""What a stated serving frontend (``serving.frontend``, core/registry/serving_frontends.py) adds
to a request's first token, aggregated and disaggregated. Null: nothing, every answer as before.

Aggregated: the client's run (the engine's API server included, core/serving/scheduler.py
``client_view``) plus the frontend's hops on the first token, the end-to-end time and a steady
user's cycle (the same view), and the stream batcher's wait on the first token alone (the last
tokens leave when the engine's stream ends: ``Batcher.stream`` drains at once on its done event).
The engine's first token is taken at the client's first token less nothing: the replica takes the
request as the hops deliver it and its batcher starts then.

Disaggregated: the decode server's batcher starts when it runs the request after the prefill's
response, so the wait is read off the decode side's own seconds to its first token (the KV read,
its queue and slot waits and the connector's path: core/serving/disaggregated.py), and the hops
once. The prefill call's own actor hop (a non-streaming call through a handle) is not timed by
any source read and is not priced.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.specs import Scenario
from ..registry.serving_frontends import SERVING_FRONTENDS, ServingFrontend
from .scheduler import client_view
from .scheduler_types import LoadResult, Workload


def frontend_of(s: Scenario) -> ServingFrontend | None:
    """The scenario's stated frontend (None: the engine's own server)."""
    fid = s.serving.frontend
    return None if fid is None else SERVING_FRONTENDS[fid]


def frontend_view(s: Scenario, r: LoadResult, w: Workload) -> LoadResult:
    """The aggregated run ``r`` as a client behind the stated frontend sees it (module docstring);
    ``r`` itself without one."""
    fe = frontend_of(s)
    if fe is None:
        return r
    seen = client_view(r, w, fe.hops)
    return replace(
        seen,
        ttft=seen.ttft + fe.first_token_wait(r.ttft),
        ttft_p99=seen.ttft_p99 + fe.first_token_wait(r.ttft_p99),
    )


def decode_side_seconds(s: Scenario, decode_first: float) -> float:
    """Seconds the stated frontend adds to a P/D request's first token whose decode server yields
    it ``decode_first`` seconds after taking the request (module docstring); 0 without one."""
    fe = frontend_of(s)
    if fe is None:
        return 0.0
    return fe.hops + fe.first_token_wait(decode_first)
