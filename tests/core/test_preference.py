"""Preference fine-tuning (``workload.preference``, core/memory/preference.py): what one TRL
step runs, checked against the same estimate without the block, and the input the trainers
refuse.

Sources: huggingface/trl v0.24.0 ``trl/trainer/dpo_trainer.py`` (``concatenated_forward``:
chosen + rejected in one batch; ``compute_ref_log_probs`` under ``torch.no_grad()`` after the
policy's forward; ``create_reference_model`` unless a ``PeftModel`` or
``precompute_ref_log_probs``; precompute refused under ZeRO-3), ``trl/models/utils.py``
``prepare_deepspeed`` (the copy ZeRO-3 sharded at stage 3, else stage 0), ``kto_trainer.py``
(one completion per example; the KL batch under no_grad), ``orpo_trainer.py`` /
``cpo_trainer.py`` (no reference).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.memory.preference import LOGIT_BYTES, logit_bytes
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict

H100 = {"gpu": "h100-sxm-80gb"}


def _s(kind: str, pref: dict[str, Any] | None, mb: int = 1, **par: Any) -> dict[str, Any]:
    work: dict[str, Any] = {"kind": kind, "micro_batch_size": mb, "sequence_length": 2048}
    if pref is not None:
        work["preference"] = pref
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "deepspeed",
        "workload": work,
        "parallelism": {"recompute": "full", **par},
        "hardware": H100,
    }


def _refusal(s: dict[str, Any]) -> ScenarioError:
    with pytest.raises(ScenarioError) as err:
        estimate(s)
    assert "\n" not in str(err.value)
    return err.value


def test_no_block_echoes_as_before() -> None:
    # a scenario without the block: no "preference" key in the echo or the report
    s = _s("lora", None)
    assert "preference" not in scenario_dict(parse_scenario(s))["workload"]
    assert "preference" not in estimate_report(copy.deepcopy(s))


def test_reference_free_is_the_doubled_rows() -> None:
    # ORPO / SimPO: nothing but chosen + rejected in one forward (2 x pairs rows)
    for method in ("orpo", "simpo"):
        pref = estimate(_s("full_finetune", {"method": method}, 2, data=8, zero_stage=3))
        rows = estimate(_s("full_finetune", None, 4, data=8, zero_stage=3))
        assert pref.memory.total == rows.memory.total
        assert pref.compute.tokens_per_second_per_gpu == rows.compute.tokens_per_second_per_gpu


def test_precomputed_reference_costs_nothing_in_the_step() -> None:
    stated = {"method": "dpo", "reference": "precomputed"}
    pref = estimate(_s("full_finetune", stated, 2, data=8, zero_stage=2))
    rows = estimate(_s("full_finetune", None, 4, data=8, zero_stage=2))
    assert pref.memory.total == rows.memory.total
    assert pref.compute.flops_per_token == rows.compute.flops_per_token


def test_copy_holds_the_policys_weights_again() -> None:
    # create_reference_model: a deep copy at the policy's dtype; ZeRO-3 shards both alike,
    # ZeRO-2 keeps the copy whole on each GPU (prepare_deepspeed sets stage 0)
    for stage in (2, 3):
        pref = estimate(_s("full_finetune", {"method": "dpo"}, 1, data=8, zero_stage=stage))
        rows = estimate(_s("full_finetune", None, 2, data=8, zero_stage=stage))
        assert pref.memory.weights == 2 * rows.memory.weights


def test_adapter_off_adds_the_reference_logits_at_the_forward_end() -> None:
    # LoRA: the base with adapters off is the reference (no copy); its no-grad forward's
    # 16-bit logits for 2 x pairs rows, and one row's log-softmax, beside the policy's graph
    pairs = 2
    s = parse_scenario(_s("lora", {"method": "dpo"}, pairs))
    plain = parse_scenario(_s("lora", None, 2 * pairs))
    arch, counts = resolve(s.model), count_parameters(s.model)
    with_ref, without = stage_phases(s, arch, counts, True), stage_phases(plain, arch, counts, True)
    logits = LOGIT_BYTES * (2 * pairs + 1) * 2048 * arch.vocab
    assert with_ref.weights == without.weights
    assert with_ref.totals["forward"] - without.totals["forward"] == pytest.approx(logits)
    assert with_ref.totals["backward"] == without.totals["backward"]


def test_fp32_model_returns_fp32_logits() -> None:
    # no autocast over an fp32 model (TRL's quick start, trl issue #3168): 4 B a logit
    s = parse_scenario(
        {**_s("full_finetune", {"method": "dpo"}), "precision": {"weights": "fp32", "activations": "fp32"}}
    )
    assert logit_bytes(s) == 4.0
    assert logit_bytes(parse_scenario(_s("full_finetune", {"method": "dpo"}))) == LOGIT_BYTES == 2.0


def test_kto_reference_runs_its_two_batches_apart() -> None:
    # kto_trainer.py forward: the reference's KL batch and completion batch are two forwards,
    # one row an example each: the logits of one of them at the forward's end
    s = parse_scenario(_s("lora", {"method": "kto"}, 4))
    plain = parse_scenario(_s("lora", None, 4))
    arch, counts = resolve(s.model), count_parameters(s.model)
    with_ref, without = stage_phases(s, arch, counts, True), stage_phases(plain, arch, counts, True)
    logits = LOGIT_BYTES * (4 + 1) * 2048 * arch.vocab
    assert with_ref.totals["forward"] - without.totals["forward"] == pytest.approx(logits)


def test_reference_forward_adds_its_flops_and_time() -> None:
    # DPO: the reference's forward on the same rows (2N a token, attention too); KTO: the
    # reference on the completion and KL batches, and the policy's own KL batch (3 forwards a row)
    rows = estimate(_s("full_finetune", None, 4, data=8, zero_stage=3))
    dpo = estimate(_s("full_finetune", {"method": "dpo"}, 2, data=8, zero_stage=3))
    kto = estimate(_s("full_finetune", {"method": "kto"}, 4, data=8, zero_stage=3))
    base = rows.compute.flops_per_token
    assert dpo.compute.flops_per_token > base and kto.compute.flops_per_token > dpo.compute.flops_per_token
    # a full step is ~4 forwards with full recompute: the reference's is about a fifth more time
    ratio = rows.compute.tokens_per_second_per_gpu / dpo.compute.tokens_per_second_per_gpu
    assert 1.1 < ratio < 1.35


def test_report_block_and_assumption() -> None:
    rep = estimate_report(_s("lora", {"method": "dpo"}, 2))
    block = rep["preference"]
    assert block["reference"] == "adapter_off" and block["rows_per_micro_batch"] == 4
    assert block["no_grad_rows_per_example"] == 2 and not block["reference_weights_held"]
    assert any(a.startswith("DPO: 2 rows per example") for a in rep["assumptions"])


@pytest.mark.parametrize(
    ("pref", "kind", "par", "field", "words"),
    [
        ({"method": "dpx"}, "lora", {}, "workload.preference.method", "dpo, ipo, kto, orpo, simpo"),
        ({"method": 3}, "lora", {}, "workload.preference.method", "must be one of"),
        ({"method": "dpo", "reference": "frozen"}, "lora", {}, "workload.preference.reference", "copy"),
        ({"method": "orpo", "reference": "copy"}, "lora", {}, "workload.preference", "orpo keeps no"),
        ({"method": "simpo", "reference": "precomputed"}, "lora", {}, "workload.preference", "must be none"),
        (
            {"method": "dpo", "reference": "precomputed"},
            "full_finetune",
            {"data": 2, "zero_stage": 3},
            "workload.preference.reference",
            "ZeRO-3",
        ),
        ({"method": "dpo", "reference": "adapter_off"}, "full_finetune", {}, "workload", "lora or qlora"),
        ({"method": "dpo", "ref_model": "x"}, "lora", {}, "workload.preference.ref_model", "unknown field"),
        ({"reference": "copy"}, "lora", {}, "workload.preference.method", "required"),
        ({"method": "dpo"}, "inference", {}, "workload.preference", "applies to a fine-tune"),
        ("dpo", "lora", {}, "workload.preference", "object"),
    ],
)
def test_hostile_preference(pref: Any, kind: str, par: dict[str, Any], field: str, words: str) -> None:
    s = _s(kind, None, **par)
    s["workload"]["preference"] = pref
    err = _refusal(s)
    assert err.field == field and words in str(err), str(err)


def test_rl_kind_refused() -> None:
    s = _s("rl", {"method": "dpo"})
    err = _refusal(s)
    assert err.field == "workload.preference" and "not to kind rl" in str(err)


def test_the_kind_names_its_preference_method() -> None:
    # the window's summary, the chart title and the reports name the method beside the kind
    from gpusizer.core.model.specs import Scenario

    base = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}
    plain = Scenario.model_validate(base)
    dpo = Scenario.model_validate({**base, "workload": {"kind": "lora", "preference": {"method": "dpo"}}})
    assert plain.workload.label == plain.workload.info.label
    assert dpo.workload.label == f"{plain.workload.info.label}, DPO"
    assert dpo.workload.in_sentence.endswith(" DPO")
