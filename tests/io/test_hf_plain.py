"""Decoders with a plain, biased two-matrix MLP (io/hf_plain.py) import with their published
parameter counts; read as Llama-like before, their MLP counted gated (Phi-2 3.62B for 2.78B)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import import_hf_config
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.specs import ModelSpec

# microsoft/phi-2 config.json (PhiForCausalLM)
PHI_2: dict[str, Any] = {
    "architectures": ["PhiForCausalLM"],
    "model_type": "phi",
    "hidden_size": 2560,
    "intermediate_size": 10240,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "vocab_size": 51200,
    "max_position_embeddings": 2048,
    "partial_rotary_factor": 0.4,
    "hidden_act": "gelu_new",
    "layer_norm_eps": 1e-05,
    "qk_layernorm": False,
    "resid_pdrop": 0.1,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
}
# EleutherAI/pythia-160m config.json (GPTNeoXForCausalLM)
PYTHIA_160M: dict[str, Any] = {
    "architectures": ["GPTNeoXForCausalLM"],
    "model_type": "gpt_neox",
    "hidden_size": 768,
    "intermediate_size": 3072,
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
    "vocab_size": 50304,
    "max_position_embeddings": 2048,
    "hidden_act": "gelu",
    "rotary_pct": 0.25,
    "use_parallel_residual": True,
    "tie_word_embeddings": False,
}
PYTHIA_6_9B = {
    **PYTHIA_160M,
    "hidden_size": 4096,
    "intermediate_size": 16384,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "vocab_size": 50432,
}


@pytest.mark.parametrize(
    ("config", "published", "source"),
    [
        # modeling_phi.py: 32 x (4 biased 2560² + fc1/fc2 biased + one LayerNorm) + embedding
        # + biased lm_head + final LayerNorm; Hugging Face page: 2.78B
        (PHI_2, 2_779_683_840, "microsoft/phi-2"),
        # Biderman et al. 2023 (Pythia), Table 1: total parameters, exact
        (PYTHIA_160M, 162_322_944, "Pythia Table 1"),
        (PYTHIA_6_9B, 6_857_302_016, "Pythia Table 1"),
    ],
)
def test_plain_mlp_families_count_exactly(config: dict[str, Any], published: int, source: str) -> None:
    block = import_hf_config(config)
    assert block["mlp"] == "plain" and block["norm"] == "layernorm"
    assert count_parameters(ModelSpec(**block)).total == published, source


def test_phi_reads_its_head_bias_and_parallel_block() -> None:
    block = import_hf_config(PHI_2)
    assert block["lm_head_bias"] and block["parallel_attention"] and block["norms_per_layer"] == 1


@pytest.mark.parametrize(
    ("config", "edit", "words"),
    [
        (PHI_2, {"qk_layernorm": "yes"}, "qk_layernorm must be true or false"),
        (PYTHIA_160M, {"use_parallel_residual": 1}, "use_parallel_residual must be true or false"),
        (PYTHIA_160M, {"attention_bias": "no"}, "attention_bias must be true or false"),
        (PHI_2, {"intermediate_size": None}, "intermediate_size"),
    ],
)
def test_hostile_plain_configs(config: dict[str, Any], edit: dict[str, Any], words: str) -> None:
    cfg = copy.deepcopy(config)
    cfg.update(edit)
    with pytest.raises(ScenarioError) as err:
        import_hf_config(cfg)
    assert err.value.field == "config" and words in err.value.message
