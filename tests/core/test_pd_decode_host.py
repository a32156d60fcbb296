"""SGLang's P/D decode server before release 0.4.6 ran without the overlap scheduler
(core/registry/pd_decode_host.py; sgl-project/sglang PR 5608, "[PD] Support decode overlap
schedule"): its decode steps wait for the host's scheduling work, 0.613 ms a step as the PR
measured it (Llama-3.1-8B-Instruct, TP 4, 16 running: 3,053.86 tokens/s without the overlap,
3,458.31 with it). docs/evidence/serving.md, the section on the SGLang decode server's overlap."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.registry.pd_decode_host import PD_DECODE_HOST, decode_host_seconds

from .test_disagg_evidence import MEASURED, _measured, published_tpot

A10 = [r for r in MEASURED if r["gpu"] == "a10-24gb"]


def test_the_cost_is_the_prs_measurement() -> None:
    """16 / 3,053.86 - 16 / 3,458.31 s: the step the overlap saved, nothing fitted."""
    assert PD_DECODE_HOST["sglang"].seconds == pytest.approx(16 / 3053.86 - 16 / 3458.31, rel=1e-12)
    assert PD_DECODE_HOST["sglang"].seconds * 1e3 == pytest.approx(0.613, abs=0.001)


@pytest.mark.parametrize(
    ("framework", "version", "charged"),
    [
        ("sglang", "0.4.5", True),  # SGLang PR 4880's A10 runs (April 2025)
        ("sglang", "0.4.5.post3", True),
        ("sglang", "0.4.4", True),
        ("sglang", "0.4.6", False),  # the first release after PR 5608
        ("sglang", "0.4.6.post2", False),
        ("sglang", "0.5.2", False),
        ("sglang", None, False),  # the current release
        ("sglang", "0.4.3", False),  # no P/D server yet: a memory-rules proxy (the May 2025 wide-EP runs)
        ("sglang", "v-x", False),  # unreadable
        ("vllm", "0.4.5", False),  # another engine: its decode server is its own
        ("tensorrt-llm", "0.19.0", False),
    ],
)
def test_which_releases_pay(framework: str, version: str | None, charged: bool) -> None:
    assert (decode_host_seconds(framework, version) > 0) is charged


@pytest.mark.parametrize("row", A10, ids=lambda r: r["id"])
def test_a10_split_decode_step_gains_the_host(row: dict[str, Any]) -> None:
    """The A10 P/D runs under SGLang 0.4.5: each decode step 0.613 ms longer than the same
    engine's rules at 0.4.6 (the same release table entry, 0.4.3's), the aggregated answers of the
    same scenario identical: TP 4 time per token 4.32 -> 4.93 ms (published 5.25, the page's
    (mean E2E - mean TTFT) / 511: 0.82 -> 0.94, within; 0.60 -> 0.68 of its per-chunk mean ITL
    7.23), TP 2 14.08 -> 14.69 ms (published 20.37: 0.69 -> 0.72, out of 25 %; 0.83 -> 0.86 of
    its mean ITL 17.06). At the rows'
    closed-loop users, so that both releases decode the same batch (open loop at the stated
    rate the slower step holds more requests at once: core/serving/disagg_rate.py)."""
    row = {k: v for k, v in row.items() if k != "requests"}
    late = {**row, "serving": {**row["serving"], "engine_version": "0.4.6"}}
    sv, base = _measured(row), _measured(late)
    added = sv["disaggregated_tpot_seconds"] - base["disaggregated_tpot_seconds"]
    assert added == pytest.approx(PD_DECODE_HOST["sglang"].seconds, rel=0.02)
    for key in ("ttft_seconds", "tpot_seconds", "tokens_per_second"):
        assert sv[key] == base[key], key
    assert sv["disaggregated_tpot_seconds"] * 1e3 < published_tpot(row)


def test_aggregated_sglang_045_unchanged() -> None:
    """Without the split nothing changes: an aggregated SGLang 0.4.5 scenario reads as 0.4.6."""
    row = A10[0]
    d: dict[str, Any] = {
        "model": {"preset": row["model"]},
        "framework": "sglang",
        "hardware": {"gpu": row["gpu"]},
        "parallelism": {"tensor": row["tensor"]},
        "precision": {"weights": row["weights"]},
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 256, "batch_size": 8},
        "serving": {"concurrency": 8, "load": "steady", "engine_version": "0.4.5"},
    }
    later = {**d, "serving": {**d["serving"], "engine_version": "0.4.6"}}
    assert estimate_report(d)["serving"] == estimate_report(later)["serving"]
