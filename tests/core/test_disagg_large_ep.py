"""Large-scale P/D DeepSeek figures (attention DP and wide expert parallelism) replayed
(tests/core/data/disagg-large-ep.json; docs/evidence/serving.md, the section 'Disaggregated,
round 15: large-scale expert parallelism'). Tolerance: the issue's 25 % on every figure.

The SGLang team's 96-H100 prefill servers (LMSYS blog 2025-05-05: EP32 over 4 nodes, 16,384
tokens a rank a batch) read 0.14-0.16 of the published 50-58k tokens/s a node: ours charges
each token's eight expert copies in 16 bits over the 50 GB/s NIC for the busiest rank of an
unbalanced router, where the run dispatched FP8 once per destination node (DeepEP), placed
experts by EPLB and overlapped the exchange with compute (two-batch overlap). Ant Group's H20
deployment (LMSYS blog 2025-09-26): the TP 8 prefill node within (1.07), the DP16/EP16 MTP decode
0.77-0.95 at the load balance the post states (``serving.expert_balance``; 0.70-0.91 without).
Each figure's settings and what the scenario cannot express are in the data file beside its
source."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError

DATA = json.loads((Path(__file__).parent / "data" / "disagg-large-ep.json").read_text())
ROWS = DATA["rows"]
TOL = 0.25  # the bar


def _ours(row: dict[str, Any], scenario: dict[str, Any] | None = None) -> float:
    """Ours as the row's measure reads it (tokens/s): a prefill server's input tokens over a
    burst's makespan a node (output 1: the engine's tokens/s is requests/s), or a decode rank's
    batch over the split's time per output token."""
    sv = estimate_report(scenario or row["scenario"])["serving"]
    if row["measure"] == "input_tokens_per_second_per_node":
        prompt = row["scenario"]["workload"]["prompt_tokens"]
        return float(sv["tokens_per_second"]) * prompt / row["nodes"]
    return row["batch_per_gpu"] / float(sv["disaggregated_tpot_seconds"])


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_large_ep_figure(row: dict[str, Any]) -> None:
    """Each figure within 25 % or not, as docs/evidence/serving.md states it."""
    ours = _ours(row)
    assert (ours == pytest.approx(row["published"], rel=TOL)) is row["within"], (ours, row["id"])


def test_lmsys_prefill_reads_slow_by_the_exchange() -> None:
    """The three 96-H100 prefill figures (1K, 2K, 4K) all read 0.13-0.17 of the published: the
    same step of 16,384 tokens a rank, its MoE exchange over InfiniBand charged as 16-bit copies
    for the busiest rank (docs/evidence/serving.md, round 15). Pinned so that a model of DeepEP's
    dispatch, EPLB or two-batch overlap updates the evidence."""
    for row in (r for r in ROWS if r["id"].startswith("lmsys")):
        ratio = _ours(row) / row["published"]
        assert 0.13 < ratio < 0.17, (row["id"], ratio)


def test_ant_prefill_insensitive_to_the_unstated_settings() -> None:
    """Ant Group's TP 8 H20 prefill node: the memory fraction the post does not state (0.88 to
    0.95) and the KV cache's precision (16-bit or FP8) leave ours' input throughput unchanged, so
    the fraction set to let the engine start chooses nothing (16.5k published, ours +7 %)."""
    row = next(r for r in ROWS if r["id"] == "ant-h20-prefill-tp8-4096")
    base = _ours(row)
    assert base / row["published"] == pytest.approx(1.07, abs=0.02)
    for fraction in (0.88, 0.95):
        for kv in (None, "fp8"):
            sc = json.loads(json.dumps(row["scenario"]))
            sc["serving"]["memory_fraction"] = fraction
            if kv:
                sc["precision"] = {"kv_cache": kv}
            assert _ours(row, sc) == pytest.approx(base, rel=1e-6)


def test_ant_decode_with_the_stated_balance() -> None:
    """The DP16/EP16 decode over two H20 nodes with MTP, at the post's stated load balance (above
    70 %: ``serving.expert_balance`` 0.7, its bound): 0.77, 0.77 and 0.95 of the published at 48,
    32 and 12 sequences a GPU. Without it ours takes the busiest rank of its power-law router
    (1.7-1.8x the mean rank's tokens where the post's EPLB holds it under 1.43x) and reads 0.70,
    0.72 and 0.91 (the two larger just outside 25 %: they rest on the post's bound); at a perfect
    balance 0.86, 0.86, 1.04, so no balance the post allows moves them out (docs/evidence/
    serving.md, round 15). Still slow at the larger batches: the single-batch overlap of the
    exchange with the shared expert and down GEMM is not modelled."""
    rows = [r for r in ROWS if r["id"].startswith("ant-h20-decode")]
    assert [round(_ours(r) / r["published"], 2) for r in rows] == [0.77, 0.77, 0.95]
    for balance, want in ((None, [0.70, 0.72, 0.91]), (1.0, [0.86, 0.86, 1.04])):
        got = []
        for r in rows:
            sc = json.loads(json.dumps(r["scenario"]))
            sc["serving"]["expert_balance"] = balance
            got.append(round(_ours(r, sc) / r["published"], 2))
        assert got == want, (balance, got)


def test_ant_decode_needs_the_fp8_cache_to_hold_its_batch() -> None:
    """48 sequences of 4,096 + 1,536 tokens a rank do not fit a 16-bit MLA pool on an H20 in
    ours (37 do), so the stated batch implies the stack's FP8 MLA cache (the post's 'FP8 Q/KV')."""
    row = next(r for r in ROWS if r["id"].endswith("bs48"))
    sc = json.loads(json.dumps(row["scenario"]))
    sc.pop("precision")
    assert estimate_report(sc)["serving"]["running"] < 48
    assert estimate_report(row["scenario"])["serving"]["running"] == 48


def _lmsys_decode(tensor: int) -> dict[str, Any]:
    users = 256 * tensor
    return {
        "model": {"preset": "deepseek-v3"},
        "framework": "sglang",
        "hardware": {"gpu": "h100-sxm-80gb", "allow_cross_node_tensor_parallel": True},
        "parallelism": {"tensor": tensor, "attention_data": tensor, "expert": tensor},
        "workload": {
            "kind": "inference",
            "prompt_tokens": 2000,
            "generated_tokens": 100,
            "batch_size": users,
        },
        "serving": {
            "concurrency": users,
            "load": "steady",
            "engine_version": "0.4.3",
            "max_context": 4500,
            "memory_fraction": 0.835,
            "disaggregated": {
                "prefill_gpus": 32,
                "decode_gpus": tensor,
                "prefill_tensor": 32,
                "prefill_attention_data": 32,
                "prefill_expert": 32,
            },
        },
    }


def test_lmsys_decode_ep72_cannot_be_stated() -> None:
    """The 22.3k decode figure ran 72 ranks with 288 physical experts (256 + 32 redundant):
    the scenario refuses the layout, so the figure is recorded as not replayed."""
    with pytest.raises(ScenarioError):
        estimate_report(_lmsys_decode(72))


def test_lmsys_decode_nearest_layout_not_counted() -> None:
    """Not counted: the same 256 sequences a GPU on 8 decode nodes (EP64, four experts a GPU as
    the run held) read 5,539 tokens/s a node against 22,282 (0.25); the decode step's MoE exchange
    is 0.30 of its 0.37 s (docs/evidence/serving.md, round 15)."""
    sv = estimate_report(_lmsys_decode(64))["serving"]
    per_node = 8 * 256 / sv["disaggregated_tpot_seconds"]
    assert per_node / 22282 == pytest.approx(0.25, abs=0.02)


def test_counted_figures() -> None:
    """Seven figures counted under the disaggregated speed evidence, four within 25 %."""
    counted = [r["within"] for r in ROWS if r["counted"]]
    assert (len(counted), sum(counted)) == (7, 4)
    assert len(DATA["not_replayed"]) == 6
