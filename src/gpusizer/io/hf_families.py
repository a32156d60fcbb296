"""config.json readers of the 2025-2026 families (each as its transformers modelling code builds
the model, transformers 5.24):

- ``gpt_oss`` (modeling_gpt_oss.py): biased q/k/v/o, a learned sink logit per head
  (``GptOssAttention.sinks``), experts with biases (``GptOssExperts``), a router with a bias
  (``GptOssTopKRouter``), a 128-token window on the layers ``layer_types`` marks sliding.
- ``llama4_text`` (modeling_llama4.py): MoE on ``moe_layers`` (default every
  ``interleave_moe_layer_step``-th layer), a shared expert of the expert size
  (``Llama4TextMoe.shared_expert``), dense layers with ``intermediate_size_mlp``
  (``Llama4TextDecoderLayer``), chunked attention on the RoPE layers (the cache keeps at most a
  chunk, as a sliding window: cache_utils.py maps ``chunked_attention`` to a sliding layer).
- ``glm4_moe`` (modeling_glm4_moe.py): q/k/v biases without an o bias, optional per-head q/k
  norms, ``first_k_dense_replace`` dense layers, shared experts, a correction-bias buffer.
- ``qwen3_next`` (modeling_qwen3_next.py): Gated DeltaNet layers except every
  ``full_attention_interval``-th, gated attention (``q_proj`` twice as wide), MoE with a gated
  shared expert.
- ``nemotron_h`` (modeling_nemotron_h.py): one mixer per block, ``hybrid_override_pattern``
  M (Mamba-2), * (attention), - (MLP) or E (MoE: ``NemotronHMoE``, relu2 experts without a
  gate, ``n_shared_experts`` of ``moe_shared_expert_intermediate_size``, a router with a
  score-correction bias; Nemotron 3 Nano); read as attention/Mamba layers of which some lack
  the MLP (a block has one RMSNorm, so a mixer-only layer has one norm less). A pattern with
  both - and E blocks is refused (the block has one MLP kind).
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.errors import ScenarioError
from .hf_reader import Block, Reader, base, layers, listed_below, moe, sliding

_STATE_DTYPES = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}


def qwen(r: Reader) -> Block:
    """Qwen2/Qwen3 (+MoE): Qwen2 q/k/v always biased; Qwen3 per-head q/k RMSNorm."""
    block = base(r)
    n = block["layers"]
    if r.model_type.startswith("qwen2"):
        block.update(qkv_bias=True, attention_output_bias=False)
    else:
        block["qk_norm"] = "head"
    if r.flag("use_sliding_window"):  # layers from max_window_layers on
        sliding(r, block, n - int(r.get("max_window_layers", default=n)))
    _qwen_moe(r, block)
    return block


def _qwen_moe(r: Reader, block: Block) -> None:
    """MoE on every ``decoder_sparse_step``-th layer but ``mlp_only_layers``; a shared expert
    with a sigmoid gate where ``shared_expert_intermediate_size`` is set (Qwen2-MoE)."""
    n = block["layers"]
    step = max(1, r.count("decoder_sparse_step", default=1) or 1)
    sparse = n // step - listed_below(r.get("mlp_only_layers"), n, step)
    shared = r.get("shared_expert_intermediate_size")
    extra = (
        {"shared_experts": 1, "shared_expert_ffn_hidden_size": shared, "shared_expert_gate": True}
        if shared
        else {}
    )
    moe(r, block, n - sparse, **extra)


def gpt_oss(r: Reader) -> Block:
    block = base(r)
    block.update(mlp_bias=True, attention_sinks=True)
    limit = r.get("swiglu_limit")  # GptOssExperts clamps gate and up to it
    if isinstance(limit, int | float) and not isinstance(limit, bool) and limit > 0:
        block["activation_clamp"] = float(limit)
    scaling = r.get("rope_scaling")
    if isinstance(scaling, dict) and (scaling.get("rope_type") or scaling.get("type")) == "yarn":
        block["rope_scaling"] = "yarn"
    sliding(r, block, (block["layers"] + 1) // 2)
    if r.get("num_experts_per_tok") is None and r.get("experts_per_token") is not None:
        r.cfg["num_experts_per_tok"] = r.cfg["experts_per_token"]
    moe(r, block, router_linear_bias=True)
    return block


def _moe_step(r: Reader, n: int) -> tuple[int, int]:
    """(leading dense layers, MoE step) of Llama 4: ``moe_layers`` when given, else every
    ``interleave_moe_layer_step``-th layer (configuration_llama4.py)."""
    step = max(1, r.count("interleave_moe_layer_step", default=1) or 1)
    listed = r.cfg.get("moe_layers")
    if not isinstance(listed, list):
        return 0, step
    distinct = sorted({i for i in listed if isinstance(i, int) and 0 <= i < n})
    if len(distinct) == n // step and distinct == list(range(step - 1, n, step)):
        return 0, step
    return n - len(distinct), 1  # an irregular list: its count, dense layers first


def llama4(r: Reader) -> Block:
    block = base(r)
    n = block["layers"]
    if r.get("intermediate_size_mlp") is not None:
        block["ffn_hidden_size"] = r.get("intermediate_size_mlp")
    dense, step = _moe_step(r, n)
    moe(r, block, dense, shared_experts=1, layer_step=step)
    rope = r.cfg.get("no_rope_layers")  # 1: a RoPE layer, which uses the chunked attention
    interval = max(1, r.count("no_rope_layer_interval", default=4) or 4)
    chunked = sum(bool(x) for x in rope) if isinstance(rope, list) and rope else n - n // interval
    sliding(r, block, chunked, key="attention_chunk_size")
    return block


def glm4_moe(r: Reader) -> Block:
    block = base(r)
    block["attention_output_bias"] = False  # o_proj has no bias (Glm4MoeAttention)
    if r.flag("use_qk_norm"):
        block["qk_norm"] = "head"
    first = min(block["layers"], r.count("first_k_dense_replace", default=1) or 0)
    moe(r, block, first, shared_experts=r.count("n_shared_experts", default=1) or 0, router_bias=True)
    return block


def qwen3_next(r: Reader) -> Block:
    block = base(r)
    n = block["layers"]
    block.update(qk_norm="head", attention_output_gate=True)
    r.require(
        ("linear_num_key_heads",),
        ("linear_num_value_heads",),
        ("linear_key_head_dim",),
        ("linear_value_head_dim",),
    )
    types = r.cfg.get("layer_types")
    if isinstance(types, list) and types:
        linear = sum(t == "linear_attention" for t in types[:n])
    else:
        linear = n - n // max(1, r.count("full_attention_interval", default=4) or 4)
    block["linear_attention"] = {
        "layers": linear,
        "key_heads": r.get("linear_num_key_heads"),
        "value_heads": r.get("linear_num_value_heads"),
        "key_head_dim": r.get("linear_key_head_dim"),
        "value_head_dim": r.get("linear_value_head_dim"),
        "conv_kernel": r.count("linear_conv_kernel_dim", default=4),
    }
    _qwen_moe(r, block)
    return block


def _block_types(r: Reader) -> str:
    pattern = r.cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str):
        return pattern
    types = r.cfg.get("layers_block_type", r.cfg.get("layer_types"))
    if isinstance(types, list):
        letters = {"mamba": "M", "attention": "*", "full_attention": "*", "mlp": "-", "moe": "E"}
        return "".join(letters.get(str(t), "?") for t in types)
    raise ScenarioError(
        "config", "missing hybrid_override_pattern or layers_block_type (needed for a nemotron_h model)"
    )


def nemotron_h(r: Reader) -> Block:
    pattern = _block_types(r)
    if len(pattern) > 100_000:
        raise ScenarioError("config", "hybrid_override_pattern: at most 100,000 blocks")
    counts = {c: pattern.count(c) for c in "M*-E"}
    if (counts["E"] and counts["-"]) or len(pattern) != sum(counts.values()):
        raise ScenarioError(
            "config",
            "hybrid_override_pattern: M (Mamba-2), * (attention) and either - (MLP) or E (MoE) "
            "blocks are modelled",
        )
    mixers, ffn = counts["M"] + counts["*"], counts["-"] + counts["E"]
    if not mixers or ffn > mixers:
        raise ScenarioError(
            "config", "hybrid_override_pattern: needs at least as many M/* blocks as - blocks"
        )
    r.cfg.setdefault("num_hidden_layers", len(pattern))
    block = base(r)
    layers(r)  # refuse absurd counts like any other family
    block.update(
        layers=mixers,
        head_dim=r.get("head_dim", "attention_head_dim") or block["head_dim"],
        mlp="plain",
        activation=r.get("mlp_hidden_act", default="relu2"),
        qkv_bias=False,
        attention_output_bias=False,
        mlp_layers=ffn,
    )
    if counts["E"]:  # NemotronHMoE: relu2 experts, a shared expert, a biased-score router
        moe(
            r,
            block,
            mixers - ffn,  # as many "dense" layers as mixer-only ones: MoE on every MLP block
            shared_experts=r.count("n_shared_experts", default=1) or 0,
            shared_expert_ffn_hidden_size=r.get("moe_shared_expert_intermediate_size"),
            router_bias=True,
        )
    r.require(("mamba_num_heads",), ("mamba_head_dim",), ("ssm_state_size",))
    block["mamba"] = {
        "layers": counts["M"],
        "heads": r.get("mamba_num_heads"),
        "head_dim": r.get("mamba_head_dim"),
        "state_size": r.get("ssm_state_size"),
        "groups": r.count("n_groups", default=1),
        "conv_kernel": r.count("conv_kernel", default=4),
        "conv_bias": r.flag("use_conv_bias", True),
        "projection_bias": r.flag("use_bias"),
        "state_dtype": _STATE_DTYPES.get(str(r.get("mamba_ssm_cache_dtype"))),
    }
    return block


FAMILIES: dict[str, Callable[[Reader], Block]] = {
    "qwen2": qwen,
    "qwen2_moe": qwen,
    "qwen3": qwen,
    "qwen3_moe": qwen,
    "qwen2_5_vl": qwen,
    "qwen2_vl": qwen,  # Qwen2-VL: the Qwen2 text model (biased q/k/v), configs flat or nested
    "qwen2_vl_text": qwen,
    "qwen2_5_vl_text": qwen,
    # Qwen3-VL: the Qwen3 / Qwen3-MoE text model in text_config (modeling_qwen3_vl.py,
    # modeling_qwen3_vl_moe.py ``Qwen3VLTextAttention``: per-head q/k RMSNorm)
    "qwen3_vl_text": qwen,
    "qwen3_vl_moe_text": qwen,
    "gpt_oss": gpt_oss,
    "llama4": llama4,
    "llama4_text": llama4,
    "glm4_moe": glm4_moe,
    "qwen3_next": qwen3_next,
    "nemotron_h": nemotron_h,
}
