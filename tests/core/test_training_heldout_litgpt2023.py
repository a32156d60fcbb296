"""The seventh blind round: Lit-GPT's 2023-10 resource tables (tests/core/data/training-heldout.json).

Twelve LoRA / QLoRA runs of Lightning-AI/litgpt@0cc02afa (2023-10-27) tutorials/resource-tables.md
("Max GPU RAM") and tutorials/finetune_lora.md ("Training Memory"), both run at Lit-GPT 8641822 on
A100-SXM4-40GB with PyTorch 2.1.0 and Lightning 2.1.0.rc0: ``finetune/lora.py`` prints
``torch.cuda.max_memory_allocated() / 1e9`` after training (rank 0 under FSDP). Llama 2 7B / 13B
under Fabric ``bf16-true`` on one GPU (none, ``bnb.nf4``, ``bnb.nf4-dq``) and under
``FSDPStrategy`` on 2 and 4 GPUs; StableLM 3B Alpha under ``bf16-mixed`` (Lightning's default on an
A100: fp32 weights under autocast) and ``bf16-true``. The shape is exact: ``get_batch`` forces the
training set's longest sample into the first iteration (Llama 2: 1304 tokens, StableLM: 1034, as
the page states). Blind: 9 of 12 within 15 %; the misses are the three FSDP rows, 12 of 12 once
they replay FSDP1's ``no_sync()`` accumulation over the step's 128 // micro_batch micro-batches
(``parallelism.fsdp_no_sync``, core/memory/fsdp_no_sync.py: each LoRA Block unit's whole bf16
gradient kept unsharded until the sync).
Tolerance: 15 % for the count, the pinned ratios to 0.005 (estimate / published, bytes / bytes).
"""

from __future__ import annotations

import pytest

from tests.core.blind_replay import peak_ratio as _ratio
from tests.core.test_training_heldout import RECORDS, TOLERANCE

ROUND = [r for r in RECORDS if r["id"].startswith("litgpt-2023|")]
FSDP = [r for r in ROUND if "fsdp" in r["id"]]


def test_the_round_is_twelve_runs_nine_within_15_percent_blind() -> None:
    # blind: the single-GPU Llama 2 rows 0.930-1.025, StableLM bf16-mixed 0.882, bf16-true 0.961;
    # the FSDP rows 0.369 (7B, 2 GPUs, mb 1), 0.428 (mb 4), 0.242 (13B, 4 GPUs)
    assert len(ROUND) == 12
    assert sum(abs(r.get("ratio_blind", r["ratio_at_record"]) - 1) <= TOLERANCE for r in ROUND) == 9
    assert [r["id"] for r in ROUND if abs(r.get("ratio_blind", r["ratio_at_record"]) - 1) > TOLERANCE] == [
        r["id"] for r in FSDP
    ]


def test_each_figure_is_lit_gpts_max_memory_allocated_in_gb() -> None:
    # finetune/lora.py@8641822: f"Memory used: {torch.cuda.max_memory_allocated() / 1e9:.02f} GB"
    for rec in ROUND:
        assert rec["figure"]["unit"] == "GB" and "max_memory_allocated" in rec["figure"]["what"]
        assert f"{rec['figure']['value']:.2f} GB" in rec["source"]["quoted"]
        assert rec["recipe_scenario"]["overhead"]["cuda_context_bytes"] == 0  # allocated: no context


def test_the_fsdp_rows_replay_no_sync_accumulation() -> None:
    # finetune/lora.py@8641822: fabric.no_backward_sync(model, enabled=is_accumulating), FSDP's
    # no_sync(); blind 0.369 / 0.428 / 0.242 -> 0.953 / 0.982 / 0.955; 0.950 / 0.971 / 0.955 since
    # the first step alone is read at the longest sample (workload.first_step_longest: the last
    # step's logits are no longer held beside a second step of that shape)
    for rec, blind, after in zip(FSDP, (0.369, 0.428, 0.242), (0.950, 0.971, 0.955), strict=True):
        assert rec["recipe_scenario"]["parallelism"]["fsdp_no_sync"] is True
        assert rec["ratio_blind"] == pytest.approx(blind, abs=0.005)
        assert _ratio(rec) == pytest.approx(after, abs=0.005)
    assert sum(abs(_ratio(r) - 1) <= TOLERANCE for r in ROUND) == 12


def test_the_rows_read_the_first_step_alone_at_the_longest_sample() -> None:
    # finetune/lora.py@8641822: get_batch(..., longest_seq_ix if iter_num == 0): step 0 holds no
    # earlier step, the later steps are random rows, so nothing of the last step is added
    # (core/memory/last_step.py). The QLoRA rows lose the held 4-bit inputs: 1.024 -> 0.907 (7B
    # nf4), 0.904 (nf4-dq), 0.914 / 0.911 (13B); the others only the held logits (<= 0.012)
    moved = {r["id"].split("|", 1)[1]: (r["ratio_blind"], _ratio(r)) for r in ROUND if "fsdp" not in r["id"]}
    assert all(r["recipe_scenario"]["workload"]["first_step_longest"] is True for r in ROUND)
    for key, (before, after) in moved.items():
        drop = 0.13 if "qlora" in key else 0.012
        assert 0 <= before - after <= drop, (key, before, after)
        assert abs(after - 1) <= TOLERANCE, key
