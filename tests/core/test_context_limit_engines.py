"""SGLang and TensorRT-LLM check a context past the model's length by their own rules
(core/registry/long_context.py, core/serving/context_limit.py; docs/evidence/serving.md, the
section on SGLang's and TensorRT-LLM's context-length rule)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.serving.context_limit import derived_context
from tests.cli.scenario_file import refused_by_api_and_cli

FIELD = "serving.max_context"
# Qwen's long-context recipe (Qwen3 README): rope_scaling added to config.json
YARN = {"rope_scaling_factor": 4.0, "rope_original_context": 32768}


def _qwen3(framework: str, model: dict[str, Any] | None = None, **serving: Any) -> dict[str, Any]:
    """Qwen3-8B (config.json max_position_embeddings 40,960) on one H100."""
    return {
        "model": {"preset": "qwen3-8b", **(model or {})},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
        "framework": framework,
        "hardware": {"gpu": "h100-sxm-80gb"},
        "serving": serving,
    }


def _refusal(s: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert err.value.field == FIELD
    msg = str(err.value)
    assert "\n" not in msg and "serving.allow_long_context" in msg
    return msg


def test_sglang_refuses_past_the_length_naming_its_switch() -> None:
    # sglang v0.5.4 model_config.py _derive_context_length: "User-specified context_length
    # (131072) is greater than the derived context_length (40960) ... To allow overriding this
    # maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
    msg = _refusal(_qwen3("sglang", max_context=131072))
    assert "131,072" in msg and "40,960" in msg and "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" in msg
    assert "SGLang refuses" in msg and "model_config.py" in msg


def test_sglang_keeps_the_configs_length_under_yarn() -> None:
    # hf_transformers_utils.py get_context_length (v0.5.4): a rope_scaling with
    # original_max_position_embeddings sets the factor to 1, so Qwen's YaRN recipe leaves
    # SGLang's derived length at 40,960 (vLLM's is 32,768 x 4 = 131,072)
    sglang, vllm = FRAMEWORKS["sglang"].long_context, FRAMEWORKS["vllm"].long_context
    model = parse_scenario(_qwen3("sglang", model=YARN)).model
    assert derived_context(model, sglang) == 40960 and derived_context(model, vllm) == 131072
    _refusal(_qwen3("sglang", model=YARN, max_context=131072))
    parse_scenario(_qwen3("vllm", model=YARN, max_context=131072))
    # a factor with no original length (linear, dynamic) multiplies max_position_embeddings
    linear = parse_scenario(_qwen3("sglang", model={"rope_scaling_factor": 2.0}, max_context=81920))
    assert derived_context(linear.model, sglang) == 81920


def test_sglang_takes_the_longer_length_with_its_switch() -> None:
    rep = estimate_report(_qwen3("sglang", max_context=131072, allow_long_context=True))
    assert rep["serving"]["max_context"] == 131072


def test_tensorrt_llm_1x_lowers_it_and_the_line_says_so() -> None:
    # TensorRT-LLM _torch/pyexecutor/model_engine.py _init_max_seq_len: "Specified
    # max_seq_len=131072 is larger than what the model can support (40960). Setting
    # max_seq_len to 40960." unless TLLM_ALLOW_LONG_MAX_MODEL_LEN=1
    msg = _refusal(_qwen3("tensorrt-llm", max_context=131072))
    assert "40,960" in msg and "TensorRT-LLM lowers max_seq_len to" in msg
    assert "TLLM_ALLOW_LONG_MAX_MODEL_LEN=1" in msg and "model_engine.py" in msg
    parse_scenario(_qwen3("tensorrt-llm", max_context=131072, allow_long_context=True))
    # YaRN is in _infer_max_seq_len_from_config's unscaled types: 40,960 as SGLang
    _refusal(_qwen3("tensorrt-llm", model=YARN, max_context=131072))


def test_tensorrt_llms_engine_build_takes_any_length() -> None:
    # builder.py _init_max_seq_len (v0.9 - v0.21): "max_seq_len ... is larger than
    # max_position_embeddings ... the model accuracy might be affected", built as stated
    for version in ("0.9.0", "0.19.0"):
        s = parse_scenario(_qwen3("tensorrt-llm", max_context=131072, engine_version=version))
        assert s.serving.max_context == 131072


def test_within_the_length_the_answer_is_unchanged() -> None:
    # the check refuses, never prices: at the native length the switch changes nothing
    for fw in ("sglang", "tensorrt-llm"):
        base = estimate_report(_qwen3(fw, max_context=40960))
        switched = estimate_report(_qwen3(fw, max_context=40960, allow_long_context=True))
        assert base["per_gpu"] == switched["per_gpu"] and base["serving"] == switched["serving"]


@pytest.mark.parametrize("framework", ["sglang", "tensorrt-llm"])
@pytest.mark.parametrize(
    ("serving", "field"),
    [
        ({"max_context": 40961}, FIELD),
        ({"max_context": 10**9}, FIELD),
        ({"allow_long_context": "1"}, "serving.allow_long_context"),
        (
            {"sglang_allow_overwrite_longer_context_len": True},
            "serving.sglang_allow_overwrite_longer_context_len",
        ),
        ({"tllm_allow_long_max_model_len": 1}, "serving.tllm_allow_long_max_model_len"),
        ({"json_model_override_args": "{}"}, "serving.json_model_override_args"),
        ({"max_seq_len": 8192}, "serving.max_seq_len"),
    ],
)
def test_hostile_input_names_the_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    framework: str,
    serving: dict[str, Any],
    field: str,
) -> None:
    refused_by_api_and_cli(tmp_path, capsys, _qwen3(framework, **serving), field)
