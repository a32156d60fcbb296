"""Importing Hugging Face config.json files: every family gives its preset's exact architecture.

Fixtures in ``configs/`` are the released config.json files of the preset models (copied from
the Hugging Face repositories each preset's ``source_url`` names), plus the first Falcon configs
(``RefinedWeb``/``RefinedWebModel``, written for the remote RW modelling code) and Gemma 3 1B.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import model_presets
from gpusizer.core.model.specs import ModelSpec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.io import import_hf_config

CONFIGS = Path(__file__).parent / "configs"

# fixture file -> the preset it must reproduce
FIXTURES = {p.stem: p.stem for p in CONFIGS.glob("*.json") if p.stem in model_presets()}
FIXTURES["falcon-7b-refinedwebmodel"] = "falcon-7b"
FIXTURES["falcon-40b-refinedweb"] = "falcon-40b"


def _arch(block: dict[str, Any]) -> dict[str, Any]:
    """Every ModelSpec field but the labels (name, links, preset id)."""
    fields = {k: v for k, v in block.items() if k not in ("id", "notes")}
    return ModelSpec(**fields).model_dump(exclude={"name", "source_url", "preset"})


def test_every_preset_with_a_released_config_has_a_fixture():
    no_config = {"gpt-3-175b"}  # GPT-3 weights and config were never released
    assert set(model_presets()) - no_config <= set(FIXTURES.values())


@pytest.mark.parametrize(("fixture", "preset"), sorted(FIXTURES.items()))
def test_import_reproduces_the_preset(fixture: str, preset: str):
    block = import_hf_config(CONFIGS / f"{fixture}.json")
    assert "preset" not in block
    assert _arch(block) == _arch(model_presets()[preset])
    spec = parse_scenario({"model": block}).model  # a valid scenario model block as it stands
    expected = parse_scenario({"model": {"preset": preset}}).model
    assert count_parameters(spec).total == count_parameters(expected).total


def _calibration_records() -> list[dict[str, Any]]:
    here = Path(__file__).resolve()
    for base in (here.parents[2], here.parents[3]):
        path = base / "shared" / "calibration" / "hf-measured.json"
        if path.is_file():
            return list(json.loads(path.read_text(encoding="utf-8"))["param_counts"])
    return []


@pytest.mark.parametrize("record", _calibration_records(), ids=lambda r: r["name"])
def test_calibration_configs_give_the_measured_counts(record: dict[str, Any]):
    # shared/calibration/hf-measured.json: transformers 5.24 configs (rope_parameters style),
    # counted on the meta device; exact.
    counts = count_parameters(ModelSpec(**import_hf_config(record["config"])))
    assert counts.total == record["measured"]["total_params"]
    if record["name"] == "Llama-3.1-8B":
        assert counts.total == 8_030_261_248


def test_gemma_3_1b_text_config_matches_the_report():
    # Gemma 3 report (arXiv 2503.19786) Table 1, 1B: 302M embedding + 698M non-embedding;
    # window 512 on 5 of every 6 layers (sliding_window_pattern 6): 26 - 26 // 6 = 22 layers.
    block = import_hf_config(CONFIGS / "gemma-3-1b.json")
    counts = count_parameters(ModelSpec(**block))
    assert counts.total == 999_885_952
    assert round(counts.embedding / 1e6) == 302
    assert round((counts.total - counts.embedding) / 1e6) == 698
    assert (block["sliding_window"], block["sliding_window_layers"]) == (512, 22)


def test_gemma_3_nested_text_config_takes_transformers_defaults():
    # gemma-3-27b's text_config omits vocab_size and context: Gemma3TextConfig defaults apply.
    block = import_hf_config(CONFIGS / "gemma-3-27b.json")
    assert block["family"] == "gemma3_text"
    assert (block["vocab_size"], block["max_context"]) == (262_208, 131_072)
    assert block["tied_embeddings"] is True


def test_qwen2_moe_shared_expert():
    # Qwen1.5-MoE-A2.7B config.json; model card: 14.3B total, 2.7B activated (rounded, 1%).
    cfg = {
        "model_type": "qwen2_moe",
        "hidden_size": 2048,
        "num_hidden_layers": 24,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "intermediate_size": 5632,
        "moe_intermediate_size": 1408,
        "shared_expert_intermediate_size": 5632,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "decoder_sparse_step": 1,
        "mlp_only_layers": [],
        "vocab_size": 151936,
        "tie_word_embeddings": False,
        "max_position_embeddings": 8192,
        "use_sliding_window": False,
        "sliding_window": 32768,
    }
    block = import_hf_config(cfg)
    assert block["moe"]["shared_expert_gate"] is True and block["qkv_bias"] is True
    counts = count_parameters(ModelSpec(**block))
    assert abs(counts.total / 14.3e9 - 1) < 0.01
    assert abs(counts.active / 2.7e9 - 1) < 0.01


def test_deepseek_v2_lite_without_q_lora():
    # DeepSeek-V2-Lite config.json (q_lora_rank null, 1 dense layer, 2 shared experts);
    # model card: 15.7B total (rounded, 0.1%).
    cfg = {
        "model_type": "deepseek_v2",
        "hidden_size": 2048,
        "num_hidden_layers": 27,
        "num_attention_heads": 16,
        "num_key_value_heads": 16,
        "intermediate_size": 10944,
        "moe_intermediate_size": 1408,
        "n_shared_experts": 2,
        "n_routed_experts": 64,
        "num_experts_per_tok": 6,
        "first_k_dense_replace": 1,
        "moe_layer_freq": 1,
        "kv_lora_rank": 512,
        "q_lora_rank": None,
        "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64,
        "v_head_dim": 128,
        "vocab_size": 102400,
        "tie_word_embeddings": False,
        "max_position_embeddings": 163840,
        "topk_method": "greedy",
    }
    block = import_hf_config(cfg)
    assert "q_lora_rank" not in block["mla"]
    assert block["moe"]["dense_layers"] == 1 and block["moe"]["router_bias"] is False
    assert abs(count_parameters(ModelSpec(**block)).total / 15.7e9 - 1) < 0.001


def test_qwen2_sliding_window_applies_from_max_window_layers():
    # modeling_qwen2.py: layer i slides when use_sliding_window and i >= max_window_layers.
    cfg = json.loads((CONFIGS / "qwen2.5-7b.json").read_text(encoding="utf-8"))
    assert "sliding_window" not in import_hf_config(cfg)  # use_sliding_window false
    cfg.update(use_sliding_window=True, max_window_layers=20, sliding_window=4096)
    block = import_hf_config(cfg)
    assert (block["sliding_window"], block["sliding_window_layers"]) == (4096, 8)


def test_layer_types_list_wins():
    # transformers >= 4.53 writes layer_types; it decides which layers slide.
    cfg = json.loads((CONFIGS / "gemma-2-9b.json").read_text(encoding="utf-8"))
    cfg["layer_types"] = ["sliding_attention"] * 30 + ["full_attention"] * 12
    assert import_hf_config(cfg)["sliding_window_layers"] == 30


def test_unknown_model_type_is_read_as_llama_like():
    cfg = json.loads((CONFIGS / "llama-2-7b.json").read_text(encoding="utf-8"))
    cfg["model_type"] = "my_llama_clone"
    block = import_hf_config(cfg)
    assert block["family"] == "my_llama_clone"
    assert count_parameters(ModelSpec(**block)).total == 6_738_415_616


def test_accepts_dict_text_file_and_folder(tmp_path: Path):
    text = (CONFIGS / "mistral-7b.json").read_text(encoding="utf-8")
    (tmp_path / "config.json").write_text(text, encoding="utf-8")
    expected = import_hf_config(json.loads(text))
    assert import_hf_config(text) == expected
    assert import_hf_config(tmp_path / "config.json") == expected
    assert import_hf_config(str(tmp_path / "config.json")) == expected
    assert import_hf_config(tmp_path) == expected
    assert expected["sliding_window"] == 4096 and expected["sliding_window_layers"] == 32


def test_missing_keys_are_named():
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text(encoding="utf-8"))
    del cfg["hidden_size"], cfg["vocab_size"]
    with pytest.raises(ScenarioError) as err:
        import_hf_config(cfg)
    assert err.value.field == "config"
    assert "hidden_size" in err.value.message and "vocab_size" in err.value.message
    assert "llama" in err.value.message


def test_missing_mla_keys_are_named():
    cfg = json.loads((CONFIGS / "deepseek-v3.json").read_text(encoding="utf-8"))
    del cfg["kv_lora_rank"]
    with pytest.raises(ScenarioError, match="kv_lora_rank"):
        import_hf_config(cfg)


def test_missing_expert_keys_are_named():
    cfg = json.loads((CONFIGS / "mixtral-8x7b.json").read_text(encoding="utf-8"))
    del cfg["num_experts_per_tok"]
    with pytest.raises(ScenarioError, match="num_experts_per_tok"):
        import_hf_config(cfg)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (Path("/nonexistent/config.json"), "cannot read"),
        (42, "give a config.json"),
    ],
)
def test_bad_input_raises_scenario_error(config: Any, message: str):
    with pytest.raises(ScenarioError, match=message) as err:
        import_hf_config(config)
    assert err.value.field == "config"


def test_bad_values_are_refused_as_config_errors():
    cfg = json.loads((CONFIGS / "llama-2-7b.json").read_text(encoding="utf-8"))
    cfg["num_hidden_layers"] = 0
    with pytest.raises(ScenarioError, match="layers") as err:
        import_hf_config(cfg)
    assert err.value.field == "config"
    cfg.update(num_hidden_layers=32, num_key_value_heads=5)  # 32 heads are not 5 groups
    with pytest.raises(ScenarioError, match="kv_heads"):
        import_hf_config(cfg)


@pytest.mark.parametrize(
    ("key", "value"), [("hidden_size", "big"), ("num_attention_heads", 0), ("first_k_dense_replace", "x")]
)
def test_unusable_values_are_config_errors(key: str, value: Any):
    cfg = json.loads((CONFIGS / "deepseek-v3.json").read_text(encoding="utf-8"))
    cfg[key] = value
    with pytest.raises(ScenarioError) as err:
        import_hf_config(cfg)
    assert err.value.field == "config"
