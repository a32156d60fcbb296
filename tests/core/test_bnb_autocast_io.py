"""A bitsandbytes 4-bit base under Lightning's ``-mixed`` precision keeps and passes fp32
(core/memory/bnb_autocast_io.py; bitsandbytes/nn/modules.py@0.41.0 ``Linear4bit.forward``
``out.to(inp_dtype)``, Lit-GPT 064fd52's ``quantization()`` with no compute dtype).

Figures: Lit-GPT 064fd52 tutorials/finetune_lora.md, StableLM 3B NF4 at 4 x 1034 tokens, 22.34 GB
under bf16-mixed and 14.81 GB under bf16-true (tests/core/test_training_blind14.py).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.bnb_autocast_io import autocast_io_bytes
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.core.blind_replay import by_id, load

RECORDS = load("training-peaks-blind14.json")["records"]
MIXED = by_id(RECORDS, "litgpt-064fd52|stablelm-3b|qlora-nf4|bf16-mixed|mb4")["recipe_scenario"]
GB = 1e9


def _total(sc: dict[str, Any]) -> float:
    return float(estimate_report(sc)["per_gpu"]["total"])


def _activations(sc: dict[str, Any]) -> float:
    return float(estimate_report(sc)["per_gpu"]["activations"])


def _precision(**fields: Any) -> dict[str, Any]:
    sc = copy.deepcopy(MIXED)
    sc["precision"] = {k: v for k, v in {**sc["precision"], **fields}.items() if v is not None}
    return sc


def test_the_fp32_layers_account_for_the_published_mixed_minus_true() -> None:
    # per token and layer (h = 4096, 4 x 1034 tokens, 16 layers: h B = 0.271 GB): qkv and fc keep
    # fp32 inputs (+2h B each), the down projection's fp32 input (+8h B) when bitsandbytes keeps
    # inputs (< 0.43.2), GELU's fp32 input (+8h B), the norms' fp32 residual (+2h B) and, as for
    # any -mixed LoRA, the q / v adapters' dropout output in their fp32 dtype (+2h B): 24h B,
    # 6.50 GB; published bf16-mixed minus bf16-true 7.53 GB (the rest: Fabric leaves the
    # embedding and norms fp32, 0.42 GB, and the fp32 qkv output; not counted). Tolerance 0.05 GB
    mixed, true = _activations(MIXED), _activations(_precision(lightning="bf16-true"))
    assert (mixed - true) / GB == pytest.approx(24 * 4096 * 4 * 1034 * 16 / GB, abs=0.05)


def test_a_newer_bitsandbytes_keeps_no_input_but_still_passes_fp32() -> None:
    # 0.43.2 (ctx.tensors = (None, B)): the kept inputs go; GELU's fp32 input (8h B), the fp32
    # residual (2h B) and the adapters' fp32 dropout output (2h B) stay: 12h B, 3.25 GB
    newer = _precision(bitsandbytes_version="0.43.2")
    true_newer = _precision(lightning="bf16-true", bitsandbytes_version="0.43.2")
    extra = (_activations(newer) - _activations(true_newer)) / GB
    assert extra == pytest.approx(12 * 4096 * 4 * 1034 * 16 / GB, abs=0.05)


@pytest.mark.parametrize(
    "fields",
    [
        {"lightning": "bf16-true"},  # no autocast: the compute dtype throughout, as before
        {"weights": None, "bitsandbytes_version": None, "optimizer": None},  # no 4-bit base
        {"weights": "gptq_int4", "bitsandbytes_version": None, "optimizer": None},  # not bitsandbytes
    ],
)
def test_unchanged_without_a_bitsandbytes_base_under_autocast(fields: dict[str, Any]) -> None:
    # the rule's gate is closed, so the layer formulas read as before it (autocast_io 0: the
    # compute dtype's bytes; r = 4 only under autocast over fp32 weights)
    sc = _precision(**fields)
    if "weights" in fields and fields["weights"] is None:
        sc["workload"]["kind"] = "lora"
    assert autocast_io_bytes(parse_scenario(sc)) == 0.0
    assert autocast_io_bytes(parse_scenario(MIXED)) == 4.0
