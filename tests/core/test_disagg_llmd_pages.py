"""llm-d's own P/D results pages replayed through ``serving.disaggregated``
(tests/core/data/disagg-llmd-pages.json; docs/evidence/serving.md, the section on llm-d's P/D
pages). Tolerance: the issue's 25 % on every figure. Each run's settings, engine and the way its
users and time per token are derived are stated in the data file beside the source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

DATA = json.loads((Path(__file__).parent / "data" / "disagg-llmd-pages.json").read_text())
TOL = 0.25  # the bar


def _scenario(row: dict[str, Any], users: int, *, split: bool = True, **serving: Any) -> dict[str, Any]:
    d: dict[str, Any] = {
        "model": {"preset": row["model"]},
        "framework": row["framework"],
        "hardware": {"gpu": row["gpu"]},
        "parallelism": {"tensor": row["tensor"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": row["prompt"],
            "generated_tokens": row["output"],
            "batch_size": users,
        },
        "serving": {
            "concurrency": users,
            "load": "steady",
            "engine_version": row["engine_version"],
            **serving,
        },
    }
    if row.get("kv_block_tokens"):
        d["serving"]["kv_block_tokens"] = row["kv_block_tokens"]
    if row.get("weights"):
        d["precision"] = {"weights": row["weights"]}
    if row.get("max_context"):
        d["serving"]["max_context"] = row["max_context"]
    if row.get("api_endpoint"):
        d["serving"]["api_endpoint"] = row["api_endpoint"]
    if split:
        d["serving"]["disaggregated"] = row["split"]
    return d


def _split(row: dict[str, Any], **serving: Any) -> tuple[float, float]:
    """Our P/D first token and time per token (ms): open loop at the row's stated rate and
    requests (core/serving/disagg_rate.py; inference-perf's Poisson gaps), else closed loop
    at its users."""
    if row.get("requests"):
        serving = {"load": "rate", "request_rate": row["rate"], "requests": row["requests"], **serving}
    sv = estimate_report(_scenario(row, row["users"], **serving))["serving"]
    return sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3


def _within(ours: float, published: float) -> bool:
    return bool(ours == pytest.approx(published, rel=TOL))


@pytest.mark.parametrize("row", DATA["split_runs"], ids=lambda r: r["id"])
def test_split_runs(row: dict[str, Any]) -> None:
    """The P/D README's two reports of gpt-oss-120b on 16 H200 (8 TP 1 prefills, 2 TP 4 decoders,
    5,000 in / 250 out, 5,400 requests at 45 requests/s), open loop as sent (Poisson gaps; closed
    loop at 154 and 118 Little's-law users before the split read the rate), on the completions
    route the reports state, the CKS prompts at the 5,151 tokens its harness sent: first tokens
    487 ms against 1,444 (-66 %; 843 closed loop) and 455 against 1,157 (-61 %; 607), each below
    the published; times per token 7.00 ms against 8.41 (-17 %; 8.89) and 6.99 against 6.50
    (+8 %; 8.27, +27 %). The same topology and workload read 518 ms on llm-d's multi-tier page
    (ours 456 at its rate): the three published runs spread 2.8x in first token, and ours sits
    below their low end (not explained: docs/evidence/serving.md)."""
    ttft, itl = _split(row)
    assert _within(ttft, row["published_ttft_ms"]) is row["ttft_within"], ttft
    assert _within(itl, row["published_itl_ms"]) is row["itl_within"], itl
    assert ttft < row["published_ttft_ms"]


def test_gke_run_same_under_each_candidate_engine() -> None:
    """The GKE report names no engine: the guide's images of its time (v0.23.0, v0.24.0) and the
    multi-tier page's v0.27.1 all take release 0.21.0's rules, so the replay does not hinge on
    the choice."""
    row = next(r for r in DATA["split_runs"] if "gke" in r["id"])
    answers = {_split({**row, "engine_version": v}) for v in ("0.23.0", "0.24.0", "0.27.1")}
    assert len(answers) == 1


@pytest.mark.parametrize("row", DATA["single_request"], ids=lambda r: r["id"])
def test_single_request_through_the_split(row: dict[str, Any]) -> None:
    """llm-d's calibration of the P/D router: a lone 8,192-token prompt through the full P/D
    path (router, TP 1 prefill, NIXL transfer, sidecar hop, the decode's first token), median
    242 ms (8,192 / 33,821 tokens/s); ours 253 ms (+5 %) on the completions route its token-ID
    prompts take, with the NIXL path (the decode server and its step); 268 ms (+11 %) before."""
    ttft, _ = _split(row)
    assert _within(ttft, row["published_ttft_ms"]) is row["ttft_within"], ttft


def _sequential_e2e(row: dict[str, Any], prompt: int) -> float:
    sv = estimate_report(_scenario({**row, "prompt": prompt}, 1))["serving"]
    ttft, tpot = sv["disaggregated_ttft_seconds"], sv["disaggregated_tpot_seconds"]
    return float(ttft + (row["output"] - 1) * tpot)


@pytest.mark.parametrize("row", DATA["sequential"], ids=lambda r: r["id"])
def test_amd_mi355x_split_decodes_fast(row: dict[str, Any]) -> None:
    """AMD MI355X, Llama 3.3 70B FP8, 1P1D of TP 4 each under llm-d's ROCm image (vLLM 0.15.1):
    16 sequential requests of 64 tokens, 0.994 s each; ours 0.62 s (-37 %), 9.0 ms a token at
    TP 4 where the run's ~15 ms. The unstated prompt length does not move it."""
    e2e = [_sequential_e2e(row, p) for p in (8, row["prompt"], 32)]
    assert max(e2e) - min(e2e) < 0.005
    assert _within(e2e[1], row["published_e2e_s"]) is row["e2e_within"], e2e
    assert e2e[1] < (1 - TOL) * row["published_e2e_s"]


def test_amd_mi355x_same_image_aggregated_decodes_fast_too() -> None:
    """The same image's aggregated TP 8 runs (the MI355X performance reference README.amd.md
    links): ours decodes at 0.59-0.82 of the published median time per token (0.60-0.76 before
    vLLM's all-reduce took its measured MI355X times, docs/evidence/speed.md, the section on
    CDNA4's rates), so the split's miss above is the base MI355X decode step under vLLM, not the
    split. Not counted."""
    base = next(r for r in DATA["aggregated_baselines"] if r["gpu"] == "mi355x-288gb")
    ratios = []
    for users, prompt, output, _, tpot in base["rows"]:
        row = {**base, "prompt": prompt, "output": output}
        sv = estimate_report(_scenario(row, users, split=False))["serving"]
        ratios.append(sv["tpot_seconds"] * 1e3 / tpot)
    assert min(ratios) > 0.55 and max(ratios) < 0.85, ratios


def test_readme_aggregated_baseline() -> None:
    """The P/D README's own aggregated baseline (16 TP 1 replicas behind a k8s Service, vLLM
    0.19.1, 45 requests/s open loop): ITL 18.8 ms against 25 (-25 %, at the band's edge); TTFT 253
    ms against 532 (-52 %), ours below as in the split runs. Not counted."""
    base = next(r for r in DATA["aggregated_baselines"] if r["gpu"] == "h200-141gb")
    n = round(base["requests"] / base["replicas"])
    rate = base["rate"] / base["replicas"]
    d = _scenario(base, n, split=False, load="rate", request_rate=rate, requests=n)
    sv = estimate_report(d)["serving"]
    assert sv["tpot_seconds"] * 1e3 == pytest.approx(base["published_itl_ms"], rel=TOL)
    assert sv["ttft_seconds"] * 1e3 < (1 - TOL) * base["published_ttft_ms"]


def test_counted_figures() -> None:
    """Six figures enter the count of published P/D figures of fixed output length, three within
    25 % (both runs' times per token at their stated rate, the calibration's lone prompt; two
    with the GKE run's closed-loop users, +27 %)."""
    flags = [(r["ttft_within"], r["itl_within"]) for r in DATA["split_runs"] if r["counted"]]
    counted = [f for pair in flags for f in pair]
    counted += [r["ttft_within"] for r in DATA["single_request"] if r["counted"]]
    counted += [r["e2e_within"] for r in DATA["sequential"] if r["counted"]]
    assert (len(counted), sum(counted)) == (6, 3)
