"""Exact parameter counts of every model preset, against published or measured figures.

Each row says where its figure comes from and the tolerance that fits it: 0.05% where the exact
count is public (the transformers/safetensors count of the released checkpoint), about 1% where
only a rounded model-card or paper figure exists. The measured counts in
``shared/calibration/hf-measured.json`` (meta-device transformers models) are checked to the
parameter when the file is present.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.model.params import ParamCounts, count_parameters
from gpusizer.core.model.presets import model_presets
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.io.test_presets_2026 import PRESETS as PRESETS_2026


def counts(preset: str) -> ParamCounts:
    return count_parameters(parse_scenario({"model": {"preset": preset}}).model)


def rel(a: float, b: float) -> float:
    return abs(a - b) / b


# (preset, expected total, relative tolerance, source)
TOTALS: list[tuple[str, int | float, float, str]] = [
    # exact: calibration file (transformers 5.24 on the meta device) and the HF blog
    ("llama-3.1-8b", 8_030_261_248, 0.0, "hf-measured.json param_counts; exact"),
    ("llama-3.1-70b", 70_553_706_496, 0.0, "hf-measured.json param_counts; exact"),
    ("llama-3.1-405b", 405_853_388_800, 0.0, "hf-measured.json param_counts; exact"),
    ("mixtral-8x7b", 46_702_792_704, 0.0, "hf-measured.json param_counts; card 46.7B; exact"),
    ("gpt-2", 124_439_808, 0.0, "hf-measured.json param_counts; exact"),
    # exact counts of the released checkpoints (model.num_parameters() of the HF config)
    ("llama-3.2-1b", 1_235_814_400, 0.0005, "HF checkpoint 1.24B; model card 1.23B"),
    ("llama-3.2-3b", 3_212_749_824, 0.0005, "HF checkpoint; model card 3.21B"),
    ("llama-2-7b", 6_738_415_616, 0.0005, "HF checkpoint; Llama 2 paper 7B"),
    ("llama-2-13b", 13_015_864_320, 0.0005, "HF checkpoint; Llama 2 paper 13B"),
    ("llama-2-70b", 68_976_648_192, 0.0005, "HF checkpoint; Llama 2 paper 70B"),
    ("mistral-7b", 7_241_732_096, 0.0005, "HF checkpoint 7.24B; Mistral 7B paper 7.3B"),
    ("mixtral-8x22b", 140_620_634_112, 0.0005, "HF checkpoint; Mistral blog 141B"),
    ("qwen2.5-0.5b", 494_032_768, 0.0005, "HF checkpoint; Qwen2.5 report Table 1: 0.49B"),
    ("qwen2.5-7b", 7_615_616_512, 0.0005, "HF checkpoint; Qwen2.5 report Table 1: 7.61B"),
    ("qwen2.5-72b", 72_706_203_648, 0.0005, "HF checkpoint; Qwen2.5 report Table 1: 72.7B"),
    ("qwen3-8b", 8_190_735_360, 0.0005, "HF checkpoint; model card 8.2B"),
    ("qwen3-32b", 32_762_123_264, 0.0005, "HF checkpoint; model card 32.8B"),
    ("qwen3-30b-a3b", 30_532_122_624, 0.0005, "HF checkpoint; model card 30.5B"),
    ("qwen3-235b-a22b", 235_093_634_560, 0.0005, "HF checkpoint; model card 235B"),
    ("gemma-2-9b", 9_241_705_984, 0.0005, "HF checkpoint 9.24B"),
    ("gemma-2-27b", 27_227_128_320, 0.0005, "HF checkpoint 27.2B"),
    ("phi-3-mini", 3_821_079_552, 0.0005, "HF checkpoint; Phi-3 report 3.8B"),
    ("phi-3-medium", 13_960_238_080, 0.0005, "HF checkpoint; Phi-3 report 14B"),
    ("gpt-2-xl", 1_557_611_200, 0.0005, "transformers num_parameters(); GPT-2 paper 1.5B"),
    ("olmo-2-7b", 7_298_617_344, 0.0005, "HF checkpoint 7.3B; OLMo 2 report 7B"),
    ("olmoe-1b-7b", 6_919_161_856, 0.0005, "HF checkpoint; OLMoE paper 6.9B total"),
    # DeepSeek-V3 report: 671B total (the HF model without the 14B MTP module; 685B with it)
    ("deepseek-v3", 671e9, 0.0005, "DeepSeek-V3 report §1 and HF model card: 671B"),
    # 2025-2026 presets: transformers 5.24 counts of the released configs (tests/io/configs,
    # meta device, scripts/measure_presets.py), exact; the published figure beside each
    ("gpt-oss-20b", 20_914_757_184, 0.0, "measured; gpt-oss model card Table 1: 20.91B"),
    ("gpt-oss-120b", 116_829_156_672, 0.0, "measured; gpt-oss model card Table 1: 116.83B"),
    ("llama-3.3-70b", 70_553_706_496, 0.0, "measured; model card 70B"),
    ("deepseek-r1", 671_026_404_352, 0.0, "measured; model card 671B (without the MTP layer)"),
    ("deepseek-v3.1", 671_026_404_352, 0.0, "measured; model card 671B"),
    ("kimi-k2", 1_026_408_209_408, 0.0, "measured; model card 1T (rounded)"),
    ("glm-4.5", 352_797_814_784, 0.0, "measured; model card 355B with the MTP layer"),
    ("glm-4.5-air", 106_852_245_504, 0.0, "measured; model card 106B"),
    ("qwen3-coder-480b-a35b", 480_154_875_392, 0.0, "measured; model card 480B"),
    ("qwen3-next-80b-a3b", 79_674_391_296, 0.0, "measured; model card 80B"),
    ("nemotron-nano-9b-v2", 8_888_227_328, 0.0, "measured; model card 9B (rounded)"),
    ("gemma-3-1b", 999_885_952, 0.0, "measured; Gemma 3 report Table 1: 302M + 698M"),
    ("mistral-large-2", 122_610_069_504, 0.0, "measured; Mistral blog 123B (rounded)"),
    ("phi-4", 14_659_507_200, 0.0, "measured; Phi-4 report 14B, HF page 14.7B"),
    ("gpt-oss-20b", 20.91e9, 0.0005, "gpt-oss model card (arXiv 2508.10925) Table 1"),
    ("gpt-oss-120b", 116.83e9, 0.0005, "gpt-oss model card (arXiv 2508.10925) Table 1"),
    ("glm-4.5", 355e9, 0.01, "GLM-4.5 model card 355B: MTP layer (~2.2B) not loaded here"),
    ("glm-4.5-air", 106e9, 0.01, "GLM-4.5-Air model card 106B (rounded)"),
    ("qwen3-coder-480b-a35b", 480e9, 0.005, "Qwen3-Coder model card 480B (rounded)"),
    ("qwen3-next-80b-a3b", 80e9, 0.005, "Qwen3-Next model card 80B (rounded)"),
    ("kimi-k2", 1.0e12, 0.03, "Kimi K2 model card: 1T total (rounded)"),
    ("nemotron-nano-9b-v2", 9e9, 0.015, "Nemotron Nano 2 model card: 9B (rounded)"),
    ("mistral-large-2", 123e9, 0.005, "Mistral Large 2 blog: 123B (rounded)"),
    ("phi-4", 14.7e9, 0.005, "Phi-4 HF page 14.7B (rounded)"),
    # rounded published figures only
    ("gpt-3-175b", 175.0e9, 0.005, "Brown et al. 2020 Table 2.1: 175.0B (rounded)"),
    ("falcon-180b", 180e9, 0.01, "Falcon paper (arXiv 2311.16867): 180B (rounded)"),
]


@pytest.mark.parametrize(("preset", "expected", "tol", "source"), TOTALS, ids=[r[0] for r in TOTALS])
def test_total_matches_published_count(preset: str, expected: float, tol: float, source: str):
    total = counts(preset).total
    if tol == 0.0:
        assert total == expected, source
    else:
        assert rel(total, expected) <= tol, f"{preset}: {total:,} vs {expected:,.0f} ({source})"


# (preset, expected active parameters per token, tolerance, source)
ACTIVE: list[tuple[str, float, float, str]] = [
    # calibration: total - routed experts x (1 - top_k / experts); exact
    ("mixtral-8x7b", 12_879_925_248, 0.0, "hf-measured.json active_params_per_token"),
    ("mixtral-8x22b", 39e9, 0.01, "Mistral blog (mistral.ai/news/mixtral-8x22b): 39B active"),
    ("qwen3-30b-a3b", 3.3e9, 0.02, "Qwen3 model card: 3.3B activated (rounded)"),
    ("qwen3-235b-a22b", 22e9, 0.01, "Qwen3 model card: 22B activated (rounded)"),
    ("deepseek-v3", 37e9, 0.02, "DeepSeek-V3 report §1: 37B activated (rounded)"),
    ("olmoe-1b-7b", 1.3e9, 0.02, "OLMoE paper (arXiv 2409.02060): 1.3B active (rounded)"),
    ("llama-4-scout", 17e9, 0.015, "Llama 4 model card: 17B active (rounded)"),
    ("llama-4-maverick", 17e9, 0.015, "Llama 4 model card: 17B active (rounded)"),
    ("deepseek-r1", 37e9, 0.02, "DeepSeek-R1 model card: 37B activated (rounded)"),
    ("deepseek-v3.1", 37e9, 0.02, "DeepSeek-V3.1 model card: 37B activated (rounded)"),
    ("kimi-k2", 32e9, 0.03, "Kimi K2 model card: 32B activated (rounded)"),
    ("qwen3-coder-480b-a35b", 35e9, 0.015, "Qwen3-Coder model card: 35B activated (rounded)"),
]


@pytest.mark.parametrize(("preset", "expected", "tol", "source"), ACTIVE, ids=[r[0] for r in ACTIVE])
def test_active_matches_published_count(preset: str, expected: float, tol: float, source: str):
    active = counts(preset).active
    if tol == 0.0:
        assert active == expected, source
    else:
        assert rel(active, expected) <= tol, f"{preset}: {active:,} vs {expected:,.0f} ({source})"


def test_dense_models_are_all_active():
    for preset, data in model_presets().items():
        if "moe" not in data:
            c = counts(preset)
            assert c.active == c.total, preset


def test_falcon_checkpoints_store_the_tied_head_twice():
    # Falcon ties lm_head to word_embeddings (transformers FalconForCausalLM), but the released
    # checkpoints store both tensors: HF model pages list 7.22B (falcon-7b) and 41.8B (falcon-40b).
    c7 = counts("falcon-7b")
    assert c7.lm_head == 0
    assert c7.total + c7.embedding == 7_217_189_760  # falcon-7b checkpoint, exact
    c40 = counts("falcon-40b")
    assert rel(c40.total + c40.embedding, 41.8e9) <= 0.0015  # HF page 41.8B (3 digits)


def test_gemma_3_text_model_matches_the_technical_report():
    # Gemma 3 report (arXiv 2503.19786) Table 1, 27B: 25,600M non-embedding parameters
    # (to the million; its 1,416M "embedding" also holds the 6M vision projector, not counted).
    c = counts("gemma-3-27b")
    assert rel(c.total - c.embedding, 25_600e6) <= 0.0005
    assert c.embedding == 262_208 * 5_376 and c.lm_head == 0  # tied


def test_deepseek_v3_layers():
    # HF config: first_k_dense_replace 3 -> 3 dense layers + 58 MoE layers; MLA attention per
    # DeepSeek-V2 (arXiv 2405.04434 §2.1): q 7168x1536 + 1536 + 1536x128x192, kv 7168x576 + 512
    # + 512x128x256, o 128x128x7168 = 187,107,328 per layer.
    c = counts("deepseek-v3")
    assert (c.dense_layers, c.moe_layers) == (3, 58)
    assert c.dense_layer.attention == 187_107_328
    assert c.moe_layer is not None and c.moe_layer.experts == 256 * 3 * 7168 * 2048


def test_gpt3_architecture_sum():
    # Kaplan et al. 2020 (arXiv 2001.08361) §2.1: N ≈ 12 L d² for the layers; GPT-3 175B exactly:
    # 96 x (12 x 12288² + 13 x 12288) + embeddings (50257 + 2048) x 12288 + final LayerNorm.
    c = counts("gpt-3-175b")
    d = 12_288
    assert c.total == 96 * (12 * d * d + 13 * d) + (50_257 + 2_048) * d + 2 * d


# --- calibration file: transformers-measured counts, to the parameter --------------------------

_CALIBRATION_NAMES = {
    "Llama-3.1-8B": "llama-3.1-8b",
    "Llama-3.1-70B": "llama-3.1-70b",
    "Llama-3.1-405B": "llama-3.1-405b",
    "Mixtral-8x7B-v0.1": "mixtral-8x7b",
    "GPT-2": "gpt-2",
}


def _calibration() -> dict[str, Any] | None:
    here = Path(__file__).resolve()
    for base in (here.parents[2], here.parents[3]):
        path = base / "shared" / "calibration" / "hf-measured.json"
        if path.is_file():
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            return data
    return None


def _records() -> list[dict[str, Any]]:
    data = _calibration()
    return [] if data is None else list(data["param_counts"])


@pytest.mark.parametrize("record", _records(), ids=lambda r: r["name"])
def test_presets_match_calibration_breakdown(record: dict[str, Any]):
    measured = record["measured"]
    c = counts(_CALIBRATION_NAMES[record["name"]])
    assert c.total == measured["total_params"]
    assert c.embedding == measured["input_embedding_params"]
    assert c.lm_head == measured["lm_head_params_untied"]
    assert c.position_embedding == measured["position_embedding_params"]
    assert (c.dense_layers + c.moe_layers) == measured["n_layers"]
    layer = c.moe_layer if c.moe_layer is not None else c.dense_layer
    assert [layer.total] == measured["params_per_layer_distinct_values"]
    moe = c.moe_layer.total * c.moe_layers if c.moe_layer else 0
    assert c.dense_layer.total * c.dense_layers + moe + c.hybrid_delta == measured["params_all_layers"]
    non_embedding = c.total - c.embedding - c.position_embedding - c.lm_head
    assert non_embedding == measured["non_embedding_params"]
    if "active_params_per_token" in measured:
        assert c.active == measured["active_params_per_token"]
        assert c.expert_params == measured["routed_expert_params"]


def test_calibration_llama_modules():
    data = _calibration()
    if data is None:
        pytest.skip("shared/calibration/hf-measured.json not present")
    record = next(r for r in data["param_counts"] if r["name"] == "Llama-3.1-8B")
    parts = record["measured"]["last_layer_param_breakdown"]
    layer = counts("llama-3.1-8b").dense_layer
    assert layer.attention == sum(v for k, v in parts.items() if k.startswith("self_attn."))
    assert layer.mlp == sum(v for k, v in parts.items() if k.startswith("mlp."))
    assert layer.norms == parts["input_layernorm"] + parts["post_attention_layernorm"]


# --- the presets themselves ----------------------------------------------------------------------

REQUIRED = {
    "llama-3.1-8b",
    "llama-3.1-70b",
    "llama-3.1-405b",
    "llama-3.2-1b",
    "llama-3.2-3b",
    "llama-2-7b",
    "llama-2-13b",
    "llama-2-70b",
    "mistral-7b",
    "mixtral-8x7b",
    "mixtral-8x22b",
    "qwen2.5-0.5b",
    "qwen2.5-7b",
    "qwen2.5-72b",
    "qwen3-8b",
    "qwen3-32b",
    "qwen3-30b-a3b",
    "qwen3-235b-a22b",
    "gemma-2-9b",
    "gemma-2-27b",
    "gemma-3-27b",
    "phi-3-mini",
    "phi-3-medium",
    "deepseek-v3",
    "gpt-2",
    "gpt-2-xl",
    "gpt-3-175b",
    "falcon-7b",
    "falcon-40b",
    "falcon-180b",
    "olmo-2-7b",
    "olmoe-1b-7b",
}


# checked against published figures by the dedicated tests above rather than in TOTALS
CHECKED_ELSEWHERE = {
    "falcon-7b",
    "falcon-40b",
    "gemma-3-27b",
    "llama-4-scout",
    "llama-4-maverick",
    "gemma-3-4b",
    "gemma-3-12b",
    "mistral-small-3.1-24b",
    # the 2026 presets: tests/io/test_presets_2026.py (model card totals and actives, with the
    # vision tower where the card counts it)
    *PRESETS_2026,
}


def test_required_presets_exist_and_each_has_a_reference_count():
    presets = set(model_presets())
    assert presets >= REQUIRED
    checked = {row[0] for row in TOTALS} | CHECKED_ELSEWHERE
    assert presets <= checked, "every preset needs a published count in this file"


@pytest.mark.parametrize("preset", sorted(model_presets()))
def test_preset_validates_and_is_well_formed(preset: str):
    data = model_presets()[preset]
    assert re.fullmatch(r"[a-z0-9.]+(-[a-z0-9.]+)*", preset), "ids: lowercase words joined by -"
    assert data["id"] == preset
    assert data["source_url"].startswith("https://")
    spec = parse_scenario({"model": {"preset": preset}}).model
    assert spec.layers and spec.hidden_size and spec.vocab_size and spec.max_context
    assert spec.sliding_window_layers <= spec.layers
    assert (spec.sliding_window is None) == (spec.sliding_window_layers == 0)


def test_sliding_window_layouts():
    # Gemma 2: every other layer local, window 4096 (Gemma 2 report §2); Gemma 3: 5 local : 1
    # global, window 1024 (Gemma 3 report §2.2); Mistral 7B v0.1: window 4096 on all layers.
    spec = {
        p: parse_scenario({"model": {"preset": p}}).model
        for p in ("gemma-2-9b", "gemma-2-27b", "gemma-3-27b", "mistral-7b", "llama-3.1-8b")
    }
    assert (spec["gemma-2-9b"].sliding_window, spec["gemma-2-9b"].sliding_window_layers) == (4096, 21)
    assert spec["gemma-2-27b"].sliding_window_layers == 23
    assert (spec["gemma-3-27b"].sliding_window, spec["gemma-3-27b"].sliding_window_layers) == (
        1024,
        62 - 62 // 6,
    )
    assert spec["mistral-7b"].sliding_window_layers == 32
    assert spec["llama-3.1-8b"].sliding_window is None


def test_tensor_counts_follow_transformers_modules():
    # Llama 3.1 8B: 9 tensors per layer + embed, lm_head, final norm (AdamW: one step each,
    # 84 bytes for the calibration file's 2-layer Llama = 21 tensors).
    assert counts("llama-3.1-8b").tensors == 32 * 9 + 3
    # Phi-3: qkv_proj, o_proj, gate_up_proj, down_proj, 2 norms per layer.
    assert counts("phi-3-mini").tensors == 32 * 6 + 3
    # GPT-2: c_attn w+b, c_proj w+b, c_fc w+b, mlp c_proj w+b, ln_1 w+b, ln_2 w+b; wte, wpe, ln_f.
    assert counts("gpt-2").tensors == 12 * 12 + 2 + 2
