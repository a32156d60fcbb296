"""A config's ``rope_scaling`` is read as vLLM's ``_get_and_verify_max_len`` reads it
(io/hf_rope.py; vllm-project/vllm ``vllm/config/model.py``): YaRN multiplies its
``original_max_position_embeddings``, ``llama3`` / ``longrope`` / Gemma 3 keep
``max_position_embeddings``; a scaling whose product is that length adds nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.serving.context_limit import derived_context
from gpusizer.io.hf_config import import_hf_config

CONFIGS = Path(__file__).parent / "configs"
# Qwen3 README / Qwen2.5 model cards, "Processing Long Texts": add to config.json
QWEN_YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
ROPE_FIELDS = ("rope_scaling_factor", "rope_original_context")


def _config(name: str, **changes: Any) -> dict[str, Any]:
    return {**json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")), **changes}


def _scenario(block: dict[str, Any], framework: str, context: int) -> dict[str, Any]:
    return {
        "model": block,
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
        "framework": framework,
        "hardware": {"gpu": "h200-141gb"},
        "serving": {"max_context": context},
    }


def test_qwens_yarn_recipe_gives_vllm_131072_and_sglang_40960() -> None:
    # Qwen3-8B config.json: max_position_embeddings 40960, rope_scaling null; the recipe adds
    # QWEN_YARN. vLLM: 32,768 x 4 = 131,072; SGLang get_context_length: original present ->
    # factor 1 -> 40,960 (sglang v0.5.4 hf_transformers_utils.py)
    assert not set(ROPE_FIELDS) & set(import_hf_config(_config("qwen3-8b")))
    block = import_hf_config(_config("qwen3-8b", rope_scaling=QWEN_YARN))
    assert block["max_context"] == 40960
    assert block["rope_scaling_factor"] == 4.0 and block["rope_original_context"] == 32768
    parse_scenario(_scenario(block, "vllm", 131072))
    with pytest.raises(ScenarioError, match="SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"):
        parse_scenario(_scenario(block, "sglang", 131072))


def test_qwen25_with_yarn_derives_131072() -> None:
    # Qwen2.5-7B-Instruct model card: config.json max_position_embeddings 32768; with the YaRN
    # block "up to 131,072 tokens"
    block = import_hf_config(_config("qwen2.5-7b", rope_scaling=QWEN_YARN))
    model = parse_scenario(_scenario(block, "vllm", 131072)).model
    assert derived_context(model, FRAMEWORKS["vllm"].long_context) == 131072


@pytest.mark.parametrize(
    ("name", "length"),
    [
        # "rope_type": "llama3", factor 8, original 8192: vLLM does not multiply
        ("llama-3.1-8b", 131072),
        ("llama-3.2-1b", 131072),
        # yarn: 4,096 x 32 = 131,072 = max_position_embeddings (gpt-oss, Kimi K2)
        ("gpt-oss-20b", 131072),
        ("kimi-k2", 131072),
        # "type": "yarn", factor 40, original 4096: 163,840 = max_position_embeddings
        ("deepseek-v3", 163840),
        # Gemma 3's "linear" factor 8: vLLM skips gemma3 ("already scaled")
        ("gemma-3-27b", 131072),
        # Qwen2.5-VL's mrope is rope_type "default": no factor
        ("qwen2.5-vl-7b", 128000),
    ],
)
def test_released_configs_keep_their_length_and_add_nothing(name: str, length: int) -> None:
    block = import_hf_config(_config(name))
    assert block["max_context"] == length and not set(ROPE_FIELDS) & set(block)


def test_a_linear_or_dynamic_factor_multiplies_under_every_engine() -> None:
    # transformers LlamaConfig docstring: rope_scaling {"type": "dynamic", "factor": 2.0};
    # vLLM, SGLang and TensorRT-LLM all multiply max_position_embeddings (4,096) by it
    block = import_hf_config(_config("llama-2-7b", rope_scaling={"type": "dynamic", "factor": 2.0}))
    assert block["rope_scaling_factor"] == 2.0 and "rope_original_context" not in block
    model = parse_scenario(_scenario(block, "vllm", 8192)).model
    for fw in ("vllm", "sglang", "tensorrt-llm"):
        assert derived_context(model, FRAMEWORKS[fw].long_context) == 8192


def test_transformers_v5_rope_parameters_are_read_too() -> None:
    # transformers v5 writes rope_parameters (vLLM reads it, flat or per layer type)
    block = import_hf_config(_config("qwen3-8b", rope_parameters={**QWEN_YARN, "rope_theta": 1e6}))
    assert block["rope_scaling_factor"] == 4.0
    nested = import_hf_config(_config("qwen3-8b", rope_parameters={"full_attention": QWEN_YARN}))
    assert nested["rope_original_context"] == 32768


@pytest.mark.parametrize(
    "scaling",
    [
        {"rope_type": "yarn", "factor": "4", "original_max_position_embeddings": 32768},
        {"rope_type": "yarn", "factor": True, "original_max_position_embeddings": 32768},
        {"rope_type": "yarn", "factor": float("nan"), "original_max_position_embeddings": 32768},
        {"rope_type": "yarn", "factor": 0.5, "original_max_position_embeddings": 32768},
        {"rope_type": "yarn", "factor": 5000, "original_max_position_embeddings": 32768},
        {"rope_type": "yarn", "factor": 4.0},
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": "32k"},
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1.5},
        {"rope_type": 7, "factor": 4.0},
        {"factor": 4.0},
        "yarn",
        [QWEN_YARN],
    ],
)
def test_a_hostile_scaling_is_not_imported(scaling: object) -> None:
    # as the other unreadable optional keys: the config's max_position_embeddings stands
    block = import_hf_config(_config("qwen3-8b", rope_scaling=scaling))
    assert block["max_context"] == 40960 and not set(ROPE_FIELDS) & set(block)
