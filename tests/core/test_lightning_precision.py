"""Lightning's ``precision=`` settings (``precision.lightning``; lightning 2.4
``fabric/connector.py`` ``_check_and_init_precision``, ``plugins/precision/{half,amp,fsdp,
transformer_engine}.py``; core/registry/lightning_precision.py) and LitGPT's QLoRA step
(Lightning's ``BitsandbytesPrecision``, bitsandbytes 0.42.0 ``MatMul4Bit``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.memory.training import stage_phases
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.scenario import parse_scenario

H, FFN, LAYERS, VOCAB = 4096, 14336, 32, 128256  # Llama 3.1 8B


def _report(setting: str, framework: str = "litgpt", kind: str = "full_finetune", **par: Any) -> Any:
    return estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": framework,
            "workload": {"kind": kind, "sequence_length": 1024, "micro_batch_size": 1},
            "precision": {"lightning": setting},
            "parallelism": par,
        }
    )


def test_bf16_mixed_is_fp32_weights_under_autocast() -> None:
    # MixedPrecision: fp32 weights, gradients and AdamW states; autocast keeps a bf16 copy of
    # each matmul weight for the backward (2 B per layer matrix parameter) and an fp32 residual
    # stream; HalfPrecision (bf16-true): everything bf16, no copies
    mixed, true = _report("bf16-mixed"), _report("bf16-true")
    assert mixed["scenario"]["precision"]["weights"] == "fp32"
    assert true["scenario"]["precision"]["optimizer_states"] == "bf16"
    assert mixed["per_gpu"]["weights"] == pytest.approx(2 * true["per_gpu"]["weights"], rel=1e-6)
    assert mixed["per_gpu"]["optimizer"] == pytest.approx(2 * true["per_gpu"]["optimizer"], rel=0.01)
    matrices = LAYERS * (2 * H * H + 2 * H * 1024 + 3 * H * FFN)
    assert mixed["per_gpu"]["activations"] - true["per_gpu"]["activations"] > 2 * matrices


def test_an_explicit_field_wins_over_the_setting() -> None:
    r = estimate_report(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "litgpt",
            "workload": {"kind": "full_finetune", "sequence_length": 1024, "micro_batch_size": 1},
            "precision": {"lightning": "bf16-true", "optimizer_states": "fp32"},
        }
    )
    assert r["scenario"]["precision"]["optimizer_states"] == "fp32"
    assert r["scenario"]["precision"]["weights"] == "bf16"


def test_fsdp_mixed_gathers_fp32_and_reduces_bf16() -> None:
    # FSDPPrecision.mixed_precision_config: bf16-mixed gathers each unit in fp32 (param_dtype)
    # and reduces in bf16; bf16-true gathers and reduces in bf16 (Llama 3.1 8B decoder layer:
    # 218,112,000 parameters, two gathered units and one unsharded gradient)
    mixed = _report("bf16-mixed", "fsdp", data=8, zero_stage=3)
    true = _report("bf16-true", "fsdp", data=8, zero_stage=3)
    mp = mixed["scenario"]["precision"]
    assert (mp["param_dtype"], mp["reduce_dtype"]) == ("fp32", "bf16")
    assert true["scenario"]["precision"]["param_dtype"] == "bf16"
    layer = 218_112_000
    # fp32-gathered units (2 x 4 B) against bf16 (2 x 2 B); both reduce in bf16
    assert mixed["per_gpu"]["temporary"] - true["per_gpu"]["temporary"] == pytest.approx(4 * layer, rel=0.02)


def test_transformer_engine_keeps_fp8_linear_inputs() -> None:
    # TransformerEnginePrecision(weights_dtype=bf16): FP8 matmuls; each Linear keeps its input
    # at 1 B (TE linear.py saves the quantized input for the wgrad GEMM): the shared q/k/v and
    # gate/up inputs and the down projection's (h + h + ffn per token and layer) 1 B less, the
    # o_proj's FP8 copy (h) 1 B more, beside the flash kernel's own 16-bit output
    te, true = _report("transformer-engine"), _report("bf16-true")
    assert te["scenario"]["precision"]["matmuls"] == "fp8"
    saved = LAYERS * 1024 * (2 * H + FFN - H)
    assert true["per_gpu"]["activations"] - te["per_gpu"]["activations"] == pytest.approx(saved, rel=0.01)


def test_unknown_setting_names_the_known_ones() -> None:
    with pytest.raises(ScenarioError, match="lightning") as err:
        _report("bf16")
    assert "bf16-mixed" in str(err.value) and "transformer-engine" in str(err.value)


def _qlora_phases(version: str) -> Any:
    s = parse_scenario(
        {
            "model": {"preset": "llama-2-7b"},
            "framework": "litgpt",
            "workload": {
                "kind": "qlora",
                "sequence_length": 512,
                "micro_batch_size": 2,
                "lora_targets": ["q", "v"],  # the config hub's (all: the adapters keep the inputs)
            },
            "precision": {"weights": "nf4_single", "bitsandbytes_version": version},
        }
    )
    return stage_phases(s, resolve(s.model), count_parameters(s.model), True)


def test_litgpt_qlora_head_is_4bit_and_dequantised_twice() -> None:
    # Lightning replaces every nn.Linear (LitGPT's ignore_modules is empty): the 32,000 x 4,096
    # head is 4-bit (0.5 B + one fp32 absmax per 64) beside the bf16 embedding; its matmul
    # holds the fp16 dequantised head and its bf16 cast at once (2 x 2 B x 131M), and the
    # last step's logits (2 x 512 x 32,000 x 2 B) sit in the forward
    ph = _qlora_phases("0.44.0")
    head = 32000 * 4096
    assert ph.temporaries["backward"] - ph.temporaries["forward"] < 0.2e9
    assert ph.temporaries["forward"] >= 2 * 2 * head + 2 * 512 * 32000 * 2


def test_litgpt_holds_the_last_steps_4bit_inputs_before_bnb_0_43_2() -> None:
    # LitGPT's fit holds last step's loss (and its graph) through the next forward; bitsandbytes
    # 0.42.0 MatMul4Bit keeps its input as ctx.tensors, which the backward does not free: the
    # last step's kept inputs come back in the forward phase, the same bytes the current step
    # keeps for them: per token and layer the MLP's 4,096-wide input (gate and up are frozen)
    # and the 11,008-wide down input in bf16; q and v have adapters, o_proj reads the flash
    # kernel's saved output
    old, new = _qlora_phases("0.42.0"), _qlora_phases("0.44.0")
    kept = old.activations - new.activations
    assert kept == pytest.approx(32 * 1024 * 2 * (4096 + 11008), rel=1e-6)
    assert old.temporaries["forward"] - new.temporaries["forward"] == pytest.approx(kept, rel=1e-9)
    assert old.temporaries["backward"] == new.temporaries["backward"]


def test_litgpt_takes_lightnings_rule_for_a_bitsandbytes_base() -> None:
    # the 32,000 x 4,096 head in NF4 with one fp32 absmax per 64 (0.5625 B) instead of bf16;
    # an explicit rule wins (transformers' bitsandbytes rule leaves the head 16-bit)
    def weights(rule: str | None) -> float:
        return estimate_report(
            {
                "model": {"preset": "llama-2-7b"},
                "framework": "litgpt",
                "workload": {"kind": "qlora", "sequence_length": 512, "micro_batch_size": 1},
                "precision": {"weights": "nf4_single", "quantization_rule": rule},
            }
        )["per_gpu"]["weights"]

    head = 32000 * 4096
    assert weights("bitsandbytes") - weights(None) == pytest.approx(head * (2 - 0.5625), rel=1e-3)
