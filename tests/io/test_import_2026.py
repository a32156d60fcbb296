"""The open models buyers size hardware for in late 2026 import from their config.json with
their published parameter counts, serve and take a LoRA (io/hf_families_2026.py, io/hf_vision.py
``_moonvit``, io/hf_config.py ``glm_moe_dsa``, io/hf_registry.py ``gemma3n``).

Fixtures (tests/io/configs/): each holds the size keys of the released config.json of the
Hugging Face repository named beside it, as public code quotes it (tokenizer ids and the like
left out): Qwen3.5-27B as a transformers ``Qwen3_5Config`` built to the release (a public model
wrapper); Qwen3.5-35B-A3B, -122B-A10B and -397B-A17B from the released configs' values as public
configs and tests list them (the 397B's linear heads from a comment citing
huggingface.co/Qwen/Qwen3.5-397B-A17B/blob/main/config.json); Kimi-K2.5 the whole config and
tensor list of moonshotai/Kimi-K2.5 (a public model report); GLM-5, MiniMax-M2, Seed-OSS-36B,
ERNIE 4.5 and Hunyuan-A13B their configs as public tests and fixtures quote them; Gemma 3n E4B
the keys that decide its refusal.

Published totals (model cards, rounded as the cards give them): Qwen3.5 27B / 35B / 122B / 397B
(huggingface.co/Qwen/Qwen3.5-*; the text model plus the vision tower), GLM-5 744B total
(zai-org/GLM-5), MiniMax-M2 230B total, 10B active (MiniMaxAI/MiniMax-M2), Seed-OSS-36B 36B
(ByteDance-Seed/Seed-OSS-36B-Base), ERNIE-4.5-300B-A47B 300B, Hunyuan-A13B 80B total, 13B active
(tencent/Hunyuan-A13B-Instruct), Granite-4.0-H-Small 32B total, 9B active
(ibm-granite/granite-4.0-h-small; its config's values as a public worked example quotes them,
the Mamba heads GraniteMoeHybridConfig's 128 x 64), NVIDIA-Nemotron-3-Nano-30B-A3B 31.6B
total, 3.2B active without the embeddings, 3.6B with them (nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16
model card; its config.json as a public JAX port quotes it whole).

ERNIE-4.5-21B-A3B is the one count more than 2 % off its name: 21.83B for "21B" (+3.9 %), its
architecture's own arithmetic (27 MoE layers x 64 experts x 3 x 2560 x 1536 = 20.4B of experts
alone).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report, import_hf_config
from gpusizer.core.errors import ScenarioError

CONFIGS = Path(__file__).parent / "configs"


def _config(name: str) -> dict[str, Any]:
    return dict(json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")))


def _parameters(config: dict[str, Any]) -> dict[str, int]:
    block = import_hf_config(config)
    s = {"model": block, "workload": {"kind": "inference", "sequence_length": 4096}}
    return dict(estimate_report(s)["parameters"])


@pytest.mark.parametrize(
    ("name", "published", "tolerance"),
    [
        # text + vision against the card's figure (Qwen3.5 cards give one rounded total)
        ("qwen3.5-27b", 27e9, 0.02),  # 26,895,998,464 + 460,730,096 (+1.3 %)
        ("qwen3.5-35b-a3b", 35e9, 0.02),
        ("qwen3.5-122b-a10b", 122e9, 0.02),
        ("qwen3.5-397b-a17b", 397e9, 0.02),
        ("glm-5", 744e9, 0.02),  # the DSA indexer (0.1 %) and MTP layer not counted
        ("minimax-m2", 230e9, 0.02),  # 228,689,748,992 (-0.6 %)
        ("seed-oss-36b", 36e9, 0.02),
        ("ernie-4.5-300b-a47b", 300e9, 0.02),
        ("hunyuan-a13b", 80e9, 0.02),
        ("granite-4.0-h-small", 32e9, 0.02),  # 32,207,337,984 (+0.6 %)
        ("nemotron-3-nano-30b-a3b", 31.6e9, 0.005),  # 31,577,937,344 (-0.07 %)
        ("ernie-4.5-21b-a3b", 21.8e9, 0.002),  # the card's "21B" floors 21.8B (docstring)
    ],
)
def test_published_totals(name: str, published: float, tolerance: float) -> None:
    got = _parameters(_config(name))
    assert abs((got["total"] + got.get("vision", 0)) / published - 1) < tolerance, name


@pytest.mark.parametrize(
    ("name", "active", "tolerance"),
    [
        ("qwen3.5-397b-a17b", 17e9, 0.03),  # "A17B": 17,349,040,896
        ("qwen3.5-122b-a10b", 10e9, 0.03),  # "A10B": 9,771,288,576
        ("ernie-4.5-300b-a47b", 47e9, 0.03),  # "A47B": 47,926,583,296
        ("hunyuan-a13b", 13e9, 0.02),  # 12,747,448,320
        ("glm-5", 40e9, 0.03),  # 41,053,701,120 (embeddings and the head counted)
        ("granite-4.0-h-small", 9e9, 0.03),  # "32B-A9B": 8,803,121,664
        ("nemotron-3-nano-30b-a3b", 3.6e9, 0.02),  # 3.6B with the embeddings: 3,580,073,408
    ],
)
def test_published_active(name: str, active: float, tolerance: float) -> None:
    assert abs(_parameters(_config(name))["active"] / active - 1) < tolerance, name


def test_kimi_k2_5_is_kimi_k2_and_a_moonvit_tower_exactly() -> None:
    # the text model is Kimi K2's (kimi-k2 preset, exact); the tower and projector sum the
    # released checkpoint's tensor shapes: patch 678,528 + positions 64 x 64 x 1152 + 27 blocks
    # of 15,239,504 + final LayerNorm 2,304 = 416,866,032; mm_projector 54,277,888
    got = _parameters(_config("kimi-k2.5"))
    k2 = _parameters(_config("kimi-k2"))
    assert got["total"] == k2["total"] == 1_026_408_209_408
    assert got["vision"] == 416_866_032 + 54_277_888


def test_qwen3_5_reads_the_gated_deltanet_layers_and_the_moe() -> None:
    dense = import_hf_config(_config("qwen3.5-27b"))
    assert dense["linear_attention"]["layers"] == 48 and "moe" not in dense  # 3 of 4 layers
    assert dense["attention_output_gate"] and dense["qk_norm"] == "head"
    assert dense["vision"]["position_embeddings"] == 2304 and dense["mtp_layers"] == 1
    sparse = import_hf_config(_config("qwen3.5-35b-a3b"))
    assert sparse["moe"]["dense_layers"] == 0 and sparse["moe"]["shared_expert_gate"]


def test_families_read_their_own_keys() -> None:
    ernie = import_hf_config(_config("ernie-4.5-300b-a47b"))["moe"]
    assert (ernie["experts"], ernie["experts_per_token"], ernie["dense_layers"]) == (64, 8, 3)
    assert import_hf_config(_config("ernie-4.5-21b-a3b"))["moe"]["shared_experts"] == 2
    hunyuan = import_hf_config(_config("hunyuan-a13b"))
    assert hunyuan["qk_norm"] == "head" and hunyuan["moe"]["experts_per_token"] == 8
    assert import_hf_config(_config("minimax-m2"))["qk_norm"] == "full"
    seed = import_hf_config(_config("seed-oss-36b"))
    assert seed["qkv_bias"] and not seed["attention_output_bias"] and seed["dropout"] == 0.1
    glm = import_hf_config(_config("glm-5"))
    assert glm["mla"]["kv_lora_rank"] == 512 and glm["moe"]["dense_layers"] == 3


NEW = [
    "qwen3.5-27b",
    "qwen3.5-35b-a3b",
    "kimi-k2.5",
    "glm-5",
    "minimax-m2",
    "seed-oss-36b",
    "ernie-4.5-21b-a3b",
    "hunyuan-a13b",
    "granite-4.0-h-small",
    "nemotron-3-nano-30b-a3b",
]


@pytest.mark.parametrize("name", NEW)
def test_each_serves_and_takes_a_lora(name: str) -> None:
    block = import_hf_config(_config(name))
    node = {"gpu": "h200-141gb", "gpus_per_node": 8}
    serve = {
        "model": block,
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512},
        "hardware": node,
        "parallelism": {"tensor": 4},
        "serving": {"max_context": 32768},
    }
    lora = {
        "model": block,
        "workload": {"kind": "lora", "sequence_length": 4096, "lora_rank": 16, "micro_batch_size": 1},
        "hardware": node,
        "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
    }
    for s in (serve, lora):
        assert estimate_report(s)["per_gpu"]["total"] > 0


def test_gemma_3n_is_refused_naming_its_keys() -> None:
    with pytest.raises(ScenarioError) as err:
        import_hf_config(_config("gemma-3n-e4b"))
    msg = err.value.message
    assert err.value.field == "config" and "\n" not in msg
    assert msg.startswith("architectures Gemma3nForConditionalGeneration (gemma3n_text) not modelled")
    assert "hidden_size_per_layer_input" in msg


@pytest.mark.parametrize(
    ("name", "edit", "words"),
    [
        ("hunyuan-a13b", {"moe_topk": [8] * 31 + [4]}, "moe_topk differs between layers"),
        ("hunyuan-a13b", {"moe_topk": "8"}, "moe_topk must be a whole number"),
        ("hunyuan-a13b", {"use_mixed_mlp_moe": "yes"}, "use_mixed_mlp_moe must be true or false"),
        ("ernie-4.5-21b-a3b", {"moe_layer_start_index": -1}, "moe_layer_start_index must be a whole"),
        ("ernie-4.5-21b-a3b", {"moe_num_experts": 0}, "is 0: an MoE config needs experts"),
        ("ernie-4.5-21b-a3b", {"use_bias": 1}, "use_bias must be true or false"),
        ("seed-oss-36b", {"residual_dropout": 2}, "residual_dropout must be a number from 0 to 1"),
        ("seed-oss-36b", {"attention_out_bias": "false"}, "attention_out_bias must be true or false"),
        ("minimax-m2", {"use_routing_bias": None, "use_qk_norm": "true"}, "use_qk_norm must be true"),
        ("granite-4.0-h-small", {"layer_types": ["mamba"] * 39 + ["moe"]}, "layer_types: one of mamba"),
        ("nemotron-3-nano-30b-a3b", {"hybrid_override_pattern": "M-M*E"}, "either - (MLP) or E (MoE)"),
        ("nemotron-3-nano-30b-a3b", {"hybrid_override_pattern": "MEEE"}, "needs at least as many M/*"),
        ("nemotron-3-nano-30b-a3b", {"n_routed_experts": 0}, "is 0: an MoE config needs experts"),
        ("granite-4.0-h-small", {"layer_types": None}, "layer_types: one of mamba or attention"),
        ("granite-4.0-h-small", {"layer_types": ["mamba"] * 3}, "layer_types: one of mamba"),
        ("granite-4.0-h-small", {"mamba_n_heads": -1}, "mamba_n_heads must be a whole number"),
        ("granite-4.0-h-small", {"mamba_d_head": "x"}, "mamba_d_head must be a whole number"),
    ],
)
def test_hostile_keys(name: str, edit: dict[str, Any], words: str) -> None:
    cfg = copy.deepcopy(_config(name))
    cfg.update(edit)
    with pytest.raises(ScenarioError) as err:
        import_hf_config(cfg)
    assert err.value.field == "config" and words in err.value.message and "\n" not in err.value.message


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("vt_hidden_size", "big"),
        ("vt_num_hidden_layers", None),
        ("merge_kernel_size", "2x2"),  # malformed: MoonViT's 2 x 2
        ("merge_kernel_size", [True, 2]),
        ("init_pos_emb_height", -1),
    ],
)
def test_hostile_moonvit_keys(key: str, value: Any) -> None:
    cfg = copy.deepcopy(_config("kimi-k2.5"))
    cfg["vision_config"][key] = value
    try:
        vision = _parameters(cfg)["vision"]
    except ScenarioError as err:  # refused in one line naming the config
        assert err.field == "config" and "\n" not in str(err)
    else:
        assert 0 < vision <= 471_143_920


def test_granite_hybrid_layers() -> None:
    block = import_hf_config(_config("granite-4.0-h-small"))
    assert block["mamba"]["layers"] == 36 and block["layers"] == 40  # 4 attention layers
    assert block["mamba"]["heads"] * block["mamba"]["head_dim"] == 2 * 4096
    assert block["moe"]["shared_expert_ffn_hidden_size"] == 1536 and block["tied_embeddings"]
    # an all-attention Granite 4.0 (no -H) and a dense hybrid (no experts) read too
    cfg = _config("granite-4.0-h-small")
    plain = import_hf_config({**cfg, "layer_types": ["attention"] * 40})
    assert "mamba" not in plain
    dense = import_hf_config({**cfg, "num_local_experts": 0})
    assert "moe" not in dense and dense["ffn_hidden_size"] == 1536


def test_nemotron_3_nano_moe_blocks() -> None:
    # 23 M + 6 * mixer blocks, 23 E blocks: MoE on every MLP block, none dense
    block = import_hf_config(_config("nemotron-3-nano-30b-a3b"))
    assert (block["layers"], block["mamba"]["layers"], block["mlp_layers"]) == (29, 23, 23)
    assert block["moe"]["shared_expert_ffn_hidden_size"] == 3712 and block["mlp"] == "plain"


def test_qwen3_5_moe_text_without_the_wrapper() -> None:
    # Qwen3_5MoeForCausalLM's flat config (text model only): the same text count
    cfg = _config("qwen3.5-35b-a3b")
    flat = {**cfg["text_config"], "architectures": ["Qwen3_5MoeForCausalLM"]}
    assert _parameters(flat)["total"] == _parameters(cfg)["total"] == 34_660_610_688
