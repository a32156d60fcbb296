"""config.json readers of gated-MLP decoders whose norms, biases or keys differ from Llama's
(each as its modelling code builds the model; transformers 5.x unless a remote file is named):

- ``olmo`` (OLMo 1; modeling_olmo.py): ``OlmoLayerNorm`` is a LayerNorm without weight or bias
  (``F.layer_norm(..., None, None)``): no norm parameters at all. OLMo-1B-hf: 1,176,764,416;
  OLMo-7B-hf: 6,888,095,744.
- ``cohere`` / ``cohere2`` (Command R, R+, R7B; modeling_cohere.py, modeling_cohere2.py): one
  ``input_layernorm`` feeding attention and MLP in parallel, a tied head (CohereConfig
  ``tie_word_embeddings=True``), q/k LayerNorms over every head (``use_qk_norm``, R+); Cohere 2
  windows 3 layers of 4 (``sliding_window_pattern``). ``CohereLayerNorm`` has a weight and no
  bias, which the model block's LayerNorm (2·h) cannot drop: Command R (35B) counts
  34,981,167,104 of 34,980,831,232 (+335,872, 0.001 %).
- ``chatglm`` (ChatGLM2/3, GLM-4-9B; THUDM remote modeling_chatglm.py): ``num_layers``,
  ``padded_vocab_size`` (the embedding's rows), ``multi_query_group_num`` k/v groups under
  ``multi_query_attention``, ``kv_channels`` head width, a fused ``query_key_value`` biased by
  ``add_qkv_bias``, ``dense`` and the fused ``dense_h_to_4h`` (gate and up) biased by
  ``add_bias_linear``, RMSNorm unless ``rmsnorm`` is false, a final norm under
  ``post_layer_norm``, an untied ``output_layer``. ChatGLM3-6B: 6,243,584,000. ChatGLM-6B (v1:
  ``inner_hidden_size``, GLM blocks) is refused.
- ``internlm`` / ``internlm2`` (InternLM remote modeling_internlm.py, modeling_internlm2.py):
  the Llama layout with q/k/v/o biases under ``bias`` (default true); InternLM2 fuses them into
  ``wqkv``. InternLM2-7B: 7,737,708,544.
- ``baichuan`` (Baichuan remote modeling_baichuan.py): the Llama layout with a fused ``W_pack``
  q/k/v (ALiBi on the 13B models: no parameters). Baichuan2-7B: 7,505,973,248.
- ``stablelm`` (StableLM 2; modeling_stablelm.py): LayerNorms with biases, q/k/v biases under
  ``use_qkv_bias``, one norm before parallel attention and MLP under ``use_parallel_residual``,
  per-head q/k LayerNorms without bias under ``qk_layernorm`` (12B; counted with a bias, the
  block cannot drop it). StableLM-2-1.6B: 1,644,515,328.
"""

from __future__ import annotations

from ..core.errors import ScenarioError
from .hf_reader import Block, Reader, base, sliding


def olmo(r: Reader) -> Block:
    block = base(r)
    block.update(norms_per_layer=0, final_norm=False)
    return block


def cohere(r: Reader) -> Block:
    block = base(r, tied=True)
    block.update(norm="layernorm", norms_per_layer=1, parallel_attention=True)
    if r.flag("use_qk_norm"):  # CohereLayerNorm((heads, head_dim)): a weight per head
        block["qk_norm"] = "full"
    if r.model_type == "cohere2":
        n = block["layers"]
        sliding(r, block, n - n // max(1, r.count("sliding_window_pattern", default=4) or 4))
    return block


def chatglm(r: Reader) -> Block:
    if r.get("ffn_hidden_size") is None and r.get("inner_hidden_size") is not None:
        raise ScenarioError(
            "config",
            "ChatGLM-6B (v1, inner_hidden_size) GLM blocks are not modelled; ChatGLM2/3 and GLM-4 are",
        )
    vocab = r.get("padded_vocab_size", "vocab_size")
    if vocab is not None:
        r.cfg["vocab_size"] = vocab
    block = base(r)
    heads = block["attention_heads"]
    linear_bias = r.flag("add_bias_linear")
    groups = r.count("multi_query_group_num", default=heads)
    block.update(
        kv_heads=groups if r.flag("multi_query_attention") else heads,
        head_dim=r.count("kv_channels") or block["head_dim"],
        qkv_bias=r.flag("add_qkv_bias"),
        attention_output_bias=linear_bias,
        mlp_bias=linear_bias,
        norm="rmsnorm" if r.flag("rmsnorm", True) else "layernorm",
        final_norm=r.flag("post_layer_norm", True),
        fused_qkv=True,
        fused_gate_up=True,
        dropout=r.fraction("hidden_dropout"),
    )
    return block


def internlm(r: Reader) -> Block:
    block = base(r)
    bias = r.flag("bias", True)
    block.update(qkv_bias=bias, attention_output_bias=bias, fused_qkv=r.model_type == "internlm2")
    return block


def baichuan(r: Reader) -> Block:
    block = base(r)
    block["fused_qkv"] = True  # W_pack
    return block


def stablelm(r: Reader) -> Block:
    block = base(r)
    block.update(norm="layernorm", qkv_bias=r.flag("use_qkv_bias"), attention_output_bias=False)
    if r.flag("qk_layernorm"):  # StableLmLayerNormPerHead: a LayerNorm per head
        block["qk_norm"] = "full"
    if r.flag("use_parallel_residual"):
        block.update(norms_per_layer=1, parallel_attention=True)
    return block


GATED_FAMILIES = {
    "olmo": olmo,
    "cohere": cohere,
    "cohere2": cohere,
    "chatglm": chatglm,
    "internlm": internlm,
    "internlm2": internlm,
    "baichuan": baichuan,
    "stablelm": stablelm,
}
