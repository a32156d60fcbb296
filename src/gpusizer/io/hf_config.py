"""Import a Hugging Face ``config.json`` as a GPU Sizer model block (the ``model`` of a scenario).

Each family is read the way its transformers implementation builds the model
(``configuration_*.py`` defaults, ``modeling_*.py`` modules): Qwen2 always has q/k/v biases,
Gemma 2 interleaves local and global layers, Falcon's ``new_decoder_architecture`` has grouped
k/v heads and two parallel LayerNorms, DeepSeek's ``first_k_dense_replace`` layers keep a dense
MLP... A ``model_type`` not listed is read as a Llama-like decoder when its keys allow it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.errors import ScenarioError, excerpt, from_validation
from ..core.limits import MAX_LAYERS
from ..core.readfile import MiB, parse_json_object, read_text
from ..core.specs import ModelSpec
from ..core.validate import check_model

Config = dict[str, Any]
Block = dict[str, Any]

_LAYERS = ("num_hidden_layers", "n_layer", "num_layers")
_HIDDEN = ("hidden_size", "n_embd", "d_model")
_HEADS = ("num_attention_heads", "n_head")
_VOCAB = ("vocab_size",)
_FFN = ("intermediate_size", "n_inner", "ffn_hidden_size")

# transformers defaults for keys that released configs leave out (configuration_gemma3.py)
_DEFAULTS: dict[str, Config] = {
    "gemma3_text": {"vocab_size": 262_208, "max_position_embeddings": 131_072, "head_dim": 256,
                    "sliding_window": 4096, "sliding_window_pattern": 6,
                    "hidden_activation": "gelu_pytorch_tanh"},
    "gemma2": {"vocab_size": 256_000, "head_dim": 256, "sliding_window": 4096,
               "hidden_activation": "gelu_pytorch_tanh", "attn_logit_softcapping": 50.0,
               "final_logit_softcapping": 30.0},
}


class _Reader:
    """Reads a config by any of a key's spellings; names what is missing."""

    def __init__(self, cfg: Config) -> None:
        self.model_type = str(cfg.get("model_type") or "")
        self.cfg = {**_DEFAULTS.get(self.model_type, {}), **cfg}

    def get(self, *names: str, default: Any = None) -> Any:
        for name in names:
            if self.cfg.get(name) is not None:
                return self.cfg[name]
        return default

    def require(self, *groups: tuple[str, ...]) -> None:
        missing = [" or ".join(g) for g in groups if self.get(*g) is None]
        if missing:
            kind = f"a {self.model_type} model" if self.model_type else "a model"
            raise ScenarioError("config", f"missing {', '.join(missing)} (needed for {kind})")


def _base(r: _Reader, tied: bool = False, ffn_required: bool = True) -> Block:
    """The fields every decoder shares, in the Llama reading (configuration_llama.py)."""
    r.require(_LAYERS, _HIDDEN, _HEADS, _VOCAB, *((_FFN,) if ffn_required else ()))
    layers = r.get(*_LAYERS)
    if not isinstance(layers, int) or isinstance(layers, bool) or not 0 < layers <= MAX_LAYERS:
        # checked first: the family readers loop over the layers
        raise ScenarioError("config", f"{' or '.join(_LAYERS)} must be an integer from 1 to "
                            f"{MAX_LAYERS:,}; got {excerpt(layers)}")
    hidden, heads = r.get(*_HIDDEN), r.get(*_HEADS)
    head_dim = r.get("head_dim") or (hidden // heads if hidden % heads == 0 else None)
    bias = bool(r.get("attention_bias", default=False))  # Llama: q, k, v and o all get a bias
    return {
        "name": str(r.get("_name_or_path") or r.model_type or "custom").rstrip("/").split("/")[-1],
        "family": r.model_type or "llama",
        "layers": r.get(*_LAYERS), "hidden_size": hidden, "attention_heads": heads,
        "kv_heads": r.get("num_key_value_heads", "num_kv_heads", default=heads),
        "head_dim": head_dim, "ffn_hidden_size": r.get(*_FFN),
        "activation": r.get("hidden_activation", "hidden_act", "activation_function",
                            default="silu"),
        "vocab_size": r.get(*_VOCAB),
        "tied_embeddings": bool(r.get("tie_word_embeddings", default=tied)),
        "max_context": r.get("max_position_embeddings", "n_positions", "max_sequence_length",
                             "seq_length"),
        "qkv_bias": bias, "attention_output_bias": bias,
        "mlp_bias": bool(r.get("mlp_bias", default=False)),
        "dropout": float(r.get("resid_pdrop", "hidden_dropout", default=0.0)),
    }


def _sliding(r: _Reader, block: Block, default_layers: int) -> None:
    """Window size and how many layers use it (``layer_types`` when the config lists them)."""
    window, types = r.get("sliding_window"), r.cfg.get("layer_types")
    count = default_layers
    if isinstance(types, list) and types:
        count = sum(t == "sliding_attention" for t in types)
    if window and count > 0:
        block.update(sliding_window=window, sliding_window_layers=min(count, block["layers"]))


def _moe(r: _Reader, block: Block, dense_layers: int = 0, **extra: Any) -> None:
    """Routed experts: Mixtral ``num_local_experts``, Qwen/OLMoE ``num_experts``, DeepSeek."""
    experts = r.get("num_local_experts", "num_experts", "n_routed_experts")
    if not experts:
        return
    r.require(("num_experts_per_tok",), ("moe_intermediate_size", "intermediate_size"))
    block["moe"] = {"experts": experts, "experts_per_token": r.get("num_experts_per_tok"),
                    "expert_ffn_hidden_size": r.get("moe_intermediate_size", "intermediate_size"),
                    "dense_layers": dense_layers, **extra}


def _llama(r: _Reader) -> Block:
    """Llama, Mistral, Mixtral and unknown Llama-like types (a window applies to every layer)."""
    block = _base(r)
    _sliding(r, block, block["layers"])
    _moe(r, block)
    return block


def _qwen(r: _Reader) -> Block:
    """Qwen2/Qwen3 (+MoE): Qwen2 q/k/v always biased; Qwen3 per-head q/k RMSNorm."""
    block = _base(r)
    layers = block["layers"]
    if r.model_type.startswith("qwen2"):
        block.update(qkv_bias=True, attention_output_bias=False)
    else:
        block["qk_norm"] = "head"
    if r.get("use_sliding_window", default=False):  # layers from max_window_layers on
        _sliding(r, block, layers - int(r.get("max_window_layers", default=layers)))
    step, dense_only = int(r.get("decoder_sparse_step", default=1)), set(r.get("mlp_only_layers") or ())
    sparse = sum(1 for i in range(layers) if i not in dense_only and (i + 1) % step == 0)
    shared = r.get("shared_expert_intermediate_size")
    extra = ({"shared_experts": 1, "shared_expert_ffn_hidden_size": shared,
              "shared_expert_gate": True} if shared else {})
    _moe(r, block, layers - sparse, **extra)
    return block


def _gemma(r: _Reader) -> Block:
    """Gemma 2/3: pre- and post-norms around attention and MLP (4 per layer), tied embeddings."""
    block = _base(r, tied=True)
    layers = block["layers"]
    if r.model_type == "gemma":
        return block
    block["norms_per_layer"] = 4
    for key, field in (("attn_logit_softcapping", "attention_softcap"),
                       ("final_logit_softcapping", "final_logit_softcap")):
        cap = r.cfg.get(key)  # _Reader already merged the defaults
        if cap:  # tanh soft-capping of scores / logits (Gemma 2; Gemma 3 sets none)
            block[field] = float(cap)
    if r.model_type == "gemma2":  # even layers local (modeling_gemma2.py)
        _sliding(r, block, (layers + 1) // 2)
    else:  # gemma3: every sliding_window_pattern-th layer global
        block["qk_norm"] = "head"
        _sliding(r, block, layers - layers // int(r.get("sliding_window_pattern", default=6)))
    return block


def _phi3(r: _Reader) -> Block:
    block = _llama(r)
    block.update(fused_qkv=True, fused_gate_up=True)  # qkv_proj and gate_up_proj
    return block


def _deepseek(r: _Reader) -> Block:
    """DeepSeek V2/V3: MLA (arXiv 2405.04434 §2.1) and fine-grained MoE with shared experts."""
    r.require(("kv_lora_rank",), ("qk_nope_head_dim",), ("qk_rope_head_dim",), ("v_head_dim",))
    block = _base(r)
    nope, rope = r.get("qk_nope_head_dim"), r.get("qk_rope_head_dim")
    block["head_dim"] = nope + rope
    block["mla"] = {"q_lora_rank": r.get("q_lora_rank"), "kv_lora_rank": r.get("kv_lora_rank"),
                    "qk_nope_head_dim": nope, "qk_rope_head_dim": rope,
                    "v_head_dim": r.get("v_head_dim")}
    layers, first = block["layers"], int(r.get("first_k_dense_replace", default=0))
    freq = int(r.get("moe_layer_freq", default=1))
    sparse = sum(1 for i in range(first, layers) if i % freq == 0)
    default_topk = "noaux_tc" if r.model_type == "deepseek_v3" else "greedy"
    _moe(r, block, layers - sparse, shared_experts=int(r.get("n_shared_experts", default=0)),
         router_bias=r.get("topk_method", default=default_topk) == "noaux_tc")
    return block


def _gpt2(r: _Reader) -> Block:
    """GPT-2: biases everywhere, LayerNorm, learned positions, fused c_attn (modeling_gpt2.py)."""
    block = _base(r, tied=True, ffn_required=False)
    positions = r.get("n_positions", "max_position_embeddings", default=1024)
    block.update(
        ffn_hidden_size=block["ffn_hidden_size"] or 4 * block["hidden_size"], mlp="plain",
        activation=r.get("activation_function", default="gelu_new"), max_context=positions,
        position_embeddings=positions, norm="layernorm", qkv_bias=True,
        attention_output_bias=True, mlp_bias=True, fused_qkv=True,
        dropout=float(r.get("resid_pdrop", default=0.1)),
    )
    return block


def _falcon(r: _Reader) -> Block:
    """Falcon, incl. the old RefinedWeb (40B/180B layout) and RefinedWebModel (7B) configs."""
    block = _base(r, tied=True, ffn_required=False)
    heads, hidden = block["attention_heads"], block["hidden_size"]
    new_arch = bool(r.get("new_decoder_architecture", default=r.model_type == "RefinedWeb"))
    parallel = bool(r.get("parallel_attn", default=True))
    if new_arch:  # grouped k/v heads, ln_attn + ln_mlp (modeling_falcon.py)
        kv = r.get("num_kv_heads", "n_head_kv", default=heads)
        norms = int(r.get("num_ln_in_parallel_attn") or 2)
    else:
        kv = 1 if r.get("multi_query", default=True) else heads
        norms = 1 if parallel else 2
    bias = bool(r.get("bias", default=False))
    block.update(
        family="falcon", kv_heads=kv, ffn_hidden_size=block["ffn_hidden_size"] or 4 * hidden,
        mlp="plain", activation=r.get("activation", default="gelu"), norm="layernorm",
        norms_per_layer=norms, parallel_attention=parallel, fused_qkv=True, qkv_bias=bias,
        attention_output_bias=bias, mlp_bias=bias,
        max_context=r.get("max_position_embeddings", default=2048),
    )
    return block


def _olmo(r: _Reader) -> Block:
    """OLMo 2 (post-norms only) and OLMoE: RMSNorm over all of q and of k (modeling_olmo2.py)."""
    block = _llama(r)
    block["qk_norm"] = "full"
    return block


_FAMILIES: dict[str, Callable[[_Reader], Block]] = {
    "qwen2": _qwen, "qwen2_moe": _qwen, "qwen3": _qwen, "qwen3_moe": _qwen,
    "gemma": _gemma, "gemma2": _gemma, "gemma3_text": _gemma, "phi3": _phi3,
    "deepseek_v2": _deepseek, "deepseek_v3": _deepseek, "gpt2": _gpt2,
    "falcon": _falcon, "RefinedWeb": _falcon, "RefinedWebModel": _falcon,
    "olmo2": _olmo, "olmoe": _olmo,
}


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


def _text_config(cfg: Config) -> Config:
    """Multimodal configs (Gemma 3, Llava...) nest the language model in ``text_config``."""
    inner = cfg.get("text_config")
    if not isinstance(inner, dict):
        return cfg
    outer_type = str(cfg.get("model_type") or "")
    text = {"_name_or_path": cfg.get("_name_or_path"), **inner}
    text.setdefault("model_type", "gemma3_text" if outer_type == "gemma3" else outer_type)
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

    The block holds :class:`~gpusizer.core.specs.ModelSpec` fields (no ``preset``) and gives the
    same parameter count as transformers' ``AutoModelForCausalLM.from_config``. Raises
    :class:`ScenarioError` (field ``config``) naming the missing or bad keys.
    """
    reader = _Reader(_text_config(_load(config)))
    try:
        block = _FAMILIES.get(reader.model_type, _llama)(reader)
    except ScenarioError:
        raise
    except (TypeError, ValueError, ZeroDivisionError) as exc:  # e.g. "hidden_size": "big"
        kind = reader.model_type or "model"
        raise ScenarioError("config", f"a key of this {kind} config has an unusable value "
                            f"({exc})") from None
    return _validated(block)
