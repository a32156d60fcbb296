"""A blind round of published speculative-decoding figures (2025) against serving.speculative
as it stands, untuned (tests/core/data/serving-features-blind.json; docs/evidence/serving.md,
the blind-round section at its end). Each row is replayed as its source states it; a row with
``within`` false is a pinned miss with its reason on the record, so a model that closes it
updates the evidence."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.serving.speculative import METHODS, expected_tokens

DATA = json.loads((Path(__file__).parent / "data" / "serving-features-blind.json").read_text())
TOL = 0.25  # the bar: a published figure within 25 %
SPEED = DATA["speculative"]
LENGTHS = DATA["acceptance"]


def _base(row: dict[str, Any]) -> dict[str, Any]:
    """One steady request of ``prompt`` + ``output`` tokens on the row's engine and GPUs."""
    return {
        "model": {"preset": row["model"]},
        "framework": row["framework"],
        "hardware": {"gpu": row["gpu"]},
        "parallelism": {"tensor": row["tp"]},
        "workload": {
            "kind": "inference",
            "prompt_tokens": row["prompt"],
            "generated_tokens": row["output"],
            "batch_size": 1,
        },
        "serving": {"concurrency": 1, "load": "steady"},
    }


def _speedup(row: dict[str, Any]) -> float:
    """Tokens/s with the row's proposer over tokens/s without it."""
    base = _base(row)
    spec = copy.deepcopy(base)
    spec["serving"]["speculative"] = row["spec"]
    a, b = (float(estimate_report(x)["serving"]["tokens_per_second"]) for x in (base, spec))
    return b / a


def _length(row: dict[str, Any]) -> float:
    """Leviathan et al.'s expected tokens a step at the method's default alpha and the row's k."""
    return expected_tokens(METHODS[row["method"]].acceptance, row["k"])


@pytest.mark.parametrize("row", [r for r in SPEED if r["within"]], ids=lambda r: r["id"])
def test_blind_speedup_within(row: dict[str, Any]) -> None:
    assert _speedup(row) == pytest.approx(row["published"], rel=TOL), row["source"]


@pytest.mark.parametrize(
    "row", [r for r in SPEED if not r["within"] and "reads" not in r], ids=lambda r: r["id"]
)
def test_blind_speedup_known_high(row: dict[str, Any]) -> None:
    """Ours reads faster than published by more than 25 % (the record's miss_reason: vLLM's
    EAGLE-3 draft step costs more than its bytes; SGLang's tree step more than its work)."""
    assert _speedup(row) > (1 + TOL) * row["published"], row["miss_reason"]


@pytest.mark.parametrize("row", [r for r in SPEED if r.get("reads") == "slow"], ids=lambda r: r["id"])
def test_blind_speedup_known_slow(row: dict[str, Any]) -> None:
    """Ours reads slower than published by more than 25 % (the record's miss_reason: EAGLE PR
    173's 64-token tree priced as SGLang runs it, with a chain's default acceptance)."""
    assert _speedup(row) < (1 - TOL) * row["published"], row["miss_reason"]


@pytest.mark.parametrize("row", [r for r in LENGTHS if r.get("within", True)], ids=lambda r: r["id"])
def test_blind_acceptance_length_within(row: dict[str, Any]) -> None:
    assert _length(row) == pytest.approx(row["published"], rel=TOL), row["source"]


@pytest.mark.parametrize("row", [r for r in LENGTHS if not r.get("within", True)], ids=lambda r: r["id"])
def test_blind_acceptance_length_tree_known_short(row: dict[str, Any]) -> None:
    assert _length(row) < (1 - TOL) * row["published"], row["miss_reason"]


# (within 25 %, rows) per kind: this round's verdict, docs/evidence/serving.md blind section;
# speedups 11 -> 10 with SGLang's draft tree priced (core/serving/spec_tree.py): EAGLE PR 173's
# tree, within as a chain (0.86), reads 0.63 with the tree's verify and a chain's acceptance
COUNTS = {"speedup": (10, 14), "acceptance": (12, 13)}

# each row's ours / published, pinned at 2 % so that a change to the estimator shows here
# (re-pinned with the EAGLE heads' own projections priced, core/serving/eagle_extra.py: each
# EAGLE row 0.3-2.6 % slower, none crossing the bar)
RATIOS = {
    "vllm-16937-eagle1-k2": 1.003,
    "vllm-16937-eagle1-k4": 0.999,
    "vllm-16937-eagle1-k7": 1.011,
    "vllm-16937-eagle3-k2": 1.221,
    "vllm-20780-eagle3-k4": 1.405,
    "vllm-20780-eagle3-k7": 1.518,
    "vllm-20780-eagle1-k3": 1.063,
    "vllm-20780-eagle1-k7": 1.082,
    "sglang-4716-llama-3.3-70b-eagle3-tp8": 1.498,  # 1.748 as a chain; the tree priced
    "sglang-docs-eagle3-llama-3.1-8b": 0.972,
    "sglang-docs-eagle2-llama-3.1-8b": 0.986,
    "eagle-211-qwen3-8b-h200": 1.173,
    "eagle-211-qwen3-30b-a3b-h200": 0.958,
    "eagle-173-sglang-llama-2-7b": 0.623,  # 0.860 as a chain; the tree priced
}


def test_blind_counts() -> None:
    rows = {"speedup": [(_speedup(r), r["published"]) for r in SPEED]}
    rows["acceptance"] = [(_length(r), r["published"]) for r in LENGTHS]
    for kind, (within, total) in COUNTS.items():
        hits = sum(abs(ours / pub - 1) <= TOL for ours, pub in rows[kind])
        assert (hits, len(rows[kind])) == (within, total), kind
    assert [r["within"] for r in SPEED].count(True) == COUNTS["speedup"][0]


@pytest.mark.parametrize("row", SPEED, ids=lambda r: r["id"])
def test_blind_speedup_ratio_pinned(row: dict[str, Any]) -> None:
    assert _speedup(row) / row["published"] == pytest.approx(RATIOS[row["id"]], rel=0.02), row["source"]


def test_blind_rows_carry_their_source() -> None:
    """Every row: a URL, a 2025-26 date and the quoted text; a miss names its reason."""
    for r in SPEED + LENGTHS:
        assert r["source"].startswith("https://") and r["date"].startswith(("2025", "2026")), r["id"]
        assert r["quote"], r["id"]
        assert r.get("within", True) or r["miss_reason"], r["id"]
