"""The training loop that holds its fp32 logits through backward (``workload.loss:
"full_logits_held"``, core/memory/loss.py, core/registry/loss_kinds.py).

Source: pytorch/torchtune v0.2.1 ``torchtune/modules/transformer.py`` (``self.output(h).float()``)
and the recipes ``full_finetune_single_device.py``, ``full_finetune_distributed.py``,
``lora_finetune_single_device.py`` (``logits = logits[..., :-1, :].contiguous()`` is passed to
``nn.CrossEntropyLoss`` and still referenced while ``loss.backward()`` runs); torchtune PRs #1046
and #1235 added ``del logits`` before backward ("free logits otherwise it peaks backward
memory"). Published figure: torchtune PR #961, 20.2 GB peak allocated for Llama 2 7B full
finetuning at batch 4 x 2048 forced (7B_full_low_memory.yaml), held-out record
``torchtune-pr961|llama-2-7b|full|forced-2048`` (tests/core/data/training-heldout.json).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report

HELDOUT = json.loads((Path(__file__).parent / "data" / "training-heldout.json").read_text())
T, V = 4 * 2048, 32000  # Llama 2 7B at batch 4 x 2048: tokens, vocabulary


def _scenario(loss: str) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-2-7b"},
        "framework": "torchtune",
        "workload": {"kind": "full_finetune", "micro_batch_size": 4, "sequence_length": 2048, "loss": loss},
        "hardware": {"gpu": "a100-sxm-80gb"},
    }


def test_the_held_fp32_logits_are_four_bytes_a_logit_through_backward() -> None:
    # the loop's shifted fp32 copy (4·T·V) beside full's saved log-softmax; the backward's
    # transient (nll and log-softmax gradients, 8·T·V) is full's
    full = estimate_report(_scenario("full"))
    held = estimate_report(_scenario("full_logits_held"))
    assert held["per_gpu"]["activations"] - full["per_gpu"]["activations"] == 4 * T * V
    assert held["per_gpu"]["temporary"] == full["per_gpu"]["temporary"]
    assert held["peak_phase"] == full["peak_phase"] == "backward"
    assert any("holds its fp32 logits through backward" in line for line in held["assumptions"])
    assert not any("holds its fp32 logits" in line for line in full["assumptions"])


def test_pr961_single_gpu_full_finetune_peak() -> None:
    # torchtune PR #961: 20.2 GB peak allocated (reserved similar), 7B_full_low_memory.yaml at
    # batch_size 4, inputs forced to 2048 tokens; tolerance 5 %
    rec = next(r for r in HELDOUT["records"] if r["id"] == "torchtune-pr961|llama-2-7b|full|forced-2048")
    assert rec["recipe_scenario"]["workload"]["loss"] == "full_logits_held"
    total = estimate_report(rec["recipe_scenario"])["per_gpu"]["total"]
    assert total == pytest.approx(20.2e9, rel=0.05)


@pytest.mark.parametrize("bad", ["full_logits_hold", "", 3, None])
def test_a_bad_loss_names_the_field_and_the_held_kind(bad: Any) -> None:
    s = _scenario("full")
    s["workload"]["loss"] = bad
    with pytest.raises(ScenarioError, match=r"workload\.loss") as err:
        estimate_report(s)
    if isinstance(bad, str) and bad:
        assert "full_logits_held" in str(err.value)
