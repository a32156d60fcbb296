"""A config of a ``model_type`` no reader lists: read as a Llama-like decoder, unless a key says
its blocks are not Llama's (io/hf_registry.py ``NOT_LLAMA_KEYS``), then refused naming the key."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import ScenarioError
from gpusizer.io.hf_config import import_hf_config

BASE: dict[str, Any] = {
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "vocab_size": 32000,
}


def test_an_unlisted_plain_decoder_is_read_as_llama_like() -> None:
    block = import_hf_config({**BASE, "model_type": "acme_lm", "layer_types": ["full_attention"] * 24})
    assert block["layers"] == 24 and block["kv_heads"] == 4


@pytest.mark.parametrize(
    ("kind", "extra", "named"),
    [
        # moonshotai/Kimi-Linear-48B-A3B-Instruct config.json: KDA layers beside MLA ones
        ("kimi_linear", {"linear_attn_config": {"kda_layers": [1, 2, 3]}}, "linear_attn_config"),
        # MiniMax-M1 config.json: attn_type_list, 0 = lightning (linear) attention
        ("minimax", {"attn_type_list": [0, 0, 0, 1]}, "attn_type_list"),
        # meituan-longcat/LongCat-Flash-Chat config.json: MLA
        ("longcat_flash", {"kv_lora_rank": 512}, "kv_lora_rank"),
        # LiquidAI/LFM2-8B-A1B config.json: short-convolution layers
        ("lfm2_moe", {"layer_types": ["conv", "conv", "full_attention"]}, "layer_types conv"),
    ],
)
def test_an_unlisted_type_with_other_blocks_is_refused_naming_the_key(
    kind: str, extra: dict[str, Any], named: str
) -> None:
    with pytest.raises(ScenarioError) as err:
        import_hf_config({**BASE, "model_type": kind, **extra})
    assert err.value.field == "config" and named in str(err.value) and kind in str(err.value)


def test_a_listed_type_keeps_its_own_reader() -> None:
    # qwen3_next's reader reads its linear_attention layers (io/hf_families_2026.py)
    from gpusizer.io.hf_config import _FAMILIES

    assert "qwen3_next" in _FAMILIES
