"""The 2026 open models as presets (src/gpusizer/presets/models/): each describes the
architecture its config.json imports to (io/hf_families_2026.py, tests/io/configs/, serving.md
§89), carries the model card's published counts, and is listed by the CLI and the window.

DeepSeek-V3.2's fixture (tests/io/configs/deepseek-v3.2.json) is DeepSeek-V3's config.json with
V3.2's keys: ``architectures`` DeepseekV32ForCausalLM, ``model_type`` deepseek_v32 and the
indexer's ``index_n_heads`` 64, ``index_head_dim`` 128, ``index_topk`` 2048 (DeepseekV32Config's
defaults; deepseek-ai/DeepSeek-V3.2-Exp inference/config_671B_v3.2.json); its other size keys
are V3's (the V3.2 report: "the same architecture as DeepSeek-V3.1-Terminus" plus DSA).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report, import_hf_config
from gpusizer.cli import main
from gpusizer.core.model.presets import model_presets
from gpusizer.core.model.specs import ModelSpec

CONFIGS = Path(__file__).parent / "configs"
PRESETS = [
    "qwen3.5-27b",
    "qwen3.5-35b-a3b",
    "qwen3.5-122b-a10b",
    "qwen3.5-397b-a17b",
    "glm-5",
    "kimi-k2.5",
    "minimax-m2",
    "deepseek-v3.2",
    "ernie-4.5-300b-a47b",
    "hunyuan-a13b",
    "granite-4.0-h-small",
    "nemotron-3-nano-30b-a3b",
]


def _parameters(model: dict[str, Any]) -> dict[str, int]:
    s = {"model": model, "workload": {"kind": "inference", "sequence_length": 4096}}
    return dict(estimate_report(s)["parameters"])


def _layer_kinds(block: dict[str, Any]) -> tuple[Any, ...]:
    """What each layer is: attention (MLA or not), recurrent mixers, MoE layout, MTP, tower."""
    m = ModelSpec(**{k: v for k, v in block.items() if k not in ("id", "notes")})
    moe = (
        (m.moe.experts, m.moe.experts_per_token, m.moe.dense_layers, m.moe.shared_experts) if m.moe else None
    )
    return (
        m.family,
        m.layers,
        m.mla is not None,
        m.linear_attention.layers if m.linear_attention else 0,
        m.mamba.layers if m.mamba else 0,
        m.mlp_layers,
        m.sliding_window_layers,
        moe,
        m.mtp_layers,
        m.vision.family if m.vision else None,
    )


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_is_what_its_config_imports_to(preset: str) -> None:
    # the estimate's parameters within 0.5 % (they are equal) and the same layer kinds
    imported = import_hf_config(CONFIGS / f"{preset}.json")
    data = model_presets()[preset]
    got, want = _parameters(imported), _parameters({"preset": preset})
    for key in ("total", "active"):
        assert abs(got[key] / want[key] - 1) <= 0.005, (preset, key)
    assert got.get("vision", 0) == want.get("vision", 0)
    assert _layer_kinds(imported) == _layer_kinds(data)


# (preset, published total, published active, tolerance of the total, of the active, source):
# the card's figures, with the vision tower where the card counts it (Qwen3.5: one total for
# text and tower). Qwen3.5-35B-A3B's "3B activated" names 3.45B (+15 %, test below).
PUBLISHED: list[tuple[str, float, float, float, float, str]] = [
    ("qwen3.5-27b", 27e9, 27e9, 0.02, 0.02, "huggingface.co/Qwen/Qwen3.5-27B: 27B (dense)"),
    ("qwen3.5-35b-a3b", 35e9, 3e9, 0.02, 0.16, "huggingface.co/Qwen/Qwen3.5-35B-A3B: 35B, A3B"),
    ("qwen3.5-122b-a10b", 122e9, 10e9, 0.03, 0.03, "huggingface.co/Qwen/Qwen3.5-122B-A10B: 122B, A10B"),
    ("qwen3.5-397b-a17b", 397e9, 17e9, 0.03, 0.03, "huggingface.co/Qwen/Qwen3.5-397B-A17B: 397B, A17B"),
    ("glm-5", 744e9, 40e9, 0.03, 0.03, "huggingface.co/zai-org/GLM-5: 744B total, 40B active"),
    ("kimi-k2.5", 1e12, 32e9, 0.03, 0.03, "huggingface.co/moonshotai/Kimi-K2.5: 1T total, 32B activated"),
    # MiniMax-M2's "10B active" leaves out the embedding and the head (test below): +10.3 % with
    ("minimax-m2", 230e9, 10e9, 0.02, 0.11, "huggingface.co/MiniMaxAI/MiniMax-M2: 230B total, 10B active"),
    ("deepseek-v3.2", 671e9, 37e9, 0.02, 0.02, "huggingface.co/deepseek-ai/DeepSeek-V3.2: 671B, 37B active"),
    (
        "ernie-4.5-300b-a47b",
        300e9,
        47e9,
        0.02,
        0.02,
        "huggingface.co/baidu/ERNIE-4.5-300B-A47B-PT: 300B, A47B",
    ),
    ("hunyuan-a13b", 80e9, 13e9, 0.02, 0.02, "huggingface.co/tencent/Hunyuan-A13B-Instruct: 80B, 13B active"),
    (
        "granite-4.0-h-small",
        32e9,
        9e9,
        0.03,
        0.03,
        "huggingface.co/ibm-granite/granite-4.0-h-small: 32B, 9B active",
    ),
    (
        "nemotron-3-nano-30b-a3b",
        31.6e9,
        3.6e9,
        0.02,
        0.02,
        "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 card: 31.6B, 3.6B",
    ),
]


@pytest.mark.parametrize(
    ("preset", "total", "active", "tol", "atol", "source"), PUBLISHED, ids=[r[0] for r in PUBLISHED]
)
def test_published_counts(
    preset: str, total: float, active: float, tol: float, atol: float, source: str
) -> None:
    # Kimi K2.5's 1,026.4B for "1T" and 32.86B for "32B" are the card's rounding (+2.6 %)
    got = _parameters({"preset": preset})
    vision = got.get("vision", 0)
    assert abs((got["total"] + vision) / total - 1) <= tol, source
    assert abs(got["active"] / active - 1) <= atol, source


def test_published_counts_cover_every_new_preset() -> None:
    assert [row[0] for row in PUBLISHED] == PRESETS
    assert set(PRESETS) <= set(model_presets())


def test_qwen3_5_35b_a3b_active_is_the_cards_rounding() -> None:
    # "A3B": 3,454,988,928 active (the text model; serving.md §89's 3.45B), 15 % over the name
    assert _parameters({"preset": "qwen3.5-35b-a3b"})["active"] == 3_454_988_928


def test_minimax_m2_active_without_the_embedding_and_head() -> None:
    # 11,030,537,216 - 2 x 200,064 x 3,072 (untied) = 9,801,344,000 against the card's 10B
    got = _parameters({"preset": "minimax-m2"})
    assert got["embedding"] == 200_064 * 3_072
    assert abs((got["active"] - 2 * got["embedding"]) / 10e9 - 1) <= 0.02


def test_every_new_preset_cites_its_card_and_states_mtp() -> None:
    for pid in PRESETS:
        data = model_presets()[pid]
        assert data["source_url"].startswith("https://huggingface.co/") and data["source_url"].endswith(
            "/config.json"
        )
        assert "Published:" in data["notes"] and "mtp_layers" in data["notes"]
        assert "mtp_layers" in data  # stated, null where the config does not say (unknown)


def test_cli_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for pid in PRESETS:
        row = next(line for line in lines if line.split()[0] == pid)
        assert model_presets()[pid]["name"] in row
    assert len({line.index(" B ") for line in lines}) == 1  # one column for every id
