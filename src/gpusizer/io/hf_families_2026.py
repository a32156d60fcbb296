"""config.json readers of the open models released in 2026 whose blocks are ones GPU Sizer
already prices (each as its transformers modelling code builds it):

- ``qwen3_5_text`` / ``qwen3_5_moe_text`` (Qwen3.5, dense and MoE; transformers
  models/qwen3_5/modular_qwen3_5.py and models/qwen3_5_moe/modular_qwen3_5_moe.py): the text
  model is Qwen3-Next's (``Qwen3_5TextConfig(Qwen3NextConfig)``; ``Qwen3_5Attention(
  Qwen3NextAttention)``, gated, per-head q/k norms; ``Qwen3_5GatedDeltaNet(Qwen3NextGatedDeltaNet)``
  on the ``linear_attention`` layers of ``layer_types``). Its fused ``in_proj_qkvz`` /
  ``in_proj_ba`` are split into ``in_proj_qkv``, ``in_proj_z``, ``in_proj_b``, ``in_proj_a`` of
  the same widths, so the same parameters. The dense models keep a gated MLP of
  ``intermediate_size`` on every layer; the MoE ones Qwen3-Next's experts with a gated shared
  expert. Read by io/hf_families.py ``qwen3_next``; the vision tower is Qwen3-VL's without
  DeepStack (io/hf_vision.py). ``Qwen3_5MoeTextConfig`` removes ``intermediate_size``,
  ``decoder_sparse_step`` and ``mlp_only_layers`` (every layer a ``Qwen3_5MoeSparseMoeBlock``):
  its configs have no dense width, which the importer required (a refusal before); a dense
  layer is never built, so the expert width stands in for it.
- ``seed_oss`` (Seed-OSS-36B; modeling_seed_oss.py): Llama's layout with q/k/v biases under
  ``attention_bias``, the o projection's under its own ``attention_out_bias``, and dropout on
  the residual branches (``residual_dropout``), which the Llama reading left unread.
- ``minimax_m2`` (MiniMax-M2; modeling_minimax_m2.py): every layer 256 routed experts of
  ``intermediate_size`` (its only MLP width; no shared expert), a sigmoid router with a
  correction bias (``use_routing_bias``: a buffer), RMSNorm over all of q and all of k
  (``qk_norm_type`` ``per_layer``: ``MiniMaxM2Attention.q_norm`` over heads x head_dim).
- ``ernie4_5`` / ``ernie4_5_moe`` (ERNIE 4.5; configuration_ernie4_5_moe.py,
  modeling_ernie4_5_moe.py): ``moe_num_experts`` routed experts, ``moe_k`` a token,
  ``moe_num_shared_experts`` shared experts as one MLP ``moe_num_shared_experts`` x
  ``moe_intermediate_size`` wide, MoE on the layers i with ``moe_layer_start_index`` <= i <=
  ``moe_layer_end_index`` and (i + 1) % ``moe_layer_interval`` == 0, a dense MLP of
  ``intermediate_size`` elsewhere, biases everywhere under ``use_bias``, tied embeddings by
  default, the router's ``e_score_correction_bias`` (a buffer). Read as Llama-like before:
  a dense model (ERNIE-4.5-300B-A47B 31.5B for 300B).
- ``hunyuan_v1_moe`` / ``hunyuan_v1_dense`` (Hunyuan-A13B; modeling_hunyuan_v1_moe.py):
  per-head q/k RMSNorm (``query_layernorm``, ``key_layernorm`` under ``use_qk_norm``),
  ``num_experts`` routed experts on every layer with a shared MLP ``num_shared_expert`` x
  ``intermediate_size`` wide (``use_mixed_mlp_moe``); ``moe_topk``, ``moe_intermediate_size``
  and ``num_shared_expert`` may be lists, one value a layer: equal values are read, unequal
  ones refused naming the key (the block has one MoE shape). Refused before: no
  ``num_experts_per_tok``.
- ``granitemoehybrid`` (Granite 4.0-H; modeling_granitemoehybrid.py): each layer's mixer is a
  Mamba-2 layer or attention as ``layer_types`` says (``GraniteMoeHybridMambaLayer``: the
  Mamba-2 mixer Nemotron-H's block prices, d_inner = ``mamba_expand`` x hidden, ``mamba_d_head``
  "auto" = d_inner / ``mamba_n_heads``), then on every layer the MoE block
  (``num_local_experts`` of ``intermediate_size``, a bias-free router) and the gated
  ``shared_mlp`` of ``shared_intermediate_size`` (the only MLP where there are no experts), RoPE
  or none (``position_embedding_type`` "nope"): no parameters either way. Absent keys take
  GraniteMoeHybridConfig's defaults. Refused before as a hybrid not modelled.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import ScenarioError
from .hf_families import qwen3_next
from .hf_reader import Block, Reader, base, layers, moe

# multimodal outer model_type -> its text model's, when text_config names none
TEXT_TYPES_2026 = {"qwen3_5": "qwen3_5_text", "qwen3_5_moe": "qwen3_5_moe_text"}


# configuration_qwen3_5.py / configuration_qwen3_5_moe.py defaults for the Gated DeltaNet keys
# a config leaves out (released configs state them all)
_QWEN3_5_DEFAULTS = {
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
}


def qwen3_5(r: Reader) -> Block:
    for key, value in _QWEN3_5_DEFAULTS.items():
        if r.cfg.get(key) is None:
            r.cfg[key] = value
    return qwen3_next(r)


def qwen3_5_moe(r: Reader) -> Block:
    for key in ("decoder_sparse_step", "mlp_only_layers"):  # AttributeError() in the config class
        r.cfg.pop(key, None)
    if r.get("intermediate_size") is None:
        r.cfg["intermediate_size"] = r.get("moe_intermediate_size")
    return qwen3_5(r)


def seed_oss(r: Reader) -> Block:
    block = base(r)
    block["attention_output_bias"] = r.flag("attention_out_bias")
    block["dropout"] = r.fraction("residual_dropout")
    return block


def minimax_m2(r: Reader) -> Block:
    block = base(r)
    if r.flag("use_qk_norm"):
        block["qk_norm"] = "full" if r.get("qk_norm_type", default="per_layer") == "per_layer" else "head"
    moe(r, block, router_bias=r.flag("use_routing_bias"))
    return block


def _layer_range(r: Reader, n: int) -> int:
    """ERNIE 4.5's MoE layers: start <= i <= end with (i + 1) % interval == 0, no loop."""
    start = min(n, r.count("moe_layer_start_index", default=1) or 0)
    end_key = r.cfg.get("moe_layer_end_index")
    end = n - 1 if end_key in (None, -1) else min(n - 1, r.count("moe_layer_end_index") or 0)
    step = max(1, r.count("moe_layer_interval", default=1) or 1)
    # i + 1 in [start + 1, end + 1] divisible by step
    return max(0, (end + 1) // step - start // step) if end >= start else 0


def ernie4_5(r: Reader) -> Block:
    for ours, theirs in (("num_experts", "moe_num_experts"), ("num_experts_per_tok", "moe_k")):
        if r.cfg.get(theirs) is not None:
            r.cfg[ours] = r.cfg[theirs]  # Ernie4_5_MoeConfig.attribute_map
    block = base(r, tied=True)
    bias = r.flag("use_bias")
    block.update(qkv_bias=bias, attention_output_bias=bias, mlp_bias=bias)
    if r.model_type == "ernie4_5_moe":
        n = block["layers"]
        shared = r.count("moe_num_shared_experts", default=2) or 0
        moe(r, block, n - _layer_range(r, n), shared_experts=shared, router_bias=True)
    return block


def _per_layer(r: Reader, key: str) -> int | None:
    """One value of a key Hunyuan may give a layer at a time (a list): refused if they differ."""
    value = r.cfg.get(key)
    if isinstance(value, list) and value:
        if len({str(v) for v in value}) > 1:
            raise ScenarioError("config", f"{key} differs between layers: one MoE shape a model is modelled")
        r.cfg[key] = value[0]
    return r.count(key)


def hunyuan(r: Reader) -> Block:
    block = base(r, tied=True)
    if r.flag("use_qk_norm"):
        block["qk_norm"] = "head"
    if r.model_type == "hunyuan_v1_moe":
        r.cfg["num_experts_per_tok"] = _per_layer(r, "moe_topk")
        _per_layer(r, "moe_intermediate_size")  # absent: intermediate_size (moe() reads either)
        shared = (_per_layer(r, "num_shared_expert") or 0) if r.flag("use_mixed_mlp_moe", True) else 0
        extra = {"shared_experts": shared, "shared_expert_ffn_hidden_size": shared * block["ffn_hidden_size"]}
        moe(r, block, **(extra if shared else {}))
    return block


def granite_hybrid(r: Reader) -> Block:
    types = r.cfg.get("layer_types")
    n = layers(r)
    if not isinstance(types, list) or len(types) != n or set(map(str, types)) - {"mamba", "attention"}:
        raise ScenarioError(
            "config", "layer_types: one of mamba or attention per layer (needed for a granitemoehybrid model)"
        )
    shared = r.count("shared_intermediate_size", default=1024) or 0
    experts = r.count("num_local_experts", default=0) or 0
    if not experts:  # Granite 4.0-H-Micro: the shared MLP is the layer's only MLP
        r.cfg["intermediate_size"] = shared
    block = base(r, tied=True)
    hidden = block["hidden_size"]
    heads = r.count("mamba_n_heads", default=128) or 1
    inner = (r.count("mamba_expand", default=2) or 0) * hidden
    auto = r.get("mamba_d_head") in (None, "auto")  # "auto": d_inner / heads
    mixers = sum(str(t) == "mamba" for t in types)
    block["mamba"] = {
        "layers": mixers,
        "heads": heads,
        "head_dim": inner // heads if auto else r.count("mamba_d_head"),
        "state_size": r.count("mamba_d_state", default=256),
        "groups": r.count("mamba_n_groups", default=1),
        "conv_kernel": r.count("mamba_d_conv", default=4),
        "conv_bias": r.flag("mamba_conv_bias", True),
        "projection_bias": r.flag("mamba_proj_bias"),
    }
    if not mixers:  # Granite 4.0 Micro (not -H): attention on every layer
        del block["mamba"]
    if experts:
        block["ffn_hidden_size"] = shared  # never built alone: the shared MLP's width
        moe(r, block, shared_experts=1, shared_expert_ffn_hidden_size=shared)
    return block


FAMILIES_2026: dict[str, Callable[[Reader], Block]] = {
    "qwen3_5_text": qwen3_5,
    "qwen3_5_moe_text": qwen3_5_moe,
    "seed_oss": seed_oss,
    "minimax_m2": minimax_m2,
    "ernie4_5": ernie4_5,
    "ernie4_5_moe": ernie4_5,
    "hunyuan_v1_moe": hunyuan,
    "hunyuan_v1_dense": hunyuan,
    "granitemoehybrid": granite_hybrid,
}
