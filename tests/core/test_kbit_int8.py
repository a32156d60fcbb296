"""PEFT's ``prepare_model_for_kbit_training`` over an 8-bit LoRA base (``workload.kbit_prepare``
with ``precision.weights: "int8"``, core/memory/peft.py ``kbit_prepared``).

Source: huggingface/peft v0.4.0 ``src/peft/utils/other.py`` ``prepare_model_for_kbit_training``:
"cast all non INT8 parameters to fp32" (every fp16 / bf16 parameter; bitsandbytes' ``Int8Params``
of ``load_in_8bit`` are int8 and stay). axolotl-ai-cloud/axolotl dc71d8872
``src/axolotl/utils/models.py`` calls it for ``adapter: lora`` over ``load_in_8bit`` as for QLoRA,
and casts nothing back unless ``flash_attention`` is set. So an LLM.int8 base trains with the
embedding, norms and LM head in fp32 and an fp32 residual stream, as the QLoRA rule already
prices (tests/core/test_peft_measured.py measures it on NF4).
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report

LLAMA2_7B_OTHER = 2 * 32000 * 4096 + (2 * 32 + 1) * 4096  # embedding, LM head, norms (params)


def _per_gpu(weights: str, kbit: Any, kind: str = "lora") -> dict[str, Any]:
    sc = {
        "model": {"preset": "llama-2-7b"},
        "workload": {"kind": kind, "micro_batch_size": 2, "sequence_length": 4096, "kbit_prepare": kbit},
        "precision": {"weights": weights},
        "parallelism": {"recompute": "full", "attention": "flash"},
        "hardware": {"gpu": "rtx-4090-24gb"},
    }
    return estimate_report(sc)["per_gpu"]


def test_an_int8_base_keeps_its_16_bit_parameters_in_fp32() -> None:
    # peft v0.4.0 other.py: the 16-bit embedding, norms and LM head become fp32, 2 B more a
    # parameter; the int8 matrices stay (Int8Params dtype int8). Exact: bytes of a counted rule.
    on, off = _per_gpu("int8", True), _per_gpu("int8", False)
    assert on["weights"] - off["weights"] == pytest.approx(2 * LLAMA2_7B_OTHER, abs=1)
    # the fp32 embedding makes the residual stream, the checkpoints and the logits fp32
    assert on["activations"] > 1.5 * off["activations"]


def test_a_16_bit_lora_base_ignores_the_field() -> None:
    # the field applies to a base held below 16 bits; a bf16 LoRA stays byte-identical
    assert _per_gpu("bf16", True) == _per_gpu("bf16", False)


def test_qlora_is_unchanged_by_the_int8_rule() -> None:
    # the QLoRA kinds' rule as before (tests/core/test_peft_measured.py, measured on NF4)
    on, off = _per_gpu("bf16", True, "qlora"), _per_gpu("bf16", False, "qlora")
    assert on["weights"] - off["weights"] == pytest.approx(2 * LLAMA2_7B_OTHER, abs=1)


@pytest.mark.parametrize("bad", ["maybe", 2, [True]])
def test_a_bad_kbit_prepare_names_the_field(bad: Any) -> None:
    with pytest.raises(ScenarioError) as err:
        _per_gpu("int8", bad)
    assert err.value.field == "workload.kbit_prepare"
