"""bitsandbytes when transformers serves (core/memory/bnb_inference.py; bitsandbytes 0.49.2
``autograd/_functions.py`` ``matmul_4bit`` / ``MatMul4Bit`` / ``MatMul8bitLt``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report

H, FFN = 4096, 14336  # Llama 3.1 8B


def _serve(weights: str, rule: str | None, prompt: int = 2048) -> dict[str, Any]:
    return estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "huggingface",
            "workload": {
                "kind": "inference",
                "prompt_tokens": prompt,
                "generated_tokens": 128,
                "batch_size": 1,
            },
            "precision": {"weights": weights, "quantization_rule": rule},
        }
    )["per_gpu"]


def test_4bit_prefill_dequantises_the_largest_layer_matrix() -> None:
    # MatMul4Bit: dequantize_4bit(B) of the 14,336 x 4,096 MLP matrix in bf16 (117 MB) beside
    # the MLP's intermediates; the same weights under a non-bitsandbytes rule have none
    bnb, other = _serve("nf4", None), _serve("nf4", "gptq-awq")
    assert bnb["activations"] - other["activations"] == pytest.approx(2 * FFN * H, rel=1e-6)


def test_llm_int8_keeps_its_input_copies_and_int32_product() -> None:
    # MatMul8bitLt: the fp16 and int8 copies of the 4,096-wide input and the 14,336-wide int32
    # product, per prompt token; int8 under llm-compressor's rule (W8A8 engines) has none
    for prompt in (512, 2048):
        bnb, other = _serve("int8", "bitsandbytes", prompt), _serve("int8", None, prompt)
        extra = prompt * (3 * H + 4 * FFN)
        assert bnb["activations"] - other["activations"] == pytest.approx(extra, rel=1e-6)
