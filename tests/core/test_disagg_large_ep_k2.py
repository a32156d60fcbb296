"""The Kimi K2 wide-EP decode (LMSYS blog 2025-07-20: 12 decode nodes of H200, 96 ranks, 96
redundant experts, 480 sequences a rank, 24k output tokens/s a node) replayed as its OME runtime
ran it (tests/core/data/disagg-large-ep-k2.json; docs/evidence/serving.md, the section on EPLB's
placement). Tolerance: the issue's 25 %. Replayed first once EPLB's placement was modelled, so
nothing in the model was set from it: ours 1.29 of the published (fast, out) then, 1.10 (within)
once two-batch overlap is staged as SGLang stages it (nothing set from it either: the send and
receive kernels' rates are DeepEP PR 425's), 0.93 without two-batch overlap, 0.36 with the
replicas drawn as experts of their own."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

from .test_disagg_large_ep_decode import per_node, served

DATA = json.loads((Path(__file__).parent / "data" / "disagg-large-ep-k2.json").read_text())
ROWS = DATA["rows"]
TOL = 0.25  # the bar


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_k2_decode_figure(row: dict[str, Any]) -> None:
    """Within 25 % or not, as docs/evidence/serving.md states it."""
    ours = per_node(row)
    assert (ours == pytest.approx(row["published"], rel=TOL)) is row["within"], (ours, row["id"])


def test_k2_ratios() -> None:
    """Ours over the published 24,000 a node (tolerance 0.005, the rounding): 1.10 as run (480
    sequences a rank, DeepEP low-latency, two-batch overlap, EPLB's placement of 96 replicas: the
    busiest rank 1.06-1.09x the mean; the overlap staged as SGLang's decode strategy stages it,
    core/speed/step_tbo.py ``decode_layers``: 1.29 with each exchange behind the other
    micro-batch's whole computation), 0.93 without the overlap, 0.77 with the default exchange
    and no overlap; 1.19 at a perfect balance (not counted; 1.41 before)."""
    row = ROWS[0]
    assert round(per_node(row) / row["published"], 2) == 1.10
    assert round(per_node(row, served(row, two_batch_overlap=None)) / row["published"], 2) == 0.93
    plain = served(row, two_batch_overlap=None, moe_a2a_backend=None)
    assert round(per_node(row, plain) / row["published"], 2) == 0.77
    assert round(per_node(row, served(row, expert_balance=1.0)) / row["published"], 2) == 1.19
    assert estimate_report(row["scenario"])["serving"]["running"] == 480  # a rank holds its batch


def test_k2_unstated_settings_choose_nothing() -> None:
    """The output length (100, or the 176 the 2,176-token context leaves), the SGLang release's
    rules (0.4.3 or 0.4.9) and the prefill pool's layout move ours by under 1 %."""
    row = ROWS[0]
    base = per_node(row)
    longer = copy.deepcopy(row["scenario"])
    longer["workload"]["generated_tokens"] = 176
    tp8 = served(row, disaggregated={"prefill_gpus": 32, "decode_gpus": 96, "prefill_tensor": 8})
    for sc in (longer, served(row, engine_version="0.4.3"), tp8):
        assert per_node(row, sc) == pytest.approx(base, rel=0.01)


def test_counted() -> None:
    """One figure counted under the disaggregated speed evidence, within 25 % since two-batch
    overlap is staged as SGLang's decode strategy stages it (fast, 1.29, before)."""
    assert [(r["counted"], r["within"]) for r in ROWS] == [(True, True)]
