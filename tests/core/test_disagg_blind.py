"""A blind round of published P/D figures from stacks not replayed before
(tests/core/data/disagg-blind.json; docs/evidence/serving.md, the section 'A blind round of
published P/D figures'), each run as its source states it and replayed once, after its settings
were written down; nothing in the model was changed for them.

The vLLM Router's own P/D benchmarks (vllm-project/router at e0c942d4, ``scripts/k8s/``): Llama
3.1 8B on 8 prefill and 8 decode GPUs (TP 1 each, NixlConnector, vLLM 0.11.0), behind the Rust
router that sends the prefill and then the decode with the returned ``kv_transfer_params``,
measured by ``vllm bench serve --max-concurrency N --ignore-eos`` (a closed loop that opens with
its N requests at once: ``opening_burst``). Each ratio (ours / published) is pinned within 0.02
so that a model change that moves one updates the evidence; whether it is within 25 % (issue
36's bar) is pinned beside it."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import check_pd_run, load

DATA = load("disagg-blind.json")
RUNS = DATA["runs"]
TOL = 0.25  # the bar
PIN = 0.02  # a ratio's pin: a model change that moves one by more updates the record


def scenario(run: dict[str, Any]) -> dict[str, Any]:
    """The scenario of one run: closed loop at its users over its stated requests, the split as
    stated (``split``), the engine's settings (``serving``)."""
    n = run["users"]
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
            "batch_size": n,
        },
        "serving": {
            "concurrency": n,
            "load": "steady",
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
def test_blind_run(run: dict[str, Any]) -> None:
    """Each ratio as recorded (within 0.02) and within 25 % or not as recorded."""
    check_pd_run(run, *ours(run), PIN, TOL)


def test_every_run_states_its_source_and_assumptions() -> None:
    """A blind record names its source (a repository path at a commit), quotes its figures and
    lists what it assumed."""
    for run in RUNS:
        assert "/blob/" in run["source"] and run["quote"] and run["assumptions"], run["id"]
        assert run["split"]["connector"] and run["requests"] >= run["users"], run["id"]


def test_blind_count() -> None:
    """The round's count: first tokens 5 of 7 within 25 % (the five 1,000-token runs 0.94-1.06 x
    the published, the two 2,000-token runs 0.47 and 0.49: the DP 8 pods' shared API server),
    times per token 2 of 7 (ours 1.12-1.56 x the published: every one slower). At the
    ``vllm-0.11`` era's former 0.367 GEMM share (docs/evidence/serving.md's blind round) the first
    tokens were 1 of 7, 1.28-1.87 and 0.72-0.76 (docs/evidence/speed.md section 104)."""
    found = [ours(r) for r in RUNS]
    ttft = sum(abs(t / r["published_ttft_ms"] - 1) <= TOL for (t, _), r in zip(found, RUNS, strict=True))
    tpot = sum(abs(p / r["published_tpot_ms"] - 1) <= TOL for (_, p), r in zip(found, RUNS, strict=True))
    assert (ttft, tpot) == (5, 2)
