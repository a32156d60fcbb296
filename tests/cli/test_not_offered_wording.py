"""The line under ``compare``'s table is worded by what the row is (io/unmet_text.py): a row the
table ranks with a layout that misses a target reads ``Ranked #N, short of a target (GPU)``, an
unpriced one ``Ranked #N, unpriced (GPU)``; "Not offered" is left to rows with no layout. A buyer
read "Not offered" under the Mac case's #1 row (docs/evidence/rl.md, the buyer round on this
wording). The JSON fields (``unmet``, ``unmet_reason``) are unchanged: only the printed words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.io.compare_table import not_offered_line
from gpusizer.io.unmet_text import unmet_head

DATA = Path(__file__).parent / "data" / "buyer"
MAC = str(DATA / "local-gpt-oss-120b-mac-llamacpp-4-users.gpusizer.json")
LLAMA = str(DATA / "serve-llama-8b-apple-amd.gpusizer.json")
PRETRAIN = str(DATA / "pretrain-7b-1t-30days.gpusizer.json")
PREFIX = str(DATA / "serve-llama-3.3-70b-fp8-500-prefix.gpusizer.json")


def _row(**kw: Any) -> dict[str, Any]:
    return {"gpu": "g", "unmet": "targets", "unmet_reason": "why", "fits": True, "rank": 3} | kw


def test_heads_by_what_the_row_is() -> None:
    assert unmet_head(_row()) == "Ranked #3, short of a target (g)"
    assert unmet_head(_row(unmet="practical_limit")) == "Ranked #3, short of a target (g)"
    assert unmet_head(_row(unmet="no_price")) == "Ranked #3, unpriced (g)"
    assert unmet_head(_row(rank=None)) == "Ranked, short of a target (g)"
    for cause in ("memory", "context_limit", "practical_limit", "targets"):
        # no layout: nothing offered, the words as before
        assert unmet_head(_row(unmet=cause, fits=False)) == f"Not offered (g, {cause})"
        assert unmet_head(_row(unmet=cause, fits=False), named=False) == f"Not offered ({cause})"
    assert unmet_head(_row(), named=False) == "Ranked #3, short of a target"
    assert not_offered_line(_row(rank=12_000)) == "Ranked #12,000, short of a target (g): why"


def _lines(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    assert main(["compare", *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_the_mac_cases_first_row_is_ranked_not_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """gpt-oss-120b MXFP4, llama.cpp, 4 users of 8K prompts: the M3 Ultra 512 GB is #1, Targets
    yes, and misses only the default 2 s first token (23.51 s at this commit's estimate)."""
    out = _lines(capsys, MAC, "--gpus", "apple-m3-ultra-512gb", "apple-m4-max-128gb")
    assert not [x for x in out if x.startswith("Not offered")]
    first = next(x for x in out if x.startswith("Ranked #1, short of a target (apple-m3-ultra-512gb): "))
    assert "misses the default target (first token within 2 s" in first
    assert any(x.startswith("Ranked #2, short of a target (apple-m4-max-128gb): ") for x in out)


def test_unpriced_rows_say_so(capsys: pytest.CaptureFixture[str]) -> None:
    """Without the default level every Mac meets the case's targets but has no cloud price."""
    out = _lines(capsys, MAC, "--gpus", "apple-m4-max-128gb", "--no-default-target")
    line = next(x for x in out if x.startswith("Ranked #1, unpriced (apple-m4-max-128gb): "))
    assert "no on-demand cloud price for Apple M4 Max" in line


def test_a_missed_deadline_and_the_gpu_cap_rank_too(capsys: pytest.CaptureFixture[str]) -> None:
    """A 7B on 1T tokens in 30 days: 4 RTX 4090s take 3,649 days (``unmet`` practical_limit, a
    layout offered and ranked #2 under the H100s)."""
    out = _lines(capsys, PRETRAIN, "--gpus", "rtx-4090-24gb", "h100-sxm-80gb")
    line = next(x for x in out if x.startswith("Ranked #2, short of a target (rtx-4090-24gb): "))
    assert "over the 30-day deadline" in line and "consumer cards stop at 32" in line


def test_rows_with_no_layout_stay_not_offered(capsys: pytest.CaptureFixture[str]) -> None:
    """Llama 3.3 70B FP8 for 500 users on RTX 5070 12 GB: no count holds a replica at the
    engine's memory fraction (its Layout cell: does not fit), so its line keeps "Not offered"
    (tests/cli/test_buyer_review_round41.py pins its lever words)."""
    out = _lines(capsys, PREFIX, "--gpus", "rtx-5070-12gb", "h100-sxm-80gb")
    assert any(x.startswith("2 ") and "does not fit" in x for x in out)
    assert any(x.startswith("Not offered (rtx-5070-12gb, memory): nothing fits") for x in out)
    assert not [x for x in out if x.startswith("Ranked #")]


def test_the_json_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    """``unmet`` and ``unmet_reason`` as before (docs/scenario-format.md): only the words moved."""
    out = json.loads("\n".join(_lines(capsys, LLAMA, "--gpus", "rtx-3090-24gb", "--json")))
    rows = out["options"] if isinstance(out, dict) else out
    o = next(r for r in rows if r["gpu"] == "rtx-3090-24gb")
    assert o["unmet"] == "targets" and o["fits"] and o["rank"] == 1
    assert o["unmet_reason"].startswith("misses the default target (first token within 2 s")


def test_a_row_with_no_layout_that_misses_targets_does_not_say_it_does_not_fit() -> None:
    """Where one replica holds the model but no count meets the targets (``unmet`` "targets",
    ``fits`` false), the layout cell says so; "does not fit" is memory's word."""
    from gpusizer.io.compare_table import NOT_OFFERED, columns_for, table_rows

    serve = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
    option = {**gpusizer.compare_gpus(serve, gpus=["h100-sxm-80gb"])[0], "fits": False, "unmet": "targets"}
    columns = columns_for(False, True, False)
    row = table_rows([option], columns)[1]
    layout = row[[c.key for c in columns].index("layout")]
    assert layout == NOT_OFFERED["targets"] == "misses targets"
