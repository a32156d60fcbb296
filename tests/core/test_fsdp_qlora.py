"""FSDP / ZeRO-3 QLoRA as transformers loads it (core/memory/fsdp_qlora.py).

Sources: huggingface/transformers modeling_utils.py ``_load_state_dict_into_meta_model`` (PR
#29587, transformers >= 4.39): each matrix is quantised on the GPU and only its packed data moves
to the CPU (``type(value)(value.data.to(param_to), **value.__dict__)``); bitsandbytes 0.43.0
nn/modules.py ``Params4bit._quantize`` keeps the ``QuantState`` beside it and on the module. So
every GPU keeps the whole model's absmax and second-level scales: 8/64 + 32/(64 x 256) bits a
NF4 weight (QLoRA arXiv 2305.14314 §3). Exact byte counts: the formula on the preset's counts.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report

# Llama 2 70B: 80 layers x (2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28672) quantised weights
LLAMA2_70B_MATRICES = 80 * (2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672)
NF4_SCALE_BYTES = (8 / 64 + 32 / (64 * 256)) / 8  # per weight, beyond the 4-bit code
EMBED_AND_HEAD = 2 * 32000 * 8192  # untied, both bf16 under the bitsandbytes rule

BASE: dict[str, Any] = {
    "model": {"preset": "llama-2-70b"},
    "framework": "huggingface",
    "workload": {"kind": "qlora", "micro_batch_size": 1, "sequence_length": 512, "lora_rank": 8},
    "precision": {"weights": "nf4"},
    "parallelism": {"data": 2, "zero_stage": 3, "recompute": "full"},
    "hardware": {"gpu": "a100-sxm-80gb"},
}


def _per_gpu(precision: dict[str, Any] | None = None, **par: Any) -> dict[str, Any]:
    s = copy.deepcopy(BASE)
    s["precision"].update(precision or {})
    s["parallelism"].update(par)
    return estimate_report(s)["per_gpu"]


def test_the_quant_state_stays_whole_on_each_gpu_under_offload() -> None:
    # offloaded parameters leave only the quant state on the GPU: 1.0 GiB for Llama 2 70B
    off = _per_gpu({"bnb_4bit_quant_storage": "bf16"}, offload_parameters=True)
    assert off["weights"] == pytest.approx(LLAMA2_70B_MATRICES * NF4_SCALE_BYTES, rel=1e-9)
    assert off["weights"] / 2**30 == pytest.approx(1.0, abs=0.02)
    assert _per_gpu(offload_parameters=True)["weights"] == 0  # not stated: as before


def test_the_report_says_so() -> None:
    s = copy.deepcopy(BASE)
    s["precision"]["bnb_4bit_quant_storage"] = "bf16"
    said = [a for a in estimate_report(s)["assumptions"] if "quant state whole" in a]
    assert said == [
        "FSDP / ZeRO-3 QLoRA loading: bitsandbytes' quant state whole on each GPU, not sharded or offloaded"
    ]
    assert not [a for a in estimate_report(BASE)["assumptions"] if "quant state" in a]


def test_without_offload_the_quant_state_is_not_sharded() -> None:
    # over 2 ranks the estimate sharded half of it away; now each GPU keeps it all
    on, off = _per_gpu({"bnb_4bit_quant_storage": "bf16"}), _per_gpu()
    assert on["weights"] - off["weights"] == pytest.approx(
        LLAMA2_70B_MATRICES * NF4_SCALE_BYTES / 2, rel=1e-6
    )


def test_the_storage_dtype_moves_no_byte() -> None:
    # the packed 4-bit data costs the same in any storage dtype (bf16: 4 codes, fp32: 8)
    totals = {d: _per_gpu({"bnb_4bit_quant_storage": d})["total"] for d in ("uint8", "bf16", "fp16", "fp32")}
    assert len(set(totals.values())) == 1


def test_below_zero3_or_over_a_16_bit_base_the_field_changes_nothing() -> None:
    assert _per_gpu({"bnb_4bit_quant_storage": "bf16"}, zero_stage=2) == _per_gpu(zero_stage=2)
    lora = copy.deepcopy(BASE)
    lora["workload"]["kind"], lora["precision"]["weights"] = "lora", "bf16"
    stated = copy.deepcopy(lora)
    stated["precision"]["bnb_4bit_quant_storage"] = "bf16"
    assert estimate_report(stated)["per_gpu"] == estimate_report(lora)["per_gpu"]


def test_the_gathered_root_unit_holds_a_16_bit_embedding_and_head() -> None:
    # FSDP1's root unit (torch _runtime_utils _post_forward_reshard: the root is not resharded
    # after forward) over the bitsandbytes rule: embedding and LM head stay bf16, 2 B a weight
    stated = {"bnb_4bit_quant_storage": "bf16"}
    gathered = _per_gpu(stated, offload_parameters=True, root_unit_gathered=True)
    plain = _per_gpu(stated, offload_parameters=True)
    assert gathered["temporary"] - plain["temporary"] == pytest.approx(2 * EMBED_AND_HEAD, rel=1e-6)
    # not stated: the root priced as before (in the base's NF4 bytes, scales included)
    old = _per_gpu(offload_parameters=True, root_unit_gathered=True)["temporary"]
    nf4 = 0.5 + NF4_SCALE_BYTES
    assert old - _per_gpu(offload_parameters=True)["temporary"] == pytest.approx(
        nf4 * EMBED_AND_HEAD, rel=1e-6
    )


@pytest.mark.parametrize("bad", ["int4", "BF16", 16, ["bf16"]])
def test_a_bad_quant_storage_names_the_field(bad: Any) -> None:
    with pytest.raises(ScenarioError) as err:
        _per_gpu({"bnb_4bit_quant_storage": bad})
    assert err.value.field == "precision.bnb_4bit_quant_storage"
    if isinstance(bad, str):  # a string outside the table is refused naming the four
        assert "uint8, bf16, fp16, fp32" in str(err.value)
