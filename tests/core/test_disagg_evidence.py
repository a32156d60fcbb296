"""Disaggregated prefill and decode beside NVIDIA aiconfigurator's published answers for the
same setup (tests/core/data/serving-features.json ``disaggregated_aiconfigurator``;
docs/evidence/serving.md §14): Qwen3-32B in FP8 on H200, 4,000-token prompts, 500 out.

Both express: the aggregated TP4 replica at a batch, the decode worker's speed per user (TP4,
alone), the prefill worker's first token (TP1, one request) and the disaggregated replica's
tokens/s per GPU (4 TP1 prefill workers and one TP4 decode worker). aiconfigurator's TTFT of
the aggregated rows and of the disaggregated replica under load are not compared: its
disaggregated TTFT is the prefill worker's at batch 1 with no queue (276.76 ms in every row,
its prefill pool sized to the decode rate), ours the Poisson queue in front of the prefill
pool (core/serving/disaggregated.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

DATA = json.loads((Path(__file__).parent / "data" / "serving-features.json").read_text())
AIC = DATA["disaggregated_aiconfigurator"]
TOL = 0.25  # the bar


def _scenario(tp: int, users: int, output: int, split: dict[str, Any] | None = None) -> dict[str, Any]:
    setup = AIC["setup"]
    d: dict[str, Any] = {
        "model": {"preset": setup["model"]},
        "framework": setup["framework"],
        "hardware": {"gpu": setup["gpu"]},
        "parallelism": {"tensor": tp},
        "precision": {"weights": setup["weights"], "kv_cache": setup["kv_cache"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": setup["prompt"],
            "generated_tokens": output,
            "batch_size": users,
        },
        "serving": {"concurrency": users, "load": "steady"},
    }
    if split:
        d["serving"]["disaggregated"] = split
    return d


def _rows(kind: str) -> list[dict[str, Any]]:
    return [r for r in AIC["rows"] if r["kind"] == kind]


@pytest.mark.parametrize("row", _rows("agg"), ids=lambda r: r["id"])
def test_aggregated_replica(row: dict[str, Any]) -> None:
    """One TP4 replica at the batch: tokens/s per user and per GPU (ours +5 to +15 %)."""
    sv = estimate_report(_scenario(4, row["users"], AIC["setup"]["output"]))["serving"]
    assert sv["tokens_per_second_per_user"] == pytest.approx(row["tokens_per_second_per_user"], rel=TOL)
    assert sv["tokens_per_second"] / 4 == pytest.approx(row["tokens_per_second_per_gpu"], rel=TOL)


@pytest.mark.parametrize("row", _rows("disagg"), ids=lambda r: r["id"])
def test_disaggregated_replica(row: dict[str, Any]) -> None:
    """4 TP1 prefill workers and one TP4 decode worker (8 GPUs): the decode worker's speed per
    user and the replica's tokens/s per GPU."""
    split = {"prefill_gpus": 4, "decode_gpus": 4, "prefill_tensor": 1}
    sv = estimate_report(_scenario(4, row["users"], AIC["setup"]["output"], split))["serving"]
    per_user = 1 / sv["disaggregated_tpot_seconds"]
    assert per_user == pytest.approx(row["tokens_per_second_per_user"], rel=TOL)
    assert sv["disaggregated_tokens_per_second"] / 8 == pytest.approx(
        row["tokens_per_second_per_gpu"], rel=TOL
    )


@pytest.mark.parametrize("row", _rows("prefill"), ids=lambda r: r["id"])
def test_prefill_worker_first_token(row: dict[str, Any]) -> None:
    """The TP1 prefill worker's first token of one 4,000-token prompt (ours with
    trtllm-serve's per-request cost)."""
    sv = estimate_report(_scenario(1, 1, 1))["serving"]
    assert sv["ttft_seconds"] * 1e3 == pytest.approx(row["ttft_ms"], rel=TOL)


@pytest.mark.parametrize("row", DATA["disaggregated_measured"], ids=lambda r: r["id"])
def test_measured_split_known_short(row: dict[str, Any]) -> None:
    """A measured 1P1D run (docs/evidence/serving.md §14): ours starts later (TTFT +41 %) and
    decodes faster (ITL -31 %) than SGLang's on two A10 servers. The decode step is the base
    model's (4.1 ms at TP4 over PCIe for a 4-bit 7B, where the measured aggregated ITL is
    ~10 ms too); the TTFT is the closed-loop queue at 4 users. Pinned so that a model closing
    either gap updates the evidence."""
    d: dict[str, Any] = {
        "model": {"preset": row["model"]},
        "framework": row["framework"],
        "hardware": {"gpu": row["gpu"]},
        "parallelism": {"tensor": row["tensor"]},
        "precision": {"weights": row["weights"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": row["prompt"],
            "generated_tokens": row["output"],
            "batch_size": row["users"],
        },
        "serving": {"concurrency": row["users"], "load": "steady", "disaggregated": row["split"]},
    }
    sv = estimate_report(d)["serving"]
    assert sv["disaggregated_ttft_seconds"] * 1e3 > row["published_ttft_ms"], row["source"]
    assert sv["disaggregated_tpot_seconds"] * 1e3 < row["published_itl_ms"], row["source"]
