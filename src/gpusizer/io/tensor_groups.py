"""Which tensor group (core/quant_rules.GROUPS) a checkpoint tensor belongs to, by its name.

Two namings are read:

- Hugging Face checkpoints name tensors after the transformers modules (``modeling_*.py``):
  ``model.embed_tokens``, ``lm_head``, ``model.layers.N.self_attn.{q,k,v,o}_proj``,
  ``mlp.{gate,up,down}_proj``, MoE ``mlp.experts.E.*`` (Mixtral ``block_sparse_moe.experts``,
  gpt-oss and Llama 4 ``experts.gate_up_proj`` as one 3-D tensor), ``mlp.shared_experts``
  (DeepSeek), ``mlp.shared_expert`` / ``shared_expert_gate`` (Qwen2-MoE),
  ``feed_forward.shared_expert`` (Llama 4), routers ``mlp.gate`` (Mixtral, Qwen-MoE, DeepSeek
  with ``e_score_correction_bias``), ``mlp.router`` (gpt-oss), ``feed_forward.router``
  (Llama 4), norms ``*norm*`` / ``ln_*``, GPT-2 ``wte``/``wpe``/``attn.c_attn``/``mlp.c_fc``,
  Falcon ``self_attention.query_key_value``/``mlp.dense_h_to_4h``, Qwen3-Next
  ``linear_attn``, Nemotron-H ``mixer`` (a Mamba or attention mixer, or an MLP with
  ``up_proj``/``down_proj``), vision towers ``vision_tower``/``visual``/``vision_model`` and
  ``multi_modal_projector``.
- GGUF files use llama.cpp's names (gguf-py ``constants.py`` ``TENSOR_NAMES``): ``token_embd``,
  ``output``, ``output_norm``, ``blk.N.attn_{q,k,v,output,qkv,norm,...}``,
  ``ffn_{gate,up,down}``, ``ffn_*_exps`` (experts), ``ffn_*_shexp`` (shared experts),
  ``ffn_gate_inp`` (router), ``exp_probs_b`` (DeepSeek's correction bias), ``ssm_*``.

Quantisation companions (GPTQ ``qweight``/``qzeros``/``scales``/``g_idx``, FP8
``weight_scale(_inv)``, MXFP4 ``_blocks``/``_scales``, bitsandbytes ``absmax``/``quant_map``)
carry their module's name, so they fall in its group. Layers at or beyond the model's layer
count (DeepSeek-V3's multi-token-prediction layer 61, which transformers does not load) and
``mtp`` modules are ``None``: stored, but not part of the model the estimate counts.
"""

from __future__ import annotations

import re

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (g, re.compile(p))
    for g, p in (
        (
            "vision",
            r"(^|\.)(vision_tower|vision_model|visual|vision_encoder|multi_modal_projector|"
            r"mm_projector|vision_embed_tokens|image_newline)(\.|$)|^(v|mm)\.",
        ),
        # norms inside attention (per-head q/k norms, MLA's latent norms, a mixer's norm): the
        # estimator counts them with the attention parameters (core/model/params.py attention_params)
        (
            "attention",
            r"(self_attn|self_attention|linear_attn|mixer)\.[a-z0-9_]*norm|"
            r"(^|\.)attn_(q|k|q_a|kv_a)_norm(\.|$)|(^|\.)ssm_norm(\.|$)",
        ),
        ("norms", r"(^|[._])[a-z0-9_]*norm[a-z0-9_]*(\.|$)|(^|\.)ln_[a-z0-9_]+(\.|$)"),
        ("lm_head", r"^(model\.|transformer\.)?(lm_head|embed_out)(\.|$)|^output(\.|$)"),
        (
            "embedding",
            r"(^|\.)(embed_tokens|wte|wpe|word_embeddings|tok_embeddings|embed_positions|"
            r"position_embeddings|embeddings)(\.|$)|^(token_embd|position_embd)(\.|$)",
        ),
        ("shared_experts", r"shared_experts?(\.|_|$)|_shexp(\.|$)"),
        ("experts", r"(^|\.)experts(\.|$)|_exps(\.|$)"),
        (
            "router",
            r"(^|\.)(gate|router)(\.|$)|ffn_gate_inp(\.|$)|exp_probs_b(\.|$)|"
            r"e_score_correction_bias",
        ),
        ("mlp", r"\.mixer\.(up|down)_proj(\.|$)"),
        (
            "attention",
            r"self_attn|self_attention|(^|\.)(attn|attention|linear_attn|mixer|mamba)(\.|$)"
            r"|(^|\.)attn_|(^|\.)ssm_|c_attn|query_key_value",
        ),
        ("mlp", r"(^|\.)(mlp|feed_forward|ffn)(\.|$)|(^|\.)ffn_|dense_h_to_4h|dense_4h_to_h|c_fc"),
    )
)
_LAYER = re.compile(r"(?:^|\.)(?:layers|blk|h|layer|block|blocks)\.(\d+)(?:\.|$)")
_EXTRA = re.compile(r"(^|\.)(mtp|mtp_layers|nextn)(\.|_|$)|rotary_emb\.inv_freq|^rope_freqs")


def layer_index(name: str) -> int | None:
    """The decoder layer a tensor belongs to (``model.layers.7...``, ``blk.7...``), if any."""
    found = _LAYER.search(name)
    return int(found.group(1)) if found else None


def tensor_group(name: str, layers: int | None = None) -> str | None:
    """The group of a tensor or module name; None for what the model does not hold (layers
    at or beyond ``layers``, multi-token-prediction modules, RoPE buffers) or an unknown name."""
    if _EXTRA.search(name):
        return None
    index = layer_index(name)
    if layers is not None and index is not None and index >= layers:
        return None
    for group, pattern in _RULES:
        if pattern.search(name):
            return group
    return None


def pattern_group(pattern: str) -> str | None:
    """The group a ``modules_to_not_convert`` / ``ignore`` entry names: a module path
    (``model.layers.*.self_attn``, ``lm_head``), a regex (``re:.*mlp.gate$``) or a bare module
    name (AWQ's ``gate``)."""
    text = pattern[3:] if pattern.startswith("re:") else pattern
    text = re.sub(r"[$^\\]|\.\*|\*", "", text).strip(".")
    return tensor_group(text)
