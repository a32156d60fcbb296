"""Architectures outside the presets import with their published counts, or are refused in one
line naming ``architectures`` (io/hf_legacy.py, io/hf_gated.py, io/hf_registry.py).

Read as Llama-like before, StarCoder2-3B counted 4.31B (3.03B), StarCoder 24.8B (15.5B),
ChatGLM3-6B 7.12B (6.24B) and Command R 37.1B (35.0B); GPT-J, BLOOM, MPT and OPT were refused
for want of ``intermediate_size``; Mamba, Mamba-2, RWKV and T5 were refused naming a missing key
rather than the unmodelled blocks (Mamba-2 is now read, io/hf_ssm.py). Each config below holds
the size keys of the released config.json of the Hugging Face repository named beside it
(tokenizer ids and the like left out).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import import_hf_config
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.specs import ModelSpec
from gpusizer.io.hf_registry import merged

STARCODER2_3B: dict[str, Any] = {  # bigcode/starcoder2-3b
    "architectures": ["Starcoder2ForCausalLM"],
    "model_type": "starcoder2",
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_size": 3072,
    "intermediate_size": 12288,
    "max_position_embeddings": 16384,
    "num_attention_heads": 24,
    "num_hidden_layers": 30,
    "num_key_value_heads": 2,
    "sliding_window": 4096,
    "use_bias": True,
    "vocab_size": 49152,
}
STARCODER2_7B = {  # bigcode/starcoder2-7b
    **STARCODER2_3B,
    "hidden_size": 4608,
    "intermediate_size": 18432,
    "num_attention_heads": 36,
    "num_hidden_layers": 32,
    "num_key_value_heads": 4,
}
STARCODER2_15B = {  # bigcode/starcoder2-15b (its config unties the head)
    **STARCODER2_3B,
    "hidden_size": 6144,
    "intermediate_size": 24576,
    "num_attention_heads": 48,
    "num_hidden_layers": 40,
    "num_key_value_heads": 4,
    "tie_word_embeddings": False,
}
GPT_J_6B: dict[str, Any] = {  # EleutherAI/gpt-j-6b
    "architectures": ["GPTJForCausalLM"],
    "model_type": "gptj",
    "activation_function": "gelu_new",
    "n_embd": 4096,
    "n_head": 16,
    "n_inner": None,
    "n_layer": 28,
    "n_positions": 2048,
    "rotary_dim": 64,
    "tie_word_embeddings": False,
    "vocab_size": 50400,
}
STARCODER: dict[str, Any] = {  # bigcode/starcoder (GPTBigCodeForCausalLM)
    "architectures": ["GPTBigCodeForCausalLM"],
    "model_type": "gpt_bigcode",
    "activation_function": "gelu_pytorch_tanh",
    "multi_query": True,
    "n_embd": 6144,
    "n_head": 48,
    "n_inner": 24576,
    "n_layer": 40,
    "n_positions": 8192,
    "vocab_size": 49152,
}
OPT_125M: dict[str, Any] = {  # facebook/opt-125m
    "architectures": ["OPTForCausalLM"],
    "model_type": "opt",
    "activation_function": "relu",
    "do_layer_norm_before": True,
    "dropout": 0.1,
    "ffn_dim": 3072,
    "hidden_size": 768,
    "max_position_embeddings": 2048,
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
    "vocab_size": 50272,
    "word_embed_proj_dim": 768,
}
OLMO_1B: dict[str, Any] = {  # allenai/OLMo-1B-hf
    "architectures": ["OlmoForCausalLM"],
    "model_type": "olmo",
    "attention_bias": False,
    "clip_qkv": None,
    "hidden_size": 2048,
    "intermediate_size": 8192,
    "max_position_embeddings": 2048,
    "num_attention_heads": 16,
    "num_hidden_layers": 16,
    "num_key_value_heads": 16,
    "tie_word_embeddings": True,
    "vocab_size": 50304,
}
OLMO_7B = {  # allenai/OLMo-7B-hf
    **OLMO_1B,
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "tie_word_embeddings": False,
}
CHATGLM3_6B: dict[str, Any] = {  # THUDM/chatglm3-6b
    "architectures": ["ChatGLMModel"],
    "model_type": "chatglm",
    "add_bias_linear": False,
    "add_qkv_bias": True,
    "ffn_hidden_size": 13696,
    "hidden_size": 4096,
    "kv_channels": 128,
    "multi_query_attention": True,
    "multi_query_group_num": 2,
    "num_attention_heads": 32,
    "num_layers": 28,
    "padded_vocab_size": 65024,
    "post_layer_norm": True,
    "rmsnorm": True,
    "seq_length": 8192,
    "tie_word_embeddings": False,
}
GLM_4_9B = {**CHATGLM3_6B, "num_layers": 40, "padded_vocab_size": 151552, "seq_length": 131072}
INTERNLM2_7B: dict[str, Any] = {  # internlm/internlm2-7b
    "architectures": ["InternLM2ForCausalLM"],
    "model_type": "internlm2",
    "bias": False,
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 32768,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "tie_word_embeddings": False,
    "vocab_size": 92544,
}
BAICHUAN2_7B: dict[str, Any] = {  # baichuan-inc/Baichuan2-7B-Base
    "architectures": ["BaichuanForCausalLM"],
    "model_type": "baichuan",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "max_position_embeddings": 4096,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "tie_word_embeddings": False,
    "vocab_size": 125696,
}
BLOOM_560M: dict[str, Any] = {  # bigscience/bloom-560m
    "architectures": ["BloomForCausalLM"],
    "model_type": "bloom",
    "n_embed": 1024,
    "n_layer": 24,
    "num_attention_heads": 16,
    "vocab_size": 250880,
}
BLOOM_176B = {**BLOOM_560M, "n_embed": 14336, "n_layer": 70, "num_attention_heads": 112}  # bigscience/bloom
MPT_7B: dict[str, Any] = {  # mosaicml/mpt-7b
    "architectures": ["MPTForCausalLM"],
    "model_type": "mpt",
    "attn_config": {"alibi": True, "attn_impl": "torch"},
    "d_model": 4096,
    "expansion_ratio": 4,
    "max_seq_len": 2048,
    "n_heads": 32,
    "n_layers": 32,
    "no_bias": True,
    "vocab_size": 50432,
}
COMMAND_R: dict[str, Any] = {  # CohereForAI/c4ai-command-r-v01
    "architectures": ["CohereForCausalLM"],
    "model_type": "cohere",
    "hidden_size": 8192,
    "intermediate_size": 22528,
    "logit_scale": 0.0625,
    "max_position_embeddings": 8192,
    "num_attention_heads": 64,
    "num_hidden_layers": 40,
    "num_key_value_heads": 64,
    "use_qk_norm": False,
    "vocab_size": 256000,
}
COMMAND_R_PLUS = {  # CohereForAI/c4ai-command-r-plus
    **COMMAND_R,
    "hidden_size": 12288,
    "intermediate_size": 33792,
    "num_attention_heads": 96,
    "num_hidden_layers": 64,
    "num_key_value_heads": 8,
    "use_qk_norm": True,
}
COMMAND_R7B = {  # CohereForAI/c4ai-command-r7b-12-2024
    **COMMAND_R,
    "architectures": ["Cohere2ForCausalLM"],
    "model_type": "cohere2",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "sliding_window": 4096,
    "sliding_window_pattern": 4,
}
MAMBA_CODESTRAL: dict[str, Any] = {  # mistralai/Mamba-Codestral-7B-v0.1
    "architectures": ["Mamba2ForCausalLM"],
    "model_type": "mamba2",
    "conv_kernel": 4,
    "expand": 2,
    "head_dim": 64,
    "hidden_size": 4096,
    "n_groups": 8,
    "num_heads": 128,
    "num_hidden_layers": 64,
    "state_size": 128,
    "tie_word_embeddings": False,
    "use_bias": False,
    "use_conv_bias": True,
    "vocab_size": 32768,
}
NEMOTRON_MINI_4B: dict[str, Any] = {  # nvidia/Nemotron-Mini-4B-Instruct (Minitron-4B)
    "architectures": ["NemotronForCausalLM"],
    "model_type": "nemotron",
    "hidden_act": "relu2",
    "hidden_size": 3072,
    "intermediate_size": 9216,
    "kv_channels": 128,
    "max_position_embeddings": 4096,
    "num_attention_heads": 24,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "partial_rotary_factor": 0.5,
    "tie_word_embeddings": False,
    "vocab_size": 256000,
}
MINITRON_8B = {  # nvidia/Minitron-8B-Base: 48 heads of 128 over a 4096 width
    **NEMOTRON_MINI_4B,
    "hidden_size": 4096,
    "intermediate_size": 16384,
    "num_attention_heads": 48,
}
PERSIMMON_8B: dict[str, Any] = {  # adept/persimmon-8b-base
    "architectures": ["PersimmonForCausalLM"],
    "model_type": "persimmon",
    "hidden_act": "relu2",
    "hidden_size": 4096,
    "intermediate_size": 16384,
    "max_position_embeddings": 16384,
    "num_attention_heads": 64,
    "num_hidden_layers": 36,
    "qk_layernorm": True,
    "tie_word_embeddings": False,
    "vocab_size": 262144,
}
STABLELM_2_1_6B: dict[str, Any] = {  # stabilityai/stablelm-2-1_6b
    "architectures": ["StableLmForCausalLM"],
    "model_type": "stablelm",
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "num_attention_heads": 32,
    "num_hidden_layers": 24,
    "num_key_value_heads": 32,
    "tie_word_embeddings": False,
    "use_parallel_residual": False,
    "use_qkv_bias": True,
    "vocab_size": 100352,
}


def _total(config: dict[str, Any]) -> int:
    return count_parameters(ModelSpec(**import_hf_config(config))).total


@pytest.mark.parametrize(
    ("config", "count", "source"),
    [
        # modeling_starcoder2.py: 30 x (biased q/k/v/o, c_fc/c_proj, 2 LayerNorms) + tied
        # embedding + final LayerNorm; Hugging Face page: 3.03B
        (STARCODER2_3B, 3_030_371_328, "starcoder2-3b, HF 3.03B"),
        (STARCODER2_7B, 7_173_923_840, "starcoder2-7b, HF 7.17B"),
        # untied head: + 49152 x 6144; Hugging Face page 16B (the model card's "15B")
        (STARCODER2_15B, 15_957_889_024, "starcoder2-15b, HF 16B"),
        # modeling_gptj.py arithmetic; the model card's table gives 6,053,381,344 (its JAX
        # count, 0.04 % above: what transformers builds is the figure checked)
        (GPT_J_6B, 6_050_882_784, "gpt-j-6b, modeling_gptj.py"),
        # modeling_gpt_bigcode.py: c_attn h x (h + 2 x 128); StarCoder paper (Li et al. 2023): 15.5B
        (STARCODER, 15_517_456_384, "starcoder, 15.5B"),
        # OPT-125m: 125,239,296 (learned positions 2050 x 768 included); Zhang et al. 2022: 125M
        (OPT_125M, 125_239_296, "opt-125m"),
        # OLMo 1: no norm parameters (OlmoLayerNorm); Hugging Face pages 1.18B and 6.89B
        (OLMO_1B, 1_176_764_416, "OLMo-1B-hf"),
        (OLMO_7B, 6_888_095_744, "OLMo-7B-hf"),
        # modeling_chatglm.py: 28 x (qkv 4096 x 4608 + 4608 bias, dense, h_to_4h 4096 x 27392,
        # 4h_to_h, 2 RMSNorms) + embedding + output_layer + final norm; HF page 6.24B
        (CHATGLM3_6B, 6_243_584_000, "chatglm3-6b, HF 6.24B"),
        (GLM_4_9B, 9_399_951_360, "glm-4-9b-chat, HF 9.4B"),
        # modeling_internlm2.py (wqkv, wo, w1/w3/w2, RMSNorms, untied output); HF page 7.74B
        (INTERNLM2_7B, 7_737_708_544, "internlm2-7b, HF 7.74B"),
        # modeling_baichuan.py (W_pack, o_proj, gated MLP, untied NormHead); HF page 7.51B
        (BAICHUAN2_7B, 7_505_973_248, "Baichuan2-7B, HF 7.51B"),
        # modeling_mamba2.py: 64 x (RMSNorm, in_proj 4096 x 18560, conv1d 10240 x 4 + bias,
        # dt_bias/A_log/D, gated norm, out_proj) + untied embeddings; HF page 7.29B
        (MAMBA_CODESTRAL, 7_285_403_648, "Mamba-Codestral-7B, HF 7.29B"),
        # modeling_nemotron.py: q/o 3072², k/v 3072 x 1024, up/down 3072 x 9216 (no gate),
        # 2 LayerNorm1P + untied embeddings; Hugging Face page 4.19B
        (NEMOTRON_MINI_4B, 4_190_509_056, "Nemotron-Mini-4B"),
        # the same arithmetic with q 4096 x 6144: the head width 128 is kv_channels, not 4096 / 48
        (MINITRON_8B, 8_271_699_968, "Minitron-8B-Base"),
        # modeling_persimmon.py arithmetic (biased fused qkv and MLP, per-head q/k LayerNorms);
        # Adept's release post: 9.3B parameters
        (PERSIMMON_8B, 9_397_175_296, "persimmon-8b-base"),
        # modeling_stablelm.py: LayerNorms with biases, q/k/v biases; HF page 1.64B
        (STABLELM_2_1_6B, 1_644_515_328, "stablelm-2-1_6b"),
    ],
)
def test_family_counts_exactly(config: dict[str, Any], count: int, source: str) -> None:
    assert _total(config) == count, source


@pytest.mark.parametrize(
    ("config", "published", "unmodelled", "source"),
    [
        # BLOOM model cards: 559,214,592 and 176,247,271,424; word_embeddings_layernorm (2 x h)
        # has no model-block field
        (BLOOM_560M, 559_214_592, -2 * 1024, "bloom-560m card"),
        (BLOOM_176B, 176_247_271_424, -2 * 14336, "bloom card"),
        # MPT-7B model card 6.7B; llm-foundry's count 6,649,286,656. no_bias drops the
        # LayerNorms' biases: (2 x 32 + 1) x 4096 counted in excess
        (MPT_7B, 6_649_286_656, 65 * 4096, "mpt-7b"),
        # CohereLayerNorm has no bias: (40 + 1) x 8192 in excess. HF page 35B
        (COMMAND_R, 34_980_831_232, 41 * 8192, "c4ai-command-r-v01"),
        # R+: its q/k norms' biases too, 64 x (12288 + 96 x 128 + 8 x 128); HF page 104B
        (COMMAND_R_PLUS, 103_810_674_688, 65 * 12288 + 64 * (12288 + 1024), "c4ai-command-r-plus"),
        # modeling_cohere2.py arithmetic 8,028,033,024; HF page 8.03B
        (COMMAND_R7B, 8_028_033_024, 33 * 4096, "c4ai-command-r7b-12-2024"),
    ],
)
def test_counts_off_by_norm_biases_only(
    config: dict[str, Any], published: int, unmodelled: int, source: str
) -> None:
    """The difference is exactly the bias-free (or extra) LayerNorm the block cannot say."""
    assert _total(config) - published == unmodelled, source


def test_family_blocks_read_their_layout() -> None:
    gptj = import_hf_config(GPT_J_6B)
    assert gptj["parallel_attention"] and gptj["norms_per_layer"] == 1 and gptj["lm_head_bias"]
    assert import_hf_config(STARCODER)["kv_heads"] == 1  # multi_query
    sc2 = import_hf_config(STARCODER2_3B)
    assert sc2["sliding_window_layers"] == 30 and sc2["mlp"] == "plain"
    glm = import_hf_config(CHATGLM3_6B)
    assert glm["kv_heads"] == 2 and glm["head_dim"] == 128 and glm["vocab_size"] == 65024
    assert import_hf_config(OPT_125M)["position_embeddings"] == 2050  # OPT's offset of 2
    assert import_hf_config(OLMO_1B)["norms_per_layer"] == 0
    assert import_hf_config(COMMAND_R7B)["sliding_window_layers"] == 24  # 3 layers of 4
    mamba = import_hf_config(MAMBA_CODESTRAL)  # every layer a Mamba-2 mixer, no MLP
    assert mamba["mamba"]["layers"] == 64 and mamba["mlp_layers"] == 0


def test_a_pure_mamba2_model_estimates() -> None:
    """The imported block runs through the estimate (the Nemotron-H mixers' path): no KV cache
    grows with the context, the SSM state is per sequence."""
    from gpusizer import estimate_report

    block = import_hf_config(MAMBA_CODESTRAL)
    short, long = (
        estimate_report({"model": block, "workload": {"kind": "inference", "sequence_length": n}})
        for n in (4096, 65536)
    )
    assert short["per_gpu"]["kv_cache"] == long["per_gpu"]["kv_cache"] > 0


@pytest.mark.parametrize(
    ("config", "arch"),
    [
        ({"architectures": ["MambaForCausalLM"], "model_type": "mamba", "hidden_size": 768}, "Mamba"),
        ({"architectures": ["FalconMambaForCausalLM"], "model_type": "falcon_mamba"}, "FalconMamba"),
        ({"architectures": ["RwkvForCausalLM"], "model_type": "rwkv", "hidden_size": 768}, "Rwkv"),
        ({"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "d_model": 512}, "T5"),
        # an encoder-decoder of an unlisted type, with Llama's keys: refused by its flag
        (
            {
                "architectures": ["NewSeq2Seq"],
                "model_type": "new_seq2seq",
                "is_encoder_decoder": True,
                **{k: v for k, v in OLMO_1B.items() if k not in ("architectures", "model_type")},
            },
            "NewSeq2Seq",
        ),
        ({**OLMO_1B, "architectures": ["JambaForCausalLM"], "model_type": "jamba"}, "Jamba"),
    ],
)
def test_unmodelled_architectures_refused_in_one_line(config: dict[str, Any], arch: str) -> None:
    with pytest.raises(ScenarioError) as err:
        import_hf_config(config)
    msg = err.value.message
    assert err.value.field == "config" and msg.startswith(f"architectures {arch}")
    assert "not modelled" in msg and "supported: llama-like," in msg and "\n" not in msg
    # the list holds whole names; past the message's limit it says how many more
    # (io/hf_registry.py ``_supported_list``), never a name cut at the limit
    names = msg.split("supported: ")[1].split(",")
    assert "gptj" in names and ("starcoder2" in names or names[-1].endswith(" more"))
    assert not str(err.value).endswith("…")


@pytest.mark.parametrize(
    ("config", "edit", "words"),
    [
        (OPT_125M, {"word_embed_proj_dim": 512}, "word_embed_proj_dim 512"),  # OPT-350m
        (CHATGLM3_6B, {"ffn_hidden_size": None, "inner_hidden_size": 16384}, "ChatGLM-6B (v1"),
        (STARCODER2_3B, {"use_bias": "yes"}, "use_bias must be true or false"),
        (MPT_7B, {"no_bias": "true"}, "no_bias must be true or false"),
        (STARCODER, {"multi_query": 1}, "multi_query must be true or false"),
        (CHATGLM3_6B, {"add_qkv_bias": "no"}, "add_qkv_bias must be true or false"),
        (CHATGLM3_6B, {"multi_query_group_num": -2}, "multi_query_group_num must be a whole number"),
        (MPT_7B, {"expansion_ratio": 2.5}, "expansion_ratio must be a whole number"),
        (OPT_125M, {"dropout": 2}, "dropout must be a number from 0 to 1"),
        (INTERNLM2_7B, {"bias": "false"}, "bias must be true or false"),
        (MPT_7B, {"n_layers": None}, "num_hidden_layers"),
        (MPT_7B, {"n_heads": 0}, "a key of this mpt config has an unusable value"),
        (MAMBA_CODESTRAL, {"expand": 4}, "num_heads x head_dim (8192) must equal expand x hidden_size"),
        (MAMBA_CODESTRAL, {"num_heads": "128"}, "num_heads must be a whole number"),
        (MAMBA_CODESTRAL, {"state_size": None}, "missing state_size"),
    ],
)
def test_hostile_family_configs(config: dict[str, Any], edit: dict[str, Any], words: str) -> None:
    cfg = copy.deepcopy(config)
    cfg.update(edit)
    with pytest.raises(ScenarioError) as err:
        import_hf_config(cfg)
    assert err.value.field == "config" and words in err.value.message


def test_a_model_type_registered_twice_is_refused() -> None:
    def reader(r: Any) -> dict[str, Any]:
        return {}

    with pytest.raises(ValueError, match="'gptj' registered twice"):
        merged({"gptj": reader}, {"gptj": reader})
    with pytest.raises(ValueError, match="'rwkv' registered twice or also refused"):
        merged({"rwkv": reader})
