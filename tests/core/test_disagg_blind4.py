"""A fourth blind round of published P/D figures (tests/core/data/disagg-blind4.json;
docs/evidence/serving.md, the section 'A fourth blind round of published P/D figures'), each run
as its source states it and replayed once, after its settings were written down.

Anyscale's Ray Serve LLM P/D exploration of gpt-oss-120b (anyscale/ray-serve-llm-perf-examples
at 5fa7985e, ``prefill_decode/``: ``launch_gptoss.py``, ``run_bm.sh``, ``docs/SETUP.md``,
``experiments/README.md`` and the ``bm_results/`` JSON of ``vllm bench serve``): vLLM 0.11.0
replicas behind ``build_pd_openai_app``, NixlConnector over UCX, 5,000 tokens in and 250 out
(``--ignore-eos``) at 4-64 users (``--max-concurrency N``, ``5N`` prompts sent at once), on one
8 x H100 node (P:D 3:1 to 1:3 at TP 2, 2 x TP 2 to TP 4, TP 4 to TP 4), across two H100 nodes
over EFA and on and across two 8 x H200 nodes over InfiniBand. Each run is replayed closed loop
at its users with the opening burst, as the first blind round's ``vllm bench serve`` runs
(``tests/core/test_disagg_blind.py`` ``scenario``), with the checkpoint's precision. Each ratio
(ours / published) is pinned within 0.02 so that a model change that moves one updates the
evidence; whether it is within 25 % (the P/D evidence bar) is pinned beside it."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import check_pd_run, load
from tests.core.test_disagg_blind import scenario as closed_loop

DATA = load("disagg-blind4.json")
RUNS = DATA["runs"]
TOL = 0.25  # the P/D evidence bar
PIN = 0.02  # a ratio's pin: a model change that moves one by more updates the record


def scenario(run: dict[str, Any]) -> dict[str, Any]:
    """The first blind round's closed-loop scenario of one run, less its precision: the source
    states none, so the model's checkpoint precision applies (gpt-oss-120b's MXFP4 experts)."""
    sc = closed_loop({**run, "weights": "checkpoint"})
    del sc["precision"]  # the builder always states weights; these runs state none
    return sc


def ours(run: dict[str, Any]) -> tuple[float, float]:
    """Our P/D first token and time per token of one run (ms)."""
    sv = estimate_report(scenario(run))["serving"]
    return sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r["id"])
def test_blind4_run(run: dict[str, Any]) -> None:
    """Each ratio as recorded (within 0.02) and within 25 % or not as recorded."""
    check_pd_run(run, *ours(run), PIN, TOL)


def test_every_run_states_its_source_and_assumptions() -> None:
    """A blind record names its results file and its launcher (repository paths at a commit),
    quotes its figures and lists what it assumed; its prompts are five per user."""
    for run in RUNS:
        assert "/blob/" in run["source"] and "/blob/" in run["setup"], run["id"]
        assert run["quote"] and run["assumptions"], run["id"]
        assert run["requests"] == 5 * run["users"] and run["split"]["opening_burst"], run["id"]


def test_blind4_count() -> None:
    """The round's count as first replayed, the model unchanged (each run's ``first_replay``):
    first tokens 16 of 60 within 25 % (0.21-2.53), times per token 8 of 60 (0.49-1.08: every
    one but one below the published). The times per token miss on the same page's aggregated
    runs too (``baseline_2xtp4``, ``baseline_4xtp2``: ours about 0.56 of theirs), so they are not
    the split's; the five sweeps that open with more than one prefill-decode pair open at 625-746
    ms against 201-313 ms for one pair, each new pair's first request paying vLLM's NIXL
    handshake (docs/evidence/serving.md, the fourth blind P/D round, reads the misses). Now
    first tokens 18 and times per token 8, since the runs state Ray Serve LLM with its stream
    batcher off (``serving.frontend`` "ray_serve_llm_unbatched": its 9.4 ms of actor hops on each
    first token; two runs at 8 users come within); first replayed with the frontend null."""
    first = [r["first_replay"] for r in RUNS]
    assert sum(f["ttft_within"] for f in first) == 16 and sum(f["tpot_within"] for f in first) == 8
    assert all(0.20 <= f["ttft_ratio"] <= 2.54 for f in first)
    assert all(0.49 <= f["tpot_ratio"] <= 1.08 for f in first)
    found = [ours(r) for r in RUNS]
    ttft = [t / r["published_ttft_ms"] for (t, _), r in zip(found, RUNS, strict=True)]
    tpot = [p / r["published_tpot_ms"] for (_, p), r in zip(found, RUNS, strict=True)]
    assert sum(abs(x - 1) <= TOL for x in ttft) == 18
    assert sum(abs(x - 1) <= TOL for x in tpot) == 8


def test_the_first_sweep_points_pay_one_handshake_a_new_pair() -> None:
    """The source's own figures (no estimate): each sweep runs 4, 8, ... 64 users in order after
    one test prompt (``vllm bench serve``), so at 4 users every prefill-decode pair but the one
    the test prompt used is new. The first tokens at 4 users: 201-313 ms with one pair (five
    layouts), 625-746 ms with two or three (five layouts; vLLM ``nixl_connector.py``
    ``_background_nixl_handshake``: a decode worker's first read from a prefill engine waits for
    the handshake with it)."""
    c4 = [r for r in RUNS if r["users"] == 4]
    pairs = {
        r["id"]: (r["split"]["prefill_gpus"] // (r["split"].get("prefill_tensor") or r["tensor"]))
        * (r["split"]["decode_gpus"] // r["tensor"])
        for r in c4
    }
    one = [r["published_ttft_ms"] for r in c4 if pairs[r["id"]] == 1]
    more = [r["published_ttft_ms"] for r in c4 if pairs[r["id"]] > 1]
    assert len(one) == 5 and len(more) == 5
    assert max(one) < 320 < 620 < min(more)
