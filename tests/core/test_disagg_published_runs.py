"""Published P/D runs of fixed output length found in round 13, replayed
(tests/core/data/disagg-published-runs.json; docs/evidence/serving.md, the section
'Disaggregated, round 13').

vLLM PR 18242's P2P NCCL 1P1D on an 8 x H100 node (Llama 3.1 8B FP16, TP 1 each, 8,000 in /
200 out, 3.6 requests/s with --burstiness 100, nine users by Little's law): the time per token
10.47 ms against 10.45 (+0.2 %), the first token 249 ms against 309.84 (-20 %) with the run's
stated arrivals (``arrival_burstiness`` 100: gamma gaps of CV 0.1, so the prefill pool barely
queues, as the run's median 298 ms near its mean says) and the P2P NCCL proxy's path (the
decode's API server after the prefill's response, the rest of its running step, the step that
samples the first token: core/registry/pd_connectors.py); 726 ms (+134 %) before either was
modelled."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

DATA = json.loads((Path(__file__).parent / "data" / "disagg-published-runs.json").read_text())
RUNS = DATA["runs"]
TOL = 0.25  # the bar


def _serving(run: dict[str, Any], users: int | None = None) -> dict[str, Any]:
    """Our serving report of one run at its users (or ``users``): closed loop, or open loop at
    its stated rate and requests where it states them."""
    n = users or run["users"]
    d: dict[str, Any] = {
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
        "serving": {"concurrency": n, "load": "steady", "disaggregated": run["split"], **run["serving"]},
    }
    if run.get("requests"):  # sent at a stated rate: open loop as sent (core/serving/disagg_rate.py)
        d["serving"].update(load="rate", request_rate=run["rate"], requests=run["requests"])
    return dict(estimate_report(d)["serving"])


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r["id"])
def test_published_run(run: dict[str, Any]) -> None:
    """Each figure within 25 % or not, as the evidence section states it."""
    sv = _serving(run)
    ttft = sv["disaggregated_ttft_seconds"] * 1e3
    tpot = sv["disaggregated_tpot_seconds"] * 1e3
    assert (ttft == pytest.approx(run["published_ttft_ms"], rel=TOL)) is run["ttft_within"], ttft
    assert (tpot == pytest.approx(run["published_tpot_ms"], rel=TOL)) is run["tpot_within"], tpot


def test_p2pnccl_first_token_with_its_arrivals_and_path() -> None:
    """vLLM PR 18242's run as stated (``arrival_burstiness`` 100, the P2P NCCL path), open loop
    at its 3.6 requests/s and 200 prompts: 248 ms against 309.84 (-20 %, within; 249 ms closed
    loop at its nine Little's-law users). Without the stated arrivals the split queues Poisson
    arrivals and reads 996 ms (more than 25 % late; 760 closed loop); with neither field 967 ms
    (693 closed loop, before both were modelled; 961 and 726 before vLLM 0.8-0.10's PIECEWISE
    decode was priced, docs/evidence/speed.md section 136)."""
    run = next(r for r in RUNS if r["id"].startswith("vllm-18242"))
    published = run["published_ttft_ms"]
    stated = _serving(run)["disaggregated_ttft_seconds"] * 1e3
    poisson = {k: v for k, v in run["split"].items() if k != "arrival_burstiness"}
    queued = _serving({**run, "split": poisson})["disaggregated_ttft_seconds"] * 1e3
    bare = {k: v for k, v in poisson.items() if k != "connector"}
    before = _serving({**run, "split": bare})["disaggregated_ttft_seconds"] * 1e3
    assert stated == pytest.approx(published, rel=TOL)
    assert queued > (1 + TOL) * published
    assert before == pytest.approx(967.0, abs=1.0)  # 961 before the PIECEWISE decode (speed.md 136)
    closed = {k: v for k, v in run.items() if k != "requests"}  # Little's-law users
    closed_ttft = _serving({**closed, "split": bare})["disaggregated_ttft_seconds"] * 1e3
    assert closed_ttft == pytest.approx(693.0, abs=1.0)  # 726 before the PIECEWISE decode


def test_p2pnccl_kv_moved() -> None:
    """One 8,000-token request of Llama 3.1 8B in FP16: 32 layers x 8 KV heads x 128 x 2 (K and
    V) x 2 bytes = 131,072 bytes a token, 1,000 MiB in whole 16-token blocks."""
    run = next(r for r in RUNS if r["id"].startswith("vllm-18242"))
    sv = _serving(run)
    assert sv["disaggregated_kv_transfer_bytes"] == 8000 * 131072


def test_spark_first_token_misses_beside_its_own_baseline() -> None:
    """Two DGX Sparks (vLLM 0.13 with NixlConnector over 100 Gb RoCE, a proxy on a third host),
    one request at a time, 256 in / 128 out: ours decodes at the measured rate (70.24 ms a token
    against 70.09; one Spark alone 69.73) but reads the first token at 184 ms against 568. The
    same sweep on one Spark alone reads 203 ms (ours 100): the split adds 365 ms in the run and
    83 ms in ours (the KV transfer, the decode's API server and the decode step that samples the
    first token: core/registry/pd_connectors.py ``vllm-nixl``). The proxy's HTTP round trips over
    the LAN, whose latency the run does not state, are not priced; not fitted."""
    run = next(r for r in RUNS if r["id"].startswith("spark-nixl"))
    sv = _serving(run)
    base = run["baseline"]
    assert sv["tpot_seconds"] * 1e3 == pytest.approx(base["published_tpot_ms"], rel=TOL)
    assert sv["ttft_seconds"] * 1e3 < (1 - TOL) * base["published_ttft_ms"]
    added = run["published_ttft_ms"] - base["published_ttft_ms"]
    ours_added = (sv["disaggregated_ttft_seconds"] - sv["ttft_seconds"]) * 1e3
    assert 0.2 * added < ours_added < 0.25 * added, (ours_added, added)
    assert sv["disaggregated_path_seconds"] * 1e3 == pytest.approx(10.2 + 70.2, abs=1.0)
