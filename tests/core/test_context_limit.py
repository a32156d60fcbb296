"""vLLM refuses a max_model_len past the model's length unless RoPE scaling stretches it or
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set (core/serving/context_limit.py; vllm-project/vllm
``vllm/config/model.py`` ``_get_and_verify_max_len``; docs/evidence/serving.md, the section on a
context past the model's length)."""

from __future__ import annotations

import json
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


def _qwen3(framework: str = "vllm", model: dict[str, Any] | None = None, **serving: Any) -> dict[str, Any]:
    """Qwen3-8B (config.json max_position_embeddings 40,960) on one H100."""
    return {
        "model": {"preset": "qwen3-8b", **(model or {})},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
        "framework": framework,
        "hardware": {"gpu": "h100-sxm-80gb"},
        "serving": serving,
    }


def test_past_the_native_length_is_refused_naming_the_ways_to_allow_it() -> None:
    # vLLM: "User-specified max_model_len (131072) is greater than the derived max_model_len
    # (max_position_embeddings=40960 ...). To allow overriding this maximum, set the env var
    # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_qwen3(max_context=131072))
    assert err.value.field == FIELD
    msg = str(err.value)
    assert "40,960" in msg and "model.rope_scaling_factor" in msg and "VLLM_ALLOW_LONG_MAX_MODEL_LEN" in msg
    assert "serving.allow_long_context" in msg and "\n" not in msg
    parse_scenario(_qwen3(max_context=40960))  # the native length itself runs
    parse_scenario(_qwen3())  # unset: the model's own, vLLM's default


def test_yarn_as_qwen_states_it_stretches_the_original_length() -> None:
    # Qwen3's long-context recipe: {"rope_type": "yarn", "factor": 4.0,
    # "original_max_position_embeddings": 32768}: vLLM derives 32,768 x 4 = 131,072
    yarn = {"rope_scaling_factor": 4.0, "rope_original_context": 32768}
    s = parse_scenario(_qwen3(model=yarn, max_context=131072))
    assert derived_context(s.model) == 131072
    with pytest.raises(ScenarioError, match="131,072"):
        parse_scenario(_qwen3(model=yarn, max_context=131073))
    # without the original length the factor stretches max_context: 40,960 x 4
    assert derived_context(parse_scenario(_qwen3(model={"rope_scaling_factor": 4.0})).model) == 163840


def test_vllms_default_context_is_the_scaled_length() -> None:
    # _get_and_verify_max_len: "If the user didn't specify max_model_len, then use that derived
    # from the model config": with the YaRN recipe, 131,072 tokens; SGLang keeps the model's
    yarn = {"rope_scaling_factor": 4.0, "rope_original_context": 32768}
    assert estimate_report(_qwen3(model=yarn))["serving"]["max_context"] == 131072
    assert estimate_report(_qwen3(model={}))["serving"]["max_context"] == 40960
    assert estimate_report(_qwen3("sglang", model=yarn))["serving"]["max_context"] == 40960


def test_the_switch_allows_any_length_and_prices_it_as_stated() -> None:
    rep = estimate_report(_qwen3(max_context=131072, allow_long_context=True))
    assert rep["serving"]["max_context"] == 131072
    # the request is not longer than the model's length: no note; the context is priced as set
    assert not any("longer than the model's max_context" in a for a in rep["assumptions"])


def test_other_engines_and_unset_lengths_are_not_checked() -> None:
    # vLLM, SGLang and TensorRT-LLM name a switch (FrameworkProfile.long_context;
    # tests/core/test_context_limit_engines.py for the other two); llama.cpp takes any length
    named = [p.id for p in FRAMEWORKS.values() if p.long_context_switch]
    assert named == ["vllm", "sglang", "tensorrt-llm"]
    parse_scenario(_qwen3("llama.cpp", max_context=131072))
    custom = _qwen3(max_context=131072)
    custom["model"] = {"name": "no length", "parameters": 8_000_000_000}
    parse_scenario(custom)


def test_a_figure_at_its_native_length_is_unchanged() -> None:
    # stating the native length or the switch changes no figure: the check refuses, never prices
    base = estimate_report(_qwen3(max_context=32768))
    switched = estimate_report(_qwen3(max_context=32768, allow_long_context=True))
    assert base["per_gpu"] == switched["per_gpu"] and base["serving"] == switched["serving"]


@pytest.mark.parametrize(
    ("model", "serving", "field"),
    [
        ({"rope_scaling_factor": 0.5}, {}, "model.rope_scaling_factor"),
        ({"rope_scaling_factor": 2000}, {}, "model.rope_scaling_factor"),
        ({"rope_scaling_factor": "4"}, {}, "model.rope_scaling_factor"),
        ({"rope_scaling_factor": True}, {}, "model.rope_scaling_factor"),
        ({"rope_scaling_factor": float("nan")}, {}, "model.rope_scaling_factor"),
        ({"rope_original_context": 32768}, {}, "model.rope_original_context"),
        ({"rope_scaling_factor": 4, "rope_original_context": 0}, {}, "model.rope_original_context"),
        ({"rope_scaling_factor": 4, "rope_original_context": 1.5}, {}, "model.rope_original_context"),
        ({}, {"allow_long_context": "yes"}, "serving.allow_long_context"),
        ({}, {"allow_long_context": 1}, "serving.allow_long_context"),
        ({}, {"max_context": 40961}, FIELD),
        ({}, {"vllm_allow_long_max_model_len": True}, "serving.vllm_allow_long_max_model_len"),
        ({}, {"rope_scaling": {"rope_type": "yarn"}}, "serving.rope_scaling"),
    ],
)
def test_hostile_input_names_the_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    model: dict[str, Any],
    serving: dict[str, Any],
    field: str,
) -> None:
    s = _qwen3(model=model, **serving)
    refused_by_api_and_cli(tmp_path, capsys, s, field)


def test_an_rl_rollout_past_the_length_keeps_its_note() -> None:
    # the rollout engine's context is the RL framework's to pass (TRL passes no max_model_len):
    # not refused, the note on the sequence stays (core/pipeline/rl_roles.py)
    record = json.loads((Path(__file__).parent / "data" / "rl-time-logs.json").read_text(encoding="utf-8"))[0]
    s = {**record["scenario"], "model": {"preset": "qwen3-8b"}}
    s["rl"] = {**s["rl"], "rollout": {**s["rl"]["rollout"], "response_tokens": 60000}}
    notes = estimate_report(s)["assumptions"]
    assert any("longer than the model's max_context (40,960)" in a for a in notes)


def test_a_run_log_that_started_passes_the_check() -> None:
    # sipeed_wiki NanoKVM-Pro cua.md (tests/io/data/run-logs): Qwen3-VL-30B-A3B (262,144 tokens)
    # started at max_model_len 65,536 under vLLM 0.11.0; checked as the 40,960-token preset, the
    # run's own start stands for the engine's check (io/run_check.py)
    from gpusizer.io.run_check import scenario_of
    from gpusizer.io.run_log import read_run

    log = Path(__file__).parents[1] / "io" / "data" / "run-logs" / "vllm-0.11-qwen3-vl-30b-a3b-tp4-3090.log"
    sc = scenario_of(read_run(log.read_text(encoding="utf-8")), gpu="rtx-3090-24gb", model="qwen3-30b-a3b")
    assert sc["serving"]["max_context"] == 65536 and sc["serving"]["allow_long_context"] is True
    parse_scenario(sc)
    # within the model's length nothing is added: the scenario is as before
    long_model = scenario_of(
        read_run(log.read_text(encoding="utf-8")), gpu="rtx-3090-24gb", model="qwen3-coder-480b-a35b"
    )
    assert "allow_long_context" not in long_model["serving"]
