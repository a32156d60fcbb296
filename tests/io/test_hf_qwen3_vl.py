"""Qwen3-VL and Qwen3-VL-MoE import with their published parameter counts (io/hf_vision.py
``_qwen3_vl``, from transformers 4.57's modeling_qwen3_vl.py: ``Qwen3VLVisionModel``'s biased
Conv3d, ``num_position_embeddings`` learned positions, LayerNorm blocks, the ``merger`` and one
DeepStack merger per ``deepstack_visual_indexes`` entry; io/hf_families.py reads the Qwen3 text
model with its per-head q/k norms). Before, the tower was read as a plain SigLIP-like ViT (196
positions, one frame, an h_v x h_t projector) and the text model without its q/k norms:
Qwen3-VL-4B-Instruct 4,328,380,928 of 4,437,815,808 (-2.5 %), Qwen3-VL-30B-A3B-Instruct
30,947,051,376 of 31,070,754,032. The published totals: Qwen3-VL-4B-Instruct's load,
``total_parameters: 4437815808``; Qwen3-VL-30B-A3B-Instruct, ``paramCount: 31070754032``
(a serving catalog, 2025-10-08) and ``total_params=31070754032`` (an mlx-lm census)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report, import_hf_config
from gpusizer.core.errors import ScenarioError

# Qwen/Qwen3-VL-4B-Instruct config.json (Qwen3VLForConditionalGeneration)
QWEN3_VL_4B: dict[str, Any] = {
    "architectures": ["Qwen3VLForConditionalGeneration"],
    "model_type": "qwen3_vl",
    "image_token_id": 151655,
    "video_token_id": 151656,
    "vision_start_token_id": 151652,
    "vision_end_token_id": 151653,
    "tie_word_embeddings": True,
    "text_config": {
        "attention_bias": False,
        "attention_dropout": 0.0,
        "bos_token_id": 151643,
        "dtype": "bfloat16",
        "eos_token_id": 151645,
        "head_dim": 128,
        "hidden_act": "silu",
        "hidden_size": 2560,
        "initializer_range": 0.02,
        "intermediate_size": 9728,
        "max_position_embeddings": 262144,
        "model_type": "qwen3_vl_text",
        "num_attention_heads": 32,
        "num_hidden_layers": 36,
        "num_key_value_heads": 8,
        "rms_norm_eps": 1e-06,
        "rope_scaling": {"mrope_interleaved": True, "mrope_section": [24, 20, 20], "rope_type": "default"},
        "rope_theta": 5000000,
        "tie_word_embeddings": True,
        "use_cache": True,
        "vocab_size": 151936,
    },
    "vision_config": {
        "deepstack_visual_indexes": [5, 11, 17],
        "depth": 24,
        "hidden_act": "gelu_pytorch_tanh",
        "hidden_size": 1024,
        "in_channels": 3,
        "initializer_range": 0.02,
        "intermediate_size": 4096,
        "model_type": "qwen3_vl",
        "num_heads": 16,
        "num_position_embeddings": 2304,
        "out_hidden_size": 2560,
        "patch_size": 16,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    },
}

# Qwen/Qwen3-VL-30B-A3B-Instruct config.json (Qwen3VLMoeForConditionalGeneration)
QWEN3_VL_30B_A3B: dict[str, Any] = {
    "architectures": ["Qwen3VLMoeForConditionalGeneration"],
    "model_type": "qwen3_vl_moe",
    "tie_word_embeddings": False,
    "text_config": {
        "attention_bias": False,
        "decoder_sparse_step": 1,
        "head_dim": 128,
        "hidden_act": "silu",
        "hidden_size": 2048,
        "intermediate_size": 6144,
        "max_position_embeddings": 262144,
        "mlp_only_layers": [],
        "model_type": "qwen3_vl_moe_text",
        "moe_intermediate_size": 768,
        "norm_topk_prob": True,
        "num_attention_heads": 32,
        "num_experts": 128,
        "num_experts_per_tok": 8,
        "num_hidden_layers": 48,
        "num_key_value_heads": 4,
        "rms_norm_eps": 1e-06,
        "rope_theta": 5000000,
        "tie_word_embeddings": False,
        "vocab_size": 151936,
    },
    "vision_config": {
        "deepstack_visual_indexes": [8, 16, 24],
        "depth": 27,
        "hidden_act": "gelu_pytorch_tanh",
        "hidden_size": 1152,
        "in_channels": 3,
        "intermediate_size": 4304,
        "model_type": "qwen3_vl_moe",
        "num_heads": 16,
        "num_position_embeddings": 2304,
        "out_hidden_size": 2048,
        "patch_size": 16,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    },
}


def _counts(config: dict[str, Any]) -> dict[str, int]:
    block = import_hf_config(copy.deepcopy(config))
    s = {"model": block, "framework": "vllm", "workload": {"kind": "inference"}}
    return estimate_report(s)["parameters"]


@pytest.mark.parametrize(
    ("config", "text", "vision"),
    [
        # 4,022,468,096 is Qwen3-4B's own count (the same text model)
        (QWEN3_VL_4B, 4_022_468_096, 415_347_712),
        (QWEN3_VL_30B_A3B, 30_532_122_624, 538_631_408),
    ],
)
def test_published_counts_exact(config: dict[str, Any], text: int, vision: int) -> None:
    got = _counts(config)
    assert (got["total"], got["vision"]) == (text, vision)


def test_the_text_model_has_qwen3_head_norms() -> None:
    assert import_hf_config(copy.deepcopy(QWEN3_VL_4B))["qk_norm"] == "head"


def test_a_vl_model_serves_on_one_gpu() -> None:
    block = import_hf_config(copy.deepcopy(QWEN3_VL_4B))
    s = {
        "model": block,
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
        "hardware": {"gpu": "l4-24gb"},
        "serving": {"max_context": 32768},
    }
    assert estimate_report(s)["serving"]["starts"]


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("deepstack_visual_indexes", "5,11,17"),  # not a list: no DeepStack mergers counted
        ("deepstack_visual_indexes", None),
        ("num_position_embeddings", -4),
        ("num_position_embeddings", "big"),
        ("temporal_patch_size", 0),
        ("out_hidden_size", True),
    ],
)
def test_hostile_vision_keys(key: str, value: Any) -> None:
    config = copy.deepcopy(QWEN3_VL_4B)
    config["vision_config"][key] = value
    try:
        vision = _counts(config)["vision"]
    except ScenarioError as err:  # refused in one line naming the config
        assert err.field == "config" and "\n" not in str(err)
    else:
        assert 0 < vision <= 415_347_712
