"""Megatron-LM's vocabulary-parallel cross entropy works in place (core/memory/megatron_loss.py).

Source: NVIDIA/Megatron-LM@93ebf8d7 ``megatron/core/tensor_parallel/cross_entropy.py``: the
forward's fp32 copy of the logits becomes the saved softmax (``-=``, ``torch.exp(out=)``,
``div_``), the backward takes ``grad_input = softmax`` and ``mul_``-s it in place, and autograd
casts the fp32 gradient back to the 16-bit logits. So the loss holds, beside its saved 4 B per
logit, the 16-bit logits in the forward and their 2 B gradient in the backward, no new 4 B one.
Figures: Megatron-LM's functional-test goldens (tests/core/data/training-peaks-blind9.json,
"mem-max-allocated-bytes", the last rank's ``allocated_bytes.all.peak``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.megatron_loss import vocab_parallel_transients
from gpusizer.core.memory.techniques import logit_bytes
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.sharding import stage_params
from gpusizer.core.pipeline.scenario import parse_scenario

DATA = json.loads((Path(__file__).parent / "data" / "training-peaks-blind9.json").read_text())
RECORDS = {r["id"]: r for r in DATA["records"]}
FULL_RECOMPUTE = "megatron-functional|gpt3-126m|full-recompute|8xh100"
UNFUSED = "megatron-functional|gpt3-126m|dist-optimizer-unfused|8xh100"


def _transients(scenario: dict[str, Any]) -> tuple[float, float]:
    s = parse_scenario(scenario)
    arch, counts = resolve(s.model), count_parameters(s.model)
    p = s.parallelism
    sp = stage_params(counts, arch, p.tensor, p.pipeline, 1.0, True)  # dense: no expert shards
    return logit_bytes(s, arch, sp, 0.0)


def test_the_cast_is_the_logits_bytes_and_none_for_fp32_logits() -> None:
    # 16-bit logits: 2 B per local logit each way; fp32 logits: ``.float()`` returns the same
    # tensor and the gradient needs no cast (exact)
    assert vocab_parallel_transients(4096, 50304, 2.0) == (2 * 4096 * 50304, 2 * 4096 * 50304)
    assert vocab_parallel_transients(4096, 50304, 4.0) == (0.0, 0.0)


def test_the_126m_golden_holds_two_bytes_per_logit_beside_the_softmax() -> None:
    # micro-batch 4 x 1024 tokens, GPT-2 vocabulary padded to 50304, TP 1: T·V = 206,045,184;
    # the forward's bf16 logits and the backward's bf16 gradient, 2 B each (exact)
    tv = 4 * 1024 * 50304
    assert _transients(RECORDS[FULL_RECOMPUTE]["recipe_scenario"]) == (2.0 * tv, 2.0 * tv)


@pytest.mark.parametrize(
    ("rid", "ratio"),
    [
        # Megatron-LM@93ebf8d7 gpt3_mcore_te_tp1_pp1_resume_torch_dist_uniform_full_recompute,
        # 2,561,334,272 B: 1.118 with a new fp32 gradient, 0.957 with the in-place one
        (FULL_RECOMPUTE, 0.957),
        # gpt3_mcore_te_tp1_pp1_dist_optimizer_no_mmap_bin_files, 4,702,430,720 B: 1.065 -> 0.977
        (UNFUSED, 0.977),
        # gpt3_7b_tp1_pp4_memory_speed (@6e091e1b68 H100, @adc69dba2d A100), the last stage:
        # 1.026 / 1.030 -> 0.990 / 0.994
        ("megatron-functional|gpt3-7b|tp1-pp4-vpp8|8xh100", 0.990),
        ("megatron-functional|gpt3-7b|tp1-pp4-vpp8|8xa100", 0.994),
        # gpt3_7b_tp4_pp1_memory_speed: 1.009 / 0.991 -> 0.990 / 0.973
        ("megatron-functional|gpt3-7b|tp4-pp1|8xh100", 0.990),
        ("megatron-functional|gpt3-7b|tp4-pp1|8xa100", 0.973),
    ],
)
def test_the_goldens_replay_with_the_in_place_backward(rid: str, ratio: float) -> None:
    # estimate / published bytes, tolerance 0.005 on the ratio
    rec = RECORDS[rid]
    est = estimate_report(rec["recipe_scenario"])["per_gpu"]["total"]
    assert est / rec["figure_bytes"] == pytest.approx(ratio, abs=0.005)


def test_another_named_loss_keeps_its_own_transients() -> None:
    # Transformer Engine's fused loss (``lse_16bit_inplace``: the gradient written over the
    # kept 16-bit logits) is not Megatron's default path: no transient either way (exact)
    sc = json.loads(json.dumps(RECORDS[FULL_RECOMPUTE]["recipe_scenario"]))
    sc["workload"]["loss"] = "lse_16bit_inplace"
    assert _transients(sc) == (0.0, 0.0)


def test_profiles_without_the_vocabulary_parallel_loss_do_not_move() -> None:
    # torchtitan's layout prices ``workload.loss`` (transformers' full loss by default: the
    # 16-bit logits and their fp32 upcast forward, 8 B per logit backward), not this rule
    sc = json.loads(json.dumps(RECORDS[FULL_RECOMPUTE]["recipe_scenario"]))
    sc["framework"] = "torchtitan"
    sc["parallelism"] = {"data": 8, "recompute": "full"}
    tv = 4 * 1024 * 50304
    fwd, bwd = _transients(sc)
    assert bwd == 8.0 * tv and fwd >= 6.0 * tv
