"""Precision follows the checkpoint: a serving scenario that sets no ``precision.weights``
takes the model's ``checkpoint_precision``, states it in the echo and loads back the same;
training keeps its own (core/checkpoint.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict
from gpusizer.io.hf_config import import_hf_config

CONFIGS = Path(__file__).parents[1] / "io" / "configs"
GiB = 2**30


def _serve(preset: str, **precision: object) -> dict:
    s: dict = {
        "model": {"preset": preset},
        "workload": {"kind": "inference"},
        "hardware": {"gpu": "h200-141gb"},
    }
    if precision:
        s["precision"] = precision
    return s


@pytest.mark.parametrize("preset, gib", [("gpt-oss-120b", 60.8), ("gpt-oss-20b", 12.8)])
def test_gpt_oss_serves_as_released(preset: str, gib: float):
    # gpt-oss model card (OpenAI, arXiv 2508.10925, Table 1): checkpoint size 60.8 GiB and
    # 12.8 GiB, MXFP4 routed experts, everything else bf16. Rounded to 0.1 GiB: 0.5 %.
    s = parse_scenario(_serve(preset))
    assert (s.precision.weights, s.precision.quantization_rule) == ("mxfp4", "mxfp4-experts")
    assert estimate(s).memory.weights / GiB == pytest.approx(gib, rel=0.005)


def test_gpt_oss_120b_fits_one_80gb_gpu():
    # model card: "gpt-oss-120b ... fits into a single 80GB GPU" (H100 80GB); served by vLLM
    # with a 32k context (at bf16 the weights alone are 217.6 GiB)
    rep = estimate_report(
        {
            "model": {"preset": "gpt-oss-120b"},
            "framework": "vllm",
            "workload": {"kind": "inference", "prompt_tokens": 2048},
            "serving": {"max_context": 32768},
        }
    )
    assert rep["per_gpu"]["weights"] < 80e9 and rep["serving"]["starts"] and rep["fits"]


@pytest.mark.parametrize("preset", ["deepseek-v3", "deepseek-r1", "deepseek-v3.1", "kimi-k2"])
def test_fp8_releases_follow_their_quantization_config(preset: str):
    # each config.json's quantization_config: quant_method fp8, weight_block_size [128, 128]
    cfg = json.loads((CONFIGS / f"{preset}.json").read_text(encoding="utf-8"))
    assert cfg["quantization_config"]["weight_block_size"] == [128, 128]
    s = parse_scenario(_serve(preset))
    assert (s.precision.weights, s.precision.quantization_rule) == ("fp8", "fp8-block")
    assert import_hf_config(cfg)["checkpoint_precision"] == {
        "weights": "fp8",
        "quantization_rule": "fp8-block",
    }


def test_deepseek_v3_fp8_is_half_the_bf16_weights():
    fp8 = estimate(_serve("deepseek-v3")).memory.weights
    bf16 = estimate(_serve("deepseek-v3", weights="bf16")).memory.weights
    # Linear layers at 1 byte; embedding, LM head, norms and routers stay 2 bytes
    assert 0.5 < fp8 / bf16 < 0.51


def test_the_echo_states_it_and_loads_back_the_same():
    rep = estimate_report(_serve("gpt-oss-20b"))
    assert rep["scenario"]["precision"]["weights"] == "mxfp4"
    assert rep["scenario"]["model"]["checkpoint_precision"]["weights"] == "mxfp4"
    again = estimate_report(rep["scenario"])
    assert again["per_gpu"] == rep["per_gpu"]
    s = parse_scenario(_serve("gpt-oss-20b"))
    assert parse_scenario(scenario_dict(s)) == s


def test_what_the_scenario_sets_wins():
    assert parse_scenario(_serve("gpt-oss-20b", weights="bf16")).precision.weights == "bf16"
    s = parse_scenario(_serve("gpt-oss-20b", quantization_rule="llm-compressor"))
    assert (s.precision.weights, s.precision.quantization_rule) == ("mxfp4", "llm-compressor")


@pytest.mark.parametrize("kind", ["pretraining", "full_finetune", "lora", "qlora"])
def test_training_keeps_its_precision(kind: str):
    s = parse_scenario({"model": {"preset": "gpt-oss-20b"}, "workload": {"kind": kind}})
    assert s.precision.weights == "bf16" and s.precision.quantization_rule is None


def test_presets_without_a_quantised_release_are_unchanged():
    # Llama 4 Maverick's FP8 release is a separate repository: the preset stays bf16
    s = parse_scenario(_serve("llama-4-maverick"))
    assert s.model.checkpoint_precision is None and s.precision.weights == "bf16"


def test_modules_in_a_model_block_are_hashable_and_estimate():
    block = {
        "preset": "mixtral-8x7b",
        "checkpoint_precision": {
            "weights": "gguf_q4_k",
            "quantization_rule": "uniform",
            "modules": {"norms": "fp32", "lm_head": "gguf_q6_k"},
        },
    }
    rep = estimate_report({"model": block, "workload": {"kind": "inference"}})
    assert rep["scenario"]["precision"]["modules"] == {"norms": "fp32", "lm_head": "gguf_q6_k"}
    assert hash(parse_scenario(rep["scenario"]).model)


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"weights": "fp7"}, "model.checkpoint_precision.weights"),
        ({"weights": "fp8", "quantization_rule": "nope"}, "model.checkpoint_precision"),
        ({"weights": "fp8", "modules": {"heads": "fp8"}}, "model.checkpoint_precision.modules"),
        ({"weights": "fp8", "extra": 1}, "model.checkpoint_precision.extra"),
    ],
)
def test_a_bad_checkpoint_precision_names_the_field(bad: dict, field: str):
    with pytest.raises(ScenarioError) as err:
        parse_scenario({"model": {"preset": "gpt-2", "checkpoint_precision": bad}})
    assert err.value.field.startswith(field)
