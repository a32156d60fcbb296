"""``serving.frontend`` "ray_serve_llm_unbatched" (core/registry/serving_frontends.py): Ray Serve
LLM with its stream batcher off (``stream_batching_interval_ms`` 0, as Anyscale's
ray-serve-llm-perf-examples sets it, tests/core/data/disagg-blind4.json). Its actor hops alone
reach the first token and the end-to-end time, no batcher tick; the time per token is left."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.registry.serving_frontends import SERVING_FRONTENDS
from tests.core.hostile_inputs import SERVE, at

FIELD = "serving.frontend"
OFF = SERVING_FRONTENDS["ray_serve_llm_unbatched"]
ON = SERVING_FRONTENDS["ray_serve_llm"]


def _serving(scenario: dict[str, Any]) -> dict[str, Any]:
    return dict(gpusizer.estimate_report(scenario)["serving"])


def test_the_hops_of_the_batcher_off_run() -> None:
    """Ray issue 59681 (one user, p50): 26.3 ms to the first token with the batcher off against
    16.9 ms from ``vllm serve``: the hops, 9.4 ms, the batched frontend's own (read from the same
    run, so not an independent check); no first tick."""
    assert OFF.hops == pytest.approx(0.0094) and OFF.hops == ON.hops
    assert OFF.interval == 0.0 and not OFF.first_tick
    assert OFF.first_token_wait(0.0169) == 0.0 and OFF.first_token_wait(0.3) == 0.0


def test_the_hops_reach_the_first_token_and_the_end_only() -> None:
    """Against the engine's own server: the first token and the end-to-end time each the hops
    later, the time per token unchanged; against the batched frontend, no batcher wait."""
    base = _serving(SERVE)
    off = _serving(at(SERVE, FIELD, "ray_serve_llm_unbatched"))
    assert off["tpot_seconds"] == base["tpot_seconds"]
    assert off["ttft_seconds"] == pytest.approx(base["ttft_seconds"] + OFF.hops)
    assert off["e2e_seconds"] == pytest.approx(base["e2e_seconds"] + OFF.hops)
    on = _serving(at(SERVE, FIELD, "ray_serve_llm"))
    assert on["ttft_seconds"] > off["ttft_seconds"]
