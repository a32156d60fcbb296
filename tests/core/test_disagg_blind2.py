"""A second blind round of published P/D figures from stacks not replayed before
(tests/core/data/disagg-blind2.json; docs/evidence/serving.md, the section 'A second blind
round of published P/D figures'), each run as its source states it and replayed once, after its
settings were written down.

Mooncake's three vLLM V0 P/D benchmark pages on NVIDIA A10 (kvcache-ai/Mooncake
``doc/en/vllm-benchmark-results-v0.1.md``, ``docs/source/performance/vllm-benchmark-results-v0.2.md``
and ``-v1.md``, with their setup pages ``vllm-integration-v0.1.md``, ``-v0.2.md``, ``-v1.md``):
Qwen2.5-7B-Instruct-GPTQ-Int4, 200 prompts of about 245 to 8,180 tokens sent by vLLM's
``benchmark_serving.py`` at a stated request rate (Poisson gaps) for 6 output tokens each,
over Mooncake's Transfer Engine (vLLM 0.6.2, 1P1D TP 1), its MooncakeConnector (0.6.4.post1,
1P1D at TP 1-4) and its MooncakeStoreConnector (the V0 engine, 2P2D-4P2D at TP 1-2). Each
run is replayed open loop at its rate (``serving.load: "rate"``) over its 200 requests. Each
ratio (ours / published) is pinned within 0.02 so that a model change that moves one updates
the evidence; whether it is within 25 % (issue 36's bar) is pinned beside it."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import check_pd_run, load

DATA = load("disagg-blind2.json")
RUNS = DATA["runs"]
TOL = 0.25  # the bar
PIN = 0.02  # a ratio's pin: a model change that moves one by more updates the record


def scenario(run: dict[str, Any]) -> dict[str, Any]:
    """The scenario of one run: open loop at its stated rate over its requests, the split as
    stated (``split``), the engine's settings (``serving``). The users (one) size nothing
    here: a rate load's arrivals are the stated rate's (core/serving/disagg_rate.py)."""
    return {
        "model": {"preset": run["model"]},
        "framework": run["framework"],
        "hardware": {"gpu": run["gpu"]},
        "parallelism": {"tensor": run["tensor"]},
        "precision": {"weights": run["weights"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": run["prompt"],
            "generated_tokens": run["output"],
            "batch_size": 1,
        },
        "serving": {
            "concurrency": 1,
            "load": "rate",
            "request_rate": run["rate"],
            "requests": run["requests"],
            "disaggregated": run["split"],
            **run["serving"],
        },
    }


def ours(run: dict[str, Any]) -> tuple[float, float]:
    """Our P/D first token and time per token of one run (ms)."""
    sv = estimate_report(scenario(run))["serving"]
    return sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r["id"])
def test_blind2_run(run: dict[str, Any]) -> None:
    """Each ratio as recorded (within 0.02) and within 25 % or not as recorded."""
    check_pd_run(run, *ours(run), PIN, TOL)


def test_every_run_states_its_source_and_assumptions() -> None:
    """A blind record names its results page and its setup page (repository paths at a commit),
    quotes its figures and lists what it assumed."""
    for run in RUNS:
        assert "/blob/" in run["source"] and "/blob/" in run["setup"], run["id"]
        assert run["quote"] and run["assumptions"] and run["requests"] == 200, run["id"]


def test_blind2_count() -> None:
    """The round's count as first replayed, the model unchanged: first tokens 3 of 19 within
    25 % (the three 245-token Transfer Engine runs at 2-6 requests/s, 0.76-0.99; every other
    first token below the published, 0.10-0.74), times per token 0 of 19 (every one below:
    0.65-0.71 where the decode pool barely queues, down to 0.0002 where the published decode
    stalls for seconds). docs/evidence/serving.md, the second blind P/D round, reads the misses:
    the vLLM V0 connectors' receive runs inside the decode instance's own prompt step."""
    found = [ours(r) for r in RUNS]
    ttft = sum(abs(t / r["published_ttft_ms"] - 1) <= TOL for (t, _), r in zip(found, RUNS, strict=True))
    tpot = sum(abs(p / r["published_tpot_ms"] - 1) <= TOL for (_, p), r in zip(found, RUNS, strict=True))
    assert (ttft, tpot) == (3, 0)
    assert all(t < r["published_ttft_ms"] for (t, _), r in zip(found, RUNS, strict=True))
    assert all(p < r["published_tpot_ms"] for (_, p), r in zip(found, RUNS, strict=True))
