"""config.json readers of decoders the Llama reading mis-counts: a plain biased MLP, LayerNorms,
learned positions or keys of their own. Each reads its family as its transformers modelling
code (5.x) builds the model; the counts the tests check are beside each reader.

- ``gptj`` (modeling_gptj.py): bias-free q/k/v/out, ``fc_in``/``fc_out`` with biases (4·h wide
  when ``n_inner`` is null), one ``ln_1`` before attention and MLP run in parallel, ``ln_f``, an
  untied ``lm_head`` with a bias. GPT-J-6B: 6,050,882,784.
- ``gpt_bigcode`` (StarCoder, SantaCoder; modeling_gpt_bigcode.py): GPT-2's block with one
  shared k/v head (``multi_query``, default true) in the fused biased ``c_attn``, learned
  positions, tied head. StarCoder 15.5B: 15,517,456,384.
- ``starcoder2`` (modeling_starcoder2.py): GQA with q/k/v/o biases (``use_bias``, default
  true), ``c_fc``/``c_proj`` biased, LayerNorms with biases, a window on every layer, tied
  head unless the config unties it (Starcoder2Config sets no default: PretrainedConfig's true).
  StarCoder2-3B: 3,030,371,328; StarCoder2-7B: 7,173,923,840.
- ``bloom`` (modeling_bloom.py): fused biased ``query_key_value``, biased ``dense``, a 4·h
  biased MLP, two LayerNorms a layer, ALiBi (no position table), tied head. Its
  ``word_embeddings_layernorm`` (2·h) has no field in the model block: BLOOM-560m counts
  559,212,544 of 559,214,592 (-2,048).
- ``mpt`` (modeling_mpt.py): ``d_model``/``n_heads``/``n_layers`` keys, fused ``Wqkv``, a
  ``expansion_ratio``·h MLP, ALiBi, tied head; ``no_bias`` (MptConfig's default: true)
  drops every Linear bias and the LayerNorms' biases, which the model block cannot drop
  (LayerNorm counts 2·h): MPT-7B counts 6,649,552,896 of 6,649,286,656 (+266,240, 0.004 %).
- ``opt`` (modeling_opt.py): biased q/k/v/out and ``fc1``/``fc2`` (``enable_bias``), two
  LayerNorms a layer, learned positions with 2 extra rows (``OPTLearnedPositionalEmbedding``
  offset), a final LayerNorm only when ``do_layer_norm_before``, tied head. OPT-125m:
  125,239,296. A ``word_embed_proj_dim`` other than ``hidden_size`` (OPT-350m's
  ``project_in``/``project_out``) is refused.
- ``nemotron`` (Nemotron-4, Minitron; modeling_nemotron.py): the Llama attention (GQA, an
  ``head_dim``, or ``kv_channels``) with a plain ``up_proj``/``down_proj`` squared-ReLU MLP and
  ``NemotronLayerNorm1P`` (weight and bias). Nemotron-Mini-4B (Minitron-4B): 4,190,509,056.
- ``persimmon`` (Persimmon-8B, Fuyu's decoder; modeling_persimmon.py): fused biased
  ``query_key_value`` and ``dense``, a biased squared-ReLU MLP, LayerNorms, per-head q/k
  LayerNorms under ``qk_layernorm``, an untied bias-free head.
"""

from __future__ import annotations

from ..core.errors import ScenarioError
from .hf_reader import Block, Reader, base, sliding


def _alias(r: Reader, **names: str) -> None:
    """Give a family's own spelling of a key (MPT ``n_layers``) the name :func:`base` reads."""
    for ours, theirs in names.items():
        if r.cfg.get(ours) is None and r.cfg.get(theirs) is not None:
            r.cfg[ours] = r.cfg[theirs]


def _plain_block(block: Block, bias: bool, activation: str, ffn: int) -> Block:
    block.update(
        ffn_hidden_size=ffn,
        mlp="plain",
        activation=activation,
        norm="layernorm",
        qkv_bias=bias,
        attention_output_bias=bias,
        mlp_bias=bias,
    )
    return block


def gptj(r: Reader) -> Block:
    block = base(r, ffn_required=False)
    ffn = block["ffn_hidden_size"] or 4 * block["hidden_size"]
    _plain_block(block, False, r.get("activation_function", default="gelu_new"), ffn)
    block.update(mlp_bias=True, norms_per_layer=1, parallel_attention=True, lm_head_bias=True)
    return block


def gpt_bigcode(r: Reader) -> Block:
    block = base(r, tied=True, ffn_required=False)
    ffn = block["ffn_hidden_size"] or 4 * block["hidden_size"]
    _plain_block(block, True, r.get("activation_function", default="gelu_pytorch_tanh"), ffn)
    positions = r.get("n_positions", "max_position_embeddings", default=1024)
    block.update(
        kv_heads=1 if r.flag("multi_query", True) else block["attention_heads"],
        fused_qkv=True,
        position_embeddings=positions,
        max_context=positions,
        dropout=r.fraction("resid_pdrop", default=0.1),
    )
    return block


def starcoder2(r: Reader) -> Block:
    block = base(r, tied=True)
    bias = r.flag("use_bias", True)
    _plain_block(block, bias, r.get("hidden_act", default="gelu_pytorch_tanh"), block["ffn_hidden_size"])
    block["dropout"] = r.fraction("residual_dropout")
    sliding(r, block, block["layers"])
    return block


def bloom(r: Reader) -> Block:
    _alias(r, hidden_size="n_embed")
    block = base(r, tied=True, ffn_required=False)
    _plain_block(block, True, "gelu", 4 * block["hidden_size"])
    block["fused_qkv"] = True
    return block


def mpt(r: Reader) -> Block:
    _alias(r, num_hidden_layers="n_layers", num_attention_heads="n_heads")
    _alias(r, max_position_embeddings="max_seq_len")
    block = base(r, tied=True, ffn_required=False)
    ratio = r.count("expansion_ratio", default=4) or 4
    # MptConfig's no_bias defaults to true: no Linear biases
    _plain_block(block, not r.flag("no_bias", True), "gelu", ratio * block["hidden_size"])
    block["fused_qkv"] = True
    return block


def opt(r: Reader) -> Block:
    _alias(r, intermediate_size="ffn_dim")
    block = base(r, tied=True)
    hidden = block["hidden_size"]
    projected = r.count("word_embed_proj_dim", default=hidden)
    if projected != hidden:
        raise ScenarioError(
            "config",
            f"word_embed_proj_dim {projected} differs from hidden_size {hidden}: OPT's "
            "project_in/project_out layers (OPT-350m) are not modelled",
        )
    bias = r.flag("enable_bias", True)
    _plain_block(block, bias, r.get("activation_function", default="relu"), block["ffn_hidden_size"])
    affine = r.flag("layer_norm_elementwise_affine", True)
    before = r.flag("do_layer_norm_before", True) and not r.flag("_remove_final_layer_norm")
    block.update(
        position_embeddings=(block["max_context"] or 2048) + 2,
        norms_per_layer=2 if affine else 0,
        final_norm=before and affine,
        dropout=r.fraction("dropout", default=0.1),
        # OPTAttention drops with config.attention_dropout, the residuals with config.dropout
        # (transformers models/opt/modeling_opt.py; OPTConfig: 0.0 and 0.1)
        attention_dropout=r.fraction("attention_dropout", default=0.0),
    )
    return block


def nemotron(r: Reader) -> Block:
    block = base(r)
    bias = r.flag("attention_bias")
    _plain_block(block, bias, r.get("hidden_act", default="relu2"), block["ffn_hidden_size"])
    block["mlp_bias"] = r.flag("mlp_bias")
    # older Nemotron configs give the head width as kv_channels (Megatron's name)
    block["head_dim"] = r.count("head_dim", "kv_channels") or block["head_dim"]
    return block


def persimmon(r: Reader) -> Block:
    block = base(r)
    _plain_block(block, True, r.get("hidden_act", default="relu2"), block["ffn_hidden_size"])
    block["fused_qkv"] = True
    if r.flag("qk_layernorm", True):  # LayerNorm(head_dim) over each head's q and k
        block["qk_norm"] = "head"
    return block


LEGACY_FAMILIES = {
    "gptj": gptj,
    "gpt_bigcode": gpt_bigcode,
    "starcoder2": starcoder2,
    "bloom": bloom,
    "mpt": mpt,
    "opt": opt,
    "nemotron": nemotron,
    "persimmon": persimmon,
}
