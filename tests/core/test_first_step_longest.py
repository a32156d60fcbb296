"""``workload.first_step_longest``: the stated shape is the first step's only (core/memory/last_step.py).

Lit-GPT's 2023 ``finetune/lora.py`` (Lightning-AI/litgpt 064fd52 and 8641822) forces the training
set's longest sample into step 0 (``get_batch(..., longest_seq_ix if iter_num == 0)``) and draws
the later batches at random; step 0 holds no earlier step, so what a loop keeps of its last step
through the next forward (its logits, bitsandbytes < 0.43.2's 4-bit layer inputs) is not added.
Figures: tests/core/test_training_blind14.py and test_training_heldout_litgpt2023.py.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import by_id, load

RECORDS = load("training-peaks-blind14.json")["records"]
QLORA = by_id(RECORDS, "litgpt-064fd52|stablelm-3b|qlora-nf4|bf16-true|mb4")["recipe_scenario"]


def _with(scenario: dict[str, Any], value: bool | None, framework: str | None = None) -> dict[str, Any]:
    sc = copy.deepcopy(scenario)
    sc["workload"].pop("first_step_longest", None)
    if value is not None:
        sc["workload"]["first_step_longest"] = value
    if framework:
        sc["framework"] = framework
    return sc


def _per_gpu(sc: dict[str, Any]) -> dict[str, Any]:
    return dict(estimate_report(sc)["per_gpu"])


def test_left_out_it_is_not_echoed_and_false_reads_the_same() -> None:
    plain = estimate_report(_with(QLORA, None))
    assert "first_step_longest" not in plain["scenario"]["workload"]  # the echo reads as before
    assert _per_gpu(_with(QLORA, False)) == dict(plain["per_gpu"])


def test_it_drops_the_held_last_step_only() -> None:
    # StableLM 3B, NF4 base, bitsandbytes 0.41: the held step is its 4-bit layers' inputs
    # (3.25 GB at 4 x 1034, the activations' own kept inputs) and its bf16 logits
    # (4 x 1034 x 50688 x 2 B = 0.419 GB), at most; the peak phase may change with it (the
    # forward's end held them), so the drop lies between the inputs and both; nothing else moves
    held, first = _per_gpu(_with(QLORA, None)), _per_gpu(_with(QLORA, True))
    newer = QLORA["precision"] | {"bitsandbytes_version": "0.43.2"}  # keeps no 4-bit input
    kept = estimate_report(_with(QLORA, None) | {"precision": newer})
    inputs = held["activations"] - kept["per_gpu"]["activations"]
    logits = 4 * 1034 * 50688 * 2
    assert inputs <= held["temporary"] - first["temporary"] <= inputs + logits
    assert inputs == pytest.approx(3.25e9, rel=0.01)
    assert {k: v for k, v in held.items() if k not in ("temporary", "total", "total_range")} == {
        k: v for k, v in first.items() if k not in ("temporary", "total", "total_range")
    }


def test_a_loop_that_holds_no_last_step_is_unchanged() -> None:
    # transformers' Trainer (framework huggingface) keeps no step's outputs by name: nothing to drop
    hf = _with(QLORA, None, "huggingface")
    assert _per_gpu(hf) == _per_gpu(_with(hf, True))
