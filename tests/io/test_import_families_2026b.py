"""2025-26 families that were read as Llama-like decoders import at their own blocks
(io/hf_families_2026b.py) with the parameter count transformers' ``from_config`` builds and the
model card's published total; the ones whose blocks no field prices stay refused, naming why.

Fixtures (tests/io/configs/), the size keys of each released config.json as public code quotes
it (tokenizer ids and the like left out):
- dots.llm1.inst: rednote-hilab/dots.llm1.inst's config as a public MLX port's parse test
  quotes it ("a trimmed dots.llm1.inst-mixed-4-6bit config"; its quantisation block left out).
- Ling-lite-1.5: inclusionAI/Ling-lite-1.5's config.json, which a public MLX port reproduces
  "field for field".
- Ling-mini-2.0: inclusionAI/Ling-mini-2.0's config as a public Swift fixture transcribes it
  ("values are transcribed from the published config"); SGLang's test_pp_spec_embed_scan.py
  shrinks the same config and keeps its ``model_type`` "bailing_moe".
- SmolLM3-3B: HuggingFaceTB/SmolLM3-3B's sizes as public adapters and parity tests quote them.
- Olmo-3-1025-7B: allenai's config as public OLMo-3 tests quote it (vocab 100,278, 32 layers of
  4096, 11,008 MLP, 3 sliding layers to 1 full, window 4096).
- Apertus-8B-2509: swiss-ai's config as ollama's x/mlxrunner apertus parse test quotes it.
- GLM-4.5V: its text_config is GLM-4.5-Air's (the card: "based on GLM-4.5-Air"; transformers
  ``Glm4vMoeTextConfig``), built here from tests/io/configs/glm-4.5-air.json; the vision tower
  is left out of the fixture.

Published totals (Hugging Face model cards): dots.llm1 142B total, 14B active
(rednote-hilab/dots.llm1.inst); Ling-lite-1.5 16.8B total, 2.75B active
(inclusionAI/Ling-lite-1.5); Ling-mini-2.0 16B total, 1.4B active (inclusionAI/Ling-mini-2.0);
SmolLM3 3B (HuggingFaceTB/SmolLM3-3B); Olmo 3 7B (allenai/Olmo-3-1025-7B); Apertus 8B
(swiss-ai/Apertus-8B-2509); GLM-4.5V 106B total, 12B active (zai-org/GLM-4.5V).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report, import_hf_config

CONFIGS = Path(__file__).parent / "configs"


def _config(name: str) -> dict[str, Any]:
    return dict(json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")))


def _parameters(name: str) -> dict[str, int]:
    block = import_hf_config(_config(name))
    s = {"model": block, "workload": {"kind": "inference", "sequence_length": 4096}}
    return dict(estimate_report(s)["parameters"])


def _attention(h: int, heads: int, kv: int, hd: int, norm: int = 0, bias: int = 0) -> int:
    """q, k, v, o projections (+ their q/k/v biases and q/k norm weights), two layer norms."""
    return h * heads * hd * 2 + 2 * h * kv * hd + bias + norm + 2 * h


def _moe(h: int, experts: int, width: int, shared: int) -> int:
    """Routed gated experts, the shared experts as one gated MLP, the router's weight."""
    return experts * 3 * h * width + 3 * h * shared + experts * h


# the tensor shapes each family's modelling code builds, summed (module doc); embeddings and
# the final norm added in the test
ARITHMETIC: dict[str, int] = {
    # modeling_dots1.py: 62 layers, q/k norm of head_dim, 1 dense layer, 61 MoE layers
    "dots.llm1.inst": 62 * _attention(4096, 32, 32, 128, norm=256)
    + 3 * 4096 * 10944
    + 61 * _moe(4096, 128, 1408, 2 * 1408)
    + 2 * 152064 * 4096,
    # Ling-lite-1.5: 28 MoE layers, 2 shared experts of 1408
    "ling-lite-1.5": 28 * (_attention(2048, 16, 4, 128) + _moe(2048, 64, 1408, 2 * 1408)) + 2 * 126464 * 2048,
    # Ling-mini-2.0: q/k norm of head_dim, 1 dense layer of 5120, 19 MoE layers
    "ling-mini-2.0": 20 * _attention(2048, 16, 4, 128, norm=256)
    + 3 * 2048 * 5120
    + 19 * _moe(2048, 256, 512, 512)
    + 2 * 157184 * 2048,
    # SmolLM3: Llama's layer, tied embeddings
    "smollm3-3b": 36 * (_attention(2048, 16, 4, 128) + 3 * 2048 * 11008) + 128256 * 2048,
    # Olmo3Attention: q_norm over 32 x 128, k_norm over 32 x 128
    "olmo-3-7b": 32 * (_attention(4096, 32, 32, 128, norm=2 * 4096) + 3 * 4096 * 11008) + 2 * 100278 * 4096,
    # ApertusMLP: up and down only; q/k norm of head_dim
    "apertus-8b": 32 * (_attention(4096, 32, 8, 128, norm=256) + 2 * 4096 * 21504) + 2 * 131072 * 4096,
    # Glm4vMoeTextAttention: q/k/v biases, no o bias; 1 dense layer, 45 MoE layers
    "glm-4.5v": 46 * _attention(4096, 96, 8, 128, bias=96 * 128 + 2 * 8 * 128)
    + 3 * 4096 * 10944
    + 45 * _moe(4096, 128, 1408, 1408)
    + 2 * 151552 * 4096,
}
HIDDEN = {"dots.llm1.inst": 4096, "olmo-3-7b": 4096, "apertus-8b": 4096, "glm-4.5v": 4096}


@pytest.mark.parametrize("name", sorted(ARITHMETIC))
def test_the_count_is_the_modelling_codes(name: str) -> None:
    # transformers' from_config builds these tensors; 0.5 % leaves room for buffers and the
    # xIELU scalars left uncounted (module doc of io/hf_families_2026b.py)
    expected = ARITHMETIC[name] + HIDDEN.get(name, 2048)  # + the final norm
    assert _parameters(name)["total"] == pytest.approx(expected, rel=0.005)


@pytest.mark.parametrize(
    ("name", "total", "active", "tolerance"),
    [
        ("dots.llm1.inst", 142e9, 14e9, 0.02),  # 142.77B / 14.02B (+0.5 %, +0.1 %)
        ("ling-lite-1.5", 16.8e9, 2.75e9, 0.01),  # 16.80B / 2.753B (was 16.32B / 2.27B)
        ("ling-mini-2.0", 16e9, 1.4e9, 0.03),  # 16.26B / 1.433B (was 16.97B)
        ("smollm3-3b", 3e9, None, 0.03),  # 3.075B: the card rounds to 3B
        ("olmo-3-7b", 7e9, None, 0.05),  # 7.298B: the name rounds down (+4.3 %)
        ("apertus-8b", 8e9, None, 0.01),  # 8.053B (was 10.87B: a gated MLP)
        ("glm-4.5v", 106e9, None, 0.01),  # 106.85B text model (was 108.15B)
    ],
)
def test_published_totals(name: str, total: float, active: float | None, tolerance: float) -> None:
    p = _parameters(name)
    assert p["total"] == pytest.approx(total, rel=tolerance)
    if active is not None:
        assert p["active"] == pytest.approx(active, rel=tolerance)


def test_blocks_read() -> None:
    dots = import_hf_config(_config("dots.llm1.inst"))
    assert dots["moe"]["dense_layers"] == 1 and dots["moe"]["shared_experts"] == 2
    ling = import_hf_config(_config("ling-mini-2.0"))
    assert ling["qk_norm"] == "head" and ling["moe"]["shared_expert_ffn_hidden_size"] == 512
    assert import_hf_config(_config("apertus-8b"))["mlp"] == "plain"
    olmo = import_hf_config(_config("olmo-3-7b"))
    # the KV cache: 24 of 32 layers keep at most 4096 tokens (layer_types)
    assert olmo["qk_norm"] == "full" and olmo["sliding_window_layers"] == 24
    assert import_hf_config(_config("glm-4.5v"))["moe"]["dense_layers"] == 1


BASE: dict[str, Any] = {
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "vocab_size": 32000,
}


def test_lfm2_moe_is_refused_naming_its_short_convolutions() -> None:
    # LiquidAI/LFM2-8B-A1B: "conv" layers (Lfm2MoeShortConv), which no block field prices
    with pytest.raises(ScenarioError) as err:
        import_hf_config({**BASE, "model_type": "lfm2_moe", "num_experts": 32, "num_experts_per_tok": 4})
    assert "short convolutions" in str(err.value) and "lfm2_moe" in str(err.value)


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        # ERNIE-4.5-VL-28B-A3B config.json as a public detection test quotes it: text and
        # vision experts, a list of two counts (read before as a 3.6B dense model)
        ({"model_type": "ernie4_5_moe_vl", "moe_num_experts": [64, 64]}, "moe_num_experts"),
        # Step-3.5 (step3p5): 288 experts on the layers moe_layers_enum lists (read before as a
        # 13.3B dense model)
        ({"model_type": "step3p5", "moe_num_experts": 288, "moe_layers_enum": "3,4"}, "moe_num_experts"),
        # Step3 (step3_text): Step3vAttention's q_proj to share_q_dim, inter_norm, wq
        ({"model_type": "step3_text", "share_q_dim": 2048, "moe_num_experts": 48}, "share_q_dim"),
    ],
)
def test_unlisted_experts_and_factorised_attention_are_refused(extra: dict[str, Any], named: str) -> None:
    with pytest.raises(ScenarioError) as err:
        import_hf_config({**BASE, **extra})
    assert named in str(err.value) and extra["model_type"] in str(err.value)


def test_ling_mini_2_0_against_its_published_breakdown() -> None:
    # inclusionAI/Ling-mini-2.0 model card: 16B total, "1.4B are activated per input token
    # (non-embedding 789M)"; the Ling-V2 repository's variant table (deepwiki.com/inclusionAI/
    # Ling-V2/1.2-model-variants, from its README): 16.26B total, 1.43B activated
    p = _parameters("ling-mini-2.0")
    assert p["total"] == pytest.approx(16.26e9, rel=0.001)  # 16,255,638,528
    assert p["active"] == pytest.approx(1.43e9, rel=0.005)  # 1,432,968,192
    # less the input embedding and the untied head (2 x 157,184 x 2048): 789,142,528
    assert p["active"] - 2 * 157184 * 2048 == pytest.approx(789e6, rel=0.001)
