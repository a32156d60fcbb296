"""FSDP1's ``no_sync()`` accumulation (``parallelism.fsdp_no_sync``, core/memory/fsdp_no_sync.py).

Under FSDP1 a step's micro-batches before its last run in ``no_sync()`` (Lightning Fabric's
``no_backward_sync``: Lightning-AI/pytorch-lightning 71aed751 src/lightning/fabric/strategies/fsdp.py
``_FSDPBackwardSyncControl``), and each unit keeps its gradient unsharded until the sync (torch
distributed/fsdp/fully_sharded_data_parallel.py ``no_sync``: "FSDP will accumulate the full model
gradients (instead of gradient shards) until the eventual sync"). A LoRA unit that mixes frozen
and trainable parameters under ``use_orig_params`` takes a gradient of its whole flat parameter
(torch distributed/fsdp/_wrap_utils.py's warning, quoted in Lightning-AI/litgpt PR #1538).
Checked against Lit-GPT's FSDP rows of tutorials/resource-tables.md@0cc02afa (2 and 4 x A100,
``max_memory_allocated``), tolerance 15 %.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from tests.core.test_training_heldout import RECORDS

BY_ID = {r["id"]: r for r in RECORDS}
FSDP_7B = BY_ID["litgpt-2023|llama-2-7b|lora|2xa100-fsdp|mb1"]
STABLELM = BY_ID["litgpt-2023|stablelm-3b|lora|bf16-true|1xa100|mb1"]


def _total(sc: dict[str, Any]) -> float:
    return float(estimate_report(sc)["per_gpu"]["total"])


def _with(sc: dict[str, Any], **par: Any) -> dict[str, Any]:
    out = copy.deepcopy(sc)
    out["parallelism"] = {**out.get("parallelism", {}), **par}
    return out


def test_the_accumulated_gradient_is_every_layer_parameter_in_bf16() -> None:
    # Llama 2 7B: 32 layers x 202,383,360 parameters (q k v o 4 x 4096^2, MLP 3 x 4096 x 11008,
    # two norms) = 6,476,267,520, unsharded in bf16 (Fabric bf16-true); the frozen root unit
    # (embedding, head, final norm) takes none
    on, off = (
        _total(FSDP_7B["recipe_scenario"]),
        _total(_with(FSDP_7B["recipe_scenario"], fsdp_no_sync=False)),
    )
    assert on - off == pytest.approx(32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) * 2)


def test_one_micro_batch_a_step_has_no_no_sync() -> None:
    # no accumulation (global batch = micro batch x DP): every backward syncs
    sc = copy.deepcopy(FSDP_7B["recipe_scenario"])
    sc["workload"]["global_batch_size"] = 2
    assert _total(sc) == _total(_with(sc, fsdp_no_sync=False))


@pytest.mark.parametrize(("mb", "published_gb"), [(1, 12.75), (2, 12.94), (4, 13.45)])
def test_stablelm_3b_on_two_a100s(mb: int, published_gb: float) -> None:
    # Lightning-AI/litgpt@0cc02afa tutorials/resource-tables.md, 'Finetuning with LoRA on Multiple
    # GPUs': StableLM 3B Alpha on 2 x A100, micro-batch 1 / 2 / 4: 12.75 / 12.94 / 13.45 GB, more
    # than the single-GPU 9.69 GB; 0.39-0.47 without the accumulated gradient, 0.89-0.95 with it
    sc = _with(STABLELM["recipe_scenario"], data=2, zero_stage=3, recompute="full", fsdp_no_sync=True)
    sc["workload"].update(micro_batch_size=mb, global_batch_size=256)
    assert _total(sc) / (published_gb * 1e9) == pytest.approx(1.0, abs=0.15)


def test_false_is_the_blind_replay_and_left_out_is_the_stacks_default() -> None:
    # false: the estimate before the field existed (the blind replay); left out, Lit-GPT's stack
    # (Lightning Fabric's no_backward_sync, core/registry/no_sync.py) turns it on, as the record
    # states it (tests/core/test_no_sync_stacks.py covers the other stacks)
    sc = _with(FSDP_7B["recipe_scenario"], fsdp_no_sync=False)
    # the blind replay held the last step too (workload.first_step_longest came later)
    held = copy.deepcopy(sc)
    del held["workload"]["first_step_longest"]
    assert int(_total(held)) == FSDP_7B["estimate_bytes_blind"]
    del sc["parallelism"]["fsdp_no_sync"]
    assert _total(sc) == _total(FSDP_7B["recipe_scenario"])


@pytest.mark.parametrize(
    ("par", "match"),
    [
        ({"fsdp_no_sync": "yes"}, "valid boolean"),
        ({"fsdp_no_sync": 1}, "valid boolean"),
        ({"fsdp_no_sync": None}, "valid boolean"),
        ({"zero_stage": 2}, "zero_stage 3 with fsdp_version 1"),
        ({"fsdp_version": 2}, "zero_stage 3 with fsdp_version 1"),
    ],
)
def test_hostile_input_names_the_field(par: dict[str, Any], match: str) -> None:
    with pytest.raises(ScenarioError, match=match) as err:
        estimate_report(_with(FSDP_7B["recipe_scenario"], **par))
    assert err.value.field == "parallelism.fsdp_no_sync" and "\n" not in str(err.value)


def test_serving_refuses_it() -> None:
    sc = {
        "model": {"preset": "llama-2-7b"},
        "workload": {"kind": "inference"},
        "parallelism": {"fsdp_no_sync": True},
    }
    with pytest.raises(ScenarioError, match="false to serve"):
        estimate_report(sc)
