"""Tencent TKE's published Dynamo v0.3.0 P/D grid of Qwen3-32B on H20 replayed
(tests/core/data/disagg-tke-dynamo-grid.json; docs/evidence/serving.md, the section on the TKE
grid): one TP 4 decode worker with 3 x TP 4, 6 x TP 2 or 12 x TP 1 prefill workers, 1-128
closed-loop users, 3,000 in / 150 out and 2,500 in / 100 out (run to length: --ignore-eos,
149-150 and 99-100 output tokens a request from the table's own throughputs).

Ours reads the time per token at 0.40-0.91 of the measured (20.1-39.4 ms; ours 10.6-26.8, with
Hopper's 64-row GEMM tile, tests/core/test_h20_decode_tile.py; 0.33-0.91 and 8.2 ms before): the
same page's aggregated replicas decode at 11.6-16.9 ms a token at one user where ours reads
10.6, so the P/D worker adds 6-10 ms a token that ours does not have (vLLM 0.8.4 V0 with
Dynamo's remote-prefill patch, every token streamed through Dynamo's processor). A faster
decode shortens the users' cycle, so at 8-64 users more requests reach the prefill pool in ours
than the runs sent and ours queues them later (1.1-2.7x). Pinned so that a model closing either
gap updates the evidence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer import estimate_report

GRID = json.loads((Path(__file__).parent / "data" / "disagg-tke-dynamo-grid.json").read_text())
TOL = 0.25  # the bar


def _run(run: list[float]) -> tuple[float, float]:
    """Our first token and time per token (ms) of one run: x prefill workers of TP ``tp`` and
    one TP 4 decode worker serving ``users`` closed-loop users."""
    x, tp, users, isl, osl = (int(v) for v in run[:5])
    split = {
        "prefill_gpus": x * tp,
        "decode_gpus": GRID["decode_gpus"],
        "prefill_tensor": tp,
        "prefill_max_sequences": GRID["prefill_max_sequences"],
    }
    d: dict[str, Any] = {
        "model": {"preset": GRID["model"]},
        "framework": GRID["framework"],
        "hardware": {"gpu": GRID["gpu"]},
        "parallelism": {"tensor": GRID["tensor"]},
        "workload": {"kind": "inference", "prompt_tokens": isl, "generated_tokens": osl, "batch_size": users},
        "serving": {
            "concurrency": users,
            "load": "steady",
            "engine_version": GRID["engine_version"],
            "max_context": GRID["max_context"],
            "kv_block_tokens": GRID["kv_block_tokens"],
            "disaggregated": split,
        },
    }
    sv = estimate_report(d)["serving"]
    return sv["disaggregated_ttft_seconds"] * 1e3, sv["disaggregated_tpot_seconds"] * 1e3


def test_outputs_ran_to_length() -> None:
    """Only runs of fixed output length are kept: output tokens / requests within 3 % of the
    stated length in every run (the request rate is printed to two decimals: 0.21/s at one
    user is +-2.4 %); the 1,000-token workloads stopped at EOS and are left out."""
    for run in GRID["runs"]:
        assert abs(run[6] / run[5] / run[4] - 1) < 0.03, run


def test_tke_dynamo_grid_known_short() -> None:
    """48 runs, 96 figures: 34 within 25 % (first tokens 29 of 48, times per token 5 of 48:
    five of the six at 128 users). Every time per token of ours is below the measured. The 29th
    first token (3 x TP 4 prefill, 8 users, 2,500 in: 1.258 -> 1.249 of the measured) came in
    when vLLM 0.8.4's chat cost per request became 0.11.0's less 0.11.0's own template parse plus
    0.8.4's (42.7 ms, not 46.9: core/registry/chat_template_parse.py)."""
    ttft_in = tpot_in = 0
    for run in GRID["runs"]:
        ttft, tpot = _run(run)
        assert tpot < run[8], run
        ttft_in += abs(ttft / run[7] - 1) <= TOL
        tpot_in += abs(tpot / run[8] - 1) <= TOL
    assert (ttft_in, tpot_in) == (29, 5)


def test_one_user_level_also_aggregated() -> None:
    """The P/D decode worker's steady ~20 ms a token at one user is not shown to be the split's:
    the same page's aggregated V1 engine reads the same level in one workload (3000:150,
    20.08 ms mean, P99 20.10 over 10 requests) and 15.25 ms at 8 users of that workload, while
    its other one-user runs read 11.64-13.62 ms. Dynamo v0.3.0's patched V0 step adds, by
    its source, a notification gather of at most ~1.2 ms at TP 4 (docs/evidence/serving.md,
    the section on the Dynamo decode step), so a constant solved from the P/D rows would be
    a fit. Pinned so that whoever models a P/D-only cost meets these rows first."""
    rows = GRID["one_user_tpot_ms"]["runs"]
    pd = [r[2] for r in rows if r[0].startswith("pd-")]
    assert len(pd) == 12 and max(pd) - min(pd) < 0.25  # 20.08-20.30: one steady level
    v1 = {r[1]: r[2] for r in rows if r[0] == "v1-aggregated"}
    assert abs(v1["3000:150"] / (sum(pd) / len(pd)) - 1) < 0.01  # the same level, aggregated
    assert min(v1.values()) < 0.6 * min(pd)  # 11.64 ms: the same engine's fast level
    # the aggregated 3000:150 run decodes faster at 8 users than at one: not the step's load
    assert GRID["one_user_tpot_ms"]["v1_aggregated_3000_150_8_users_mean_tpot_ms"] < v1["3000:150"]
