"""Import a Hugging Face ``config.json`` as a GPU Sizer model block (the ``model`` of a scenario).

Each family is read the way its transformers implementation builds the model
(``configuration_*.py`` defaults, ``modeling_*.py`` modules): Qwen2 always has q/k/v biases,
Gemma 2 interleaves local and global layers, Falcon's ``new_decoder_architecture`` has grouped
k/v heads and two parallel LayerNorms, DeepSeek's ``first_k_dense_replace`` layers keep a dense
MLP... A ``model_type`` not listed is read as a Llama-like decoder when its keys allow it;
one whose blocks are not modelled (RWKV, Mamba, encoder-decoders: io/hf_registry.py) is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from ..core.errors import ScenarioError, from_validation
from ..core.model.specs import ModelSpec
from ..core.pipeline.validate import check_model
from ..core.readfile import MiB, parse_json_object, read_text
from .hf_encoder import ENCODER_FAMILIES
from .hf_families import FAMILIES
from .hf_families_2026 import FAMILIES_2026, TEXT_TYPES_2026
from .hf_families_2026b import FAMILIES_2026B
from .hf_gated import GATED_FAMILIES
from .hf_legacy import LEGACY_FAMILIES
from .hf_mtp import mtp_layers
from .hf_plain import PLAIN_FAMILIES
from .hf_reader import Block, Config, Reader, base, model_type, moe, multiples, sliding
from .hf_registry import merged, refuse_unmodelled
from .hf_rope import rope_length
from .hf_ssm import SSM_FAMILIES
from .hf_vision import vision_block
from .quant_config import declared_precision


def _llama(r: Reader) -> Block:
    """Llama, Mistral, Mixtral and unknown Llama-like types (a window applies to every layer)."""
    block = base(r)
    sliding(r, block, block["layers"])
    moe(r, block)
    return block


def _gemma(r: Reader) -> Block:
    """Gemma 2/3: pre- and post-norms around attention and MLP (4 per layer), tied embeddings."""
    block = base(r, tied=True)
    layers = block["layers"]
    if r.model_type == "gemma":
        return block
    block["norms_per_layer"] = 4
    for key, field in (
        ("attn_logit_softcapping", "attention_softcap"),
        ("final_logit_softcapping", "final_logit_softcap"),
    ):
        cap = r.cfg.get(key)  # Reader already merged the defaults
        if cap:  # tanh soft-capping of scores / logits (Gemma 2; Gemma 3 sets none)
            block[field] = float(cap)
    if r.model_type == "gemma2":  # even layers local (modeling_gemma2.py)
        sliding(r, block, (layers + 1) // 2)
    else:  # gemma3: every sliding_window_pattern-th layer global
        block["qk_norm"] = "head"
        sliding(r, block, layers - layers // int(r.get("sliding_window_pattern", default=6)))
    return block


def _phi3(r: Reader) -> Block:
    block = _llama(r)
    block.update(fused_qkv=True, fused_gate_up=True)  # qkv_proj and gate_up_proj
    return block


def _deepseek(r: Reader) -> Block:
    """DeepSeek V2/V3/V3.2: MLA (arXiv 2405.04434 §2.1) and fine-grained MoE with shared
    experts. V3.2's lightning indexer (``index_n_heads`` x ``index_head_dim``: 13,959,424
    parameters a layer of V3.2-Exp, 0.13 % of the model) and its FP8 key cache are not read."""
    r.require(("kv_lora_rank",), ("qk_nope_head_dim",), ("qk_rope_head_dim",), ("v_head_dim",))
    block = base(r)
    nope, rope = r.get("qk_nope_head_dim"), r.get("qk_rope_head_dim")
    block["head_dim"] = nope + rope
    block["mla"] = {
        "q_lora_rank": r.get("q_lora_rank"),
        "kv_lora_rank": r.get("kv_lora_rank"),
        "qk_nope_head_dim": nope,
        "qk_rope_head_dim": rope,
        "v_head_dim": r.get("v_head_dim"),
    }
    layers, first = block["layers"], int(r.get("first_k_dense_replace", default=0))
    freq = max(1, int(r.get("moe_layer_freq", default=1)))
    sparse = multiples(min(first, layers), layers, freq)  # i >= first with i % freq == 0
    default_topk = "noaux_tc" if r.model_type in ("deepseek_v3", "deepseek_v32") else "greedy"
    moe(
        r,
        block,
        layers - sparse,
        shared_experts=int(r.get("n_shared_experts", default=0)),
        router_bias=r.get("topk_method", default=default_topk) == "noaux_tc",
        # the router's groups (``n_group``), which EPLB's hierarchical placement reads
        expert_groups=r.count("n_group", default=0) or 0,
    )
    return block


def _gpt2(r: Reader) -> Block:
    """GPT-2: biases everywhere, LayerNorm, learned positions, fused c_attn (modeling_gpt2.py)."""
    block = base(r, tied=True, ffn_required=False)
    positions = r.get("n_positions", "max_position_embeddings", default=1024)
    block.update(
        ffn_hidden_size=block["ffn_hidden_size"] or 4 * block["hidden_size"],
        mlp="plain",
        activation=r.get("activation_function", default="gelu_new"),
        max_context=positions,
        position_embeddings=positions,
        norm="layernorm",
        qkv_bias=True,
        attention_output_bias=True,
        mlp_bias=True,
        fused_qkv=True,
        dropout=r.fraction("resid_pdrop", default=0.1),
    )
    return block


def _falcon(r: Reader) -> Block:
    """Falcon, incl. the old RefinedWeb (40B/180B layout) and RefinedWebModel (7B) configs."""
    block = base(r, tied=True, ffn_required=False)
    heads, hidden = block["attention_heads"], block["hidden_size"]
    new_arch = r.flag("new_decoder_architecture", r.model_type == "RefinedWeb")
    parallel = r.flag("parallel_attn", True)
    if new_arch:  # grouped k/v heads, ln_attn + ln_mlp (modeling_falcon.py)
        kv = r.get("num_kv_heads", "n_head_kv", default=heads)
        norms = int(r.get("num_ln_in_parallel_attn") or 2)
    else:
        kv = 1 if r.flag("multi_query", True) else heads
        norms = 1 if parallel else 2
    bias = r.flag("bias")
    block.update(
        family="falcon",
        kv_heads=kv,
        ffn_hidden_size=block["ffn_hidden_size"] or 4 * hidden,
        mlp="plain",
        activation=r.get("activation", default="gelu"),
        norm="layernorm",
        norms_per_layer=norms,
        parallel_attention=parallel,
        fused_qkv=True,
        qkv_bias=bias,
        attention_output_bias=bias,
        mlp_bias=bias,
        max_context=r.get("max_position_embeddings", default=2048),
    )
    return block


def _olmo(r: Reader) -> Block:
    """OLMo 2 (post-norms only) and OLMoE: RMSNorm over all of q and of k (modeling_olmo2.py)."""
    block = _llama(r)
    block["qk_norm"] = "full"
    return block


_OWN: dict[str, Callable[[Reader], Block]] = {
    "gemma": _gemma,
    "gemma2": _gemma,
    "gemma3_text": _gemma,
    "phi3": _phi3,
    "deepseek_v2": _deepseek,
    "deepseek_v3": _deepseek,
    "gpt2": _gpt2,
    "falcon": _falcon,
    "RefinedWeb": _falcon,
    "RefinedWebModel": _falcon,
    "olmo2": _olmo,
    "olmoe": _olmo,
    "kimi_k2": _deepseek,
    # DeepSeek-V3.2 (DeepseekV32ForCausalLM): V3's MLA and MoE plus a lightning indexer a layer
    # (inference/model.py ``Indexer``: wq_b, wk, k_norm, weights_proj), not counted
    "deepseek_v32": _deepseek,
    # GLM-5 (transformers models/glm_moe_dsa/modular_glm_moe_dsa.py: GlmMoeDsaConfig(
    # DeepseekV32Config), GlmMoeDsaAttention(DeepseekV3Attention) + a DSA indexer,
    # DeepseekV32DecoderLayer's MoE); the indexer is not counted, as for V3.2 (GLM-5: 32 x 128
    # heads, 9.4M a layer, 0.1 % of the model)
    "glm_moe_dsa": _deepseek,
}
# one reader per model_type (io/hf_registry.py refuses a type registered twice)
_FAMILIES = merged(
    _OWN,
    FAMILIES,
    FAMILIES_2026,
    FAMILIES_2026B,
    PLAIN_FAMILIES,
    LEGACY_FAMILIES,
    GATED_FAMILIES,
    SSM_FAMILIES,
    ENCODER_FAMILIES,
)


MAX_CONFIG_BYTES = 4 * MiB  # released config.json files are 1-10 KB (tests/io/configs)


def _load(config: Config | str | Path) -> Config:
    if isinstance(config, dict):
        return dict(config)
    if isinstance(config, str) and config.lstrip()[:1] in ("{", "["):
        return parse_json_object(config, "config", "the config text")
    if not isinstance(config, (str, Path)):
        raise ScenarioError("config", "give a config.json dict, its JSON text or a path")
    text, path = read_text(config, "config", MAX_CONFIG_BYTES, folder_file="config.json")
    return parse_json_object(text, "config", str(path))


_TEXT_TYPES = {
    "gemma3": "gemma3_text",
    "llama4": "llama4_text",
    "mistral3": "mistral",
    "qwen2_5_vl": "qwen2_5_vl_text",
    "qwen2_vl": "qwen2_vl_text",
    "qwen3_vl": "qwen3_vl_text",
    "qwen3_vl_moe": "qwen3_vl_moe_text",
    **TEXT_TYPES_2026,
}


def _text_config(cfg: Config) -> Config:
    """Multimodal configs (Gemma 3, Llama 4, Mistral 3...) nest the language model in
    ``text_config``; the outer ``tie_word_embeddings`` applies when the inner one is absent."""
    inner = cfg.get("text_config")
    if not isinstance(inner, dict):
        return cfg
    outer_type = model_type(cfg)
    text = {"_name_or_path": cfg.get("_name_or_path"), **inner}
    if "tie_word_embeddings" in cfg and "tie_word_embeddings" not in inner:
        text["tie_word_embeddings"] = cfg["tie_word_embeddings"]
    text.setdefault("model_type", _TEXT_TYPES.get(outer_type, outer_type))
    return text


def _validated(block: Block) -> Block:
    try:
        spec = ModelSpec.model_validate(block)
    except ValidationError as exc:
        raise ScenarioError("config", str(from_validation(exc, ("model",)))) from None
    try:
        check_model(spec)
    except ScenarioError as exc:
        raise ScenarioError("config", str(exc)) from None
    return spec.model_dump(exclude_none=True, exclude={"preset"})


def import_hf_config(config: Config | str | Path) -> Block:
    """A Hugging Face config.json (dict, JSON text, file or model folder) -> a model block.

    The block holds :class:`~gpusizer.core.model.specs.ModelSpec` fields (no ``preset``) and gives the
    same parameter count as transformers' ``AutoModelForCausalLM.from_config``; a config with a
    ``quantization_config`` adds ``checkpoint_precision`` (io/quant_config.py), and the MTP layers
    the checkpoint ships are ``mtp_layers`` (io/hf_mtp.py). Raises
    :class:`ScenarioError` (field ``config``) naming the missing or bad keys.
    """
    cfg = _load(config)
    reader = Reader(_text_config(cfg))
    refuse_unmodelled(cfg, reader.model_type, _FAMILIES)
    try:
        block = _FAMILIES.get(reader.model_type, _llama)(reader)
        vision = vision_block(cfg, block["hidden_size"])
        if vision is not None:
            block["vision"] = vision
        declared = declared_precision(cfg, block["layers"], "moe" in block)
        if declared.quantised:  # a quantised release: the block says how it is stored
            block["checkpoint_precision"] = declared.precision
        block["mtp_layers"] = mtp_layers(reader)  # io/hf_mtp.py; None (unknown) is left out
        if isinstance(block.get("max_context"), int):
            block.update(rope_length(reader, block["max_context"]))  # io/hf_rope.py
    except ScenarioError:
        raise
    except (TypeError, ValueError, ZeroDivisionError) as exc:  # e.g. "hidden_size": "big"
        kind = reader.model_type or "model"
        raise ScenarioError("config", f"a key of this {kind} config has an unusable value ({exc})") from None
    return _validated(block)
