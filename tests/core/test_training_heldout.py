"""Held-out published training-memory figures, replayed blind (tests/core/data/training-heldout.json).

The records were added after the estimator was written and it was not changed to fit them: each
is the scenario as its run states it (the record's ``recipe_scenario``), compared with the
published peak per GPU: torchtune v0.2.1 README's Llama 2 table (pytorch/torchtune@83557aa9 "Peak
Memory per GPU (GB)", GB = 1e9 B as torchtune/utils/memory.py ``get_memory_stats`` divides) and
PEFT's accelerate docs (huggingface/peft@5d602fdb docs/source/accelerate/deepspeed.md and
fsdp.md: Llama 2 70B LoRA / QLoRA under ZeRO-3 and FSDP, whole-process memory per GPU), and
torchtune PR #961 (the maintainers' re-measurement of the table's 1 x RTX 4090 full-finetune row
with every input forced to 2048 tokens: 20.2 GB peak allocated, not the table's 24.1). Tolerance:
15 % for a hit; a miss is pinned at its recorded estimate / published ratio (2 %) with its
``reason``, so a change that moves it shows here. Held-out result at recording: 2 of 11 within 15 %;
3 of 12 with the PR #961 figure; 4 of 12 once the v0.2.1 recipes' loops are replayed holding their
fp32 logits through backward (``workload.loss: "full_logits_held"``, tests/core/test_loss_held_logits.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report

DATA = json.loads((Path(__file__).parent / "data" / "training-heldout.json").read_text())
RECORDS: list[dict[str, Any]] = DATA["records"]
TOLERANCE = 0.15


def _ratio(rec: dict[str, Any]) -> float:
    """Estimate / published peak per GPU (bytes / bytes)."""
    return float(estimate_report(rec["recipe_scenario"])["per_gpu"]["total"]) / rec["figure_bytes"]


@pytest.mark.parametrize("rec", RECORDS, ids=lambda r: r["id"])
def test_heldout_figure(rec: dict[str, Any]) -> None:
    # Source: rec["source"]["url"], the row rec["source"]["quoted"]
    ratio = _ratio(rec)
    if rec["within_15"]:
        assert ratio == pytest.approx(1.0, abs=TOLERANCE), rec["source"]["url"]
    else:
        assert rec["reason"], "a miss states its mechanism or 'not traced'"
        assert ratio == pytest.approx(rec["ratio_at_record"], rel=0.02), rec["reason"]


def test_heldout_count() -> None:
    # 7 torchtune v0.2.1 rows, PR #961's re-measurement of one of them and 4 PEFT-docs figures:
    # 4 within 15 % (torchtune's single-GPU QLoRA -15 %, just inside, and LoRA -6 %, the PR #961
    # single-GPU full finetune at a forced 4 x 2048 -1 %, PEFT's ZeRO-3 LoRA of 70B on 8 GPUs -11 %)
    hits = [r["id"] for r in RECORDS if abs(_ratio(r) - 1) <= TOLERANCE]
    assert len(RECORDS) == 12
    assert hits == [
        "torchtune-readme-v0.2.1|llama-2-7b|qlora|rtx-4090",
        "torchtune-readme-v0.2.1|llama-2-7b|lora|rtx-4090",
        "torchtune-pr961|llama-2-7b|full|forced-2048",
        "peft-docs|llama-2-70b|lora|zero3|8x80gb",
    ]


def test_heldout_records_keep_their_source() -> None:
    # Every record: URL at a commit (or a pull request's number), the quoted row, the settings
    for rec in RECORDS:
        src = rec["source"]
        pin = src.get("commit") or f"/pull/{src['pull']}"
        assert pin in src["url"] and src["quoted"], rec["id"]
        assert rec["figure_bytes"] == round(rec["figure"]["value"] * 1e9), rec["id"]
