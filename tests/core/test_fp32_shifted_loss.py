"""The in-place cross-entropy on transformers <= 4.45's fp32 shifted logits
(``workload.loss: "lse_fp32_shifted_inplace"``, core/memory/loss.py).

Sources: foundation-model-stack/fms-acceleration@733992a
``plugins/fused-ops-and-kernels/src/fms_acceleration_foak/kernels/unsloth/cross_entropy_loss.py``
``Fast_CrossEntropyLoss`` (``ctx.save_for_backward(logits, logsumexp, labels)``; the backward
stores the gradient into ``logits_ptr`` and returns ``logits``), put in place of
``torch.nn.CrossEntropyLoss`` by ``models/llama.py`` (rule ``llama-cross-ent``); transformers
4.45.2 (wheel) ``models/llama/modeling_llama.py`` ``LlamaForCausalLM.forward``: ``.float()`` of
the head's output, then ``logits[..., :-1, :].contiguous()``. The bytes are exact (4 B per kept
logit, 4 + 4 at the forward and at the backward): tolerance 1e-9 relative. The published peaks
they move are fms-acceleration's (tests/core/test_training_peaks_blind10.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.amp_outputs import returned_logits_fp32
from gpusizer.core.memory.loss import Logits, LossSetup, saved, transients
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.registry.loss_kinds import LOSS_KINDS

KIND = "lse_fp32_shifted_inplace"
RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "training-peaks-blind10.json").read_text()
)["records"]
T, V = 4 * 4096, 128256  # Llama 3 8B, 4 x 4096 packed


def _arch() -> Any:
    return resolve(parse_scenario({"model": {"preset": "llama-3.1-8b"}}).model)


def test_the_kernel_keeps_the_fp32_shifted_copy_and_an_lse() -> None:
    # 4 B a logit (the .contiguous() fp32 copy), 4 B a row of log-sum-exp, 8 B a label, at any p
    for p in (2.0, 4.0):
        kept = saved(_arch(), LossSetup.of(KIND), Logits(T, V, p), head_trainable=False)
        assert kept == pytest.approx(4 * T * V + 12 * T, rel=1e-9)


def test_the_unshifted_logits_and_slice_backwards_zeros_beside_it() -> None:
    # forward: the unshifted fp32 logits beside the copy; backward: the gradient written over the
    # copy, slice_backward's zero-filled fp32 gradient of the unshifted shape beside it
    fwd, bwd = transients(_arch(), LossSetup.of(KIND), Logits(T, V, 2.0), head_grad=0.0)
    assert (fwd, bwd) == (pytest.approx(4 * T * V, rel=1e-9), pytest.approx(4 * T * V, rel=1e-9))


def test_the_model_returns_fp32_so_accelerate_copies_nothing() -> None:
    # convert_to_fp32 converts only fp16 / bf16 tensors (docs/evidence/training.md section 39)
    kind = LOSS_KINDS[KIND]
    assert returned_logits_fp32(FRAMEWORKS["unsloth"], kind, 2, T, V) == 0.0


def test_8_bytes_a_logit_at_the_loss_where_the_default_holds_12() -> None:
    # fms-acceleration's Llama 3 8B LoRA on one A100, 4 x 4096: the estimate's peak at the loss
    rec = next(r for r in RECORDS if r["id"].endswith("lora|1xa100|4x4096|foak-fast-kernels"))
    sc = rec["recipe_scenario"]
    assert sc["workload"]["loss"] == KIND
    rep = estimate_report(sc)
    assert rep["peak_phase"] == "forward"
    assert rep["per_gpu"]["total"] / rec["figure_bytes"] == pytest.approx(0.999, abs=0.005)
    assert "fp32 shifted logits" in json.dumps(rep)


@pytest.mark.parametrize("rec", [r for r in RECORDS if r["recipe_scenario"]["workload"].get("loss") == KIND])
def test_without_the_field_each_record_answers_as_replayed_blind(rec: dict[str, Any]) -> None:
    # the default loss path is untouched: leaving the field out gives the blind ratio to 1e-5
    sc = json.loads(json.dumps(rec["recipe_scenario"]))
    del sc["workload"]["loss"]
    # the blind replay had neither field (parallelism.reentrant_checkpoint came later: its own test)
    sc["parallelism"].pop("reentrant_checkpoint", None)
    ratio = estimate_report(sc)["per_gpu"]["total"] / rec["figure_bytes"]
    assert ratio == pytest.approx(rec["ratio_blind"], abs=1e-5)


def test_an_unknown_loss_is_refused_naming_the_kinds() -> None:
    from gpusizer.core.errors import ScenarioError

    with pytest.raises(ScenarioError, match="lse_fp32_shifted_inplace"):
        parse_scenario(
            {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora", "loss": "fp32_shift"}}
        )
