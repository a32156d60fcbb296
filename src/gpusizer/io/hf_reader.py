"""Reading a Hugging Face ``config.json``: keys by any spelling, strict types, shared blocks.

Strictness: a boolean key must hold a JSON boolean (``"attention_bias": "false"``
is refused, not read as true); a layer count beyond :data:`MAX_LAYERS` is refused before any
work that grows with it, and every count below is computed arithmetically, never by looping
over layers; a config that names 0 experts is refused rather than read as a dense model.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import ScenarioError, excerpt
from ..core.limits import MAX_LAYERS

Config = dict[str, Any]
Block = dict[str, Any]

# No released model comes near this (Llama 3.1 405B: 126 layers); the spec's own limit, where
# one is set, is checked again when the block is validated.

LAYERS = ("num_hidden_layers", "n_layer", "num_layers")
HIDDEN = ("hidden_size", "n_embd", "d_model")
HEADS = ("num_attention_heads", "n_head")
VOCAB = ("vocab_size",)
FFN = ("intermediate_size", "n_inner", "ffn_hidden_size")
EXPERTS = ("num_local_experts", "num_experts", "n_routed_experts")

# transformers defaults for keys that released configs leave out (configuration_gemma3.py)
_DEFAULTS: dict[str, Config] = {
    "gemma3_text": {
        "vocab_size": 262_208,
        "max_position_embeddings": 131_072,
        "head_dim": 256,
        "sliding_window": 4096,
        "sliding_window_pattern": 6,
        "hidden_activation": "gelu_pytorch_tanh",
    },
    "gemma2": {
        "vocab_size": 256_000,
        "head_dim": 256,
        "sliding_window": 4096,
        "hidden_activation": "gelu_pytorch_tanh",
        "attn_logit_softcapping": 50.0,
        "final_logit_softcapping": 30.0,
    },
}


def model_type(cfg: Config) -> str:
    """``model_type`` as transformers has it: a string ("" when absent). A list was read as
    the family ``"['llama']"``."""
    value = cfg.get("model_type")
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise ScenarioError("config", f'model_type must be a string such as "llama"; got {excerpt(value)}')
    return value


class Reader:
    """Reads a config by any of a key's spellings; names what is missing or mistyped."""

    def __init__(self, cfg: Config) -> None:
        self.model_type = model_type(cfg)
        self.cfg = {**_DEFAULTS.get(self.model_type, {}), **cfg}

    def get(self, *names: str, default: Any = None) -> Any:
        for name in names:
            if self.cfg.get(name) is not None:
                return self.cfg[name]
        return default

    def flag(self, name: str, default: bool = False) -> bool:
        """A boolean key; anything but true/false/null is refused, naming the key."""
        value = self.cfg.get(name)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise ScenarioError("config", f"{name} must be true or false; got {excerpt(value)}")
        return value

    def fraction(self, *names: str, default: float = 0.0) -> float:
        """A probability key (dropout): a JSON number from 0 to 1 (``"0.1"`` is refused)."""
        for name in names:
            value = self.cfg.get(name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ScenarioError("config", f"{name} must be a number from 0 to 1; got {excerpt(value)}")
            return float(value)
        return default

    def count(self, *names: str, default: int | None = None) -> int | None:
        """A non-negative integer key (a float such as 4096.0 is accepted when whole)."""
        for name in names:
            value = self.cfg.get(name)
            if value is None:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or value < 0
                or value != int(value)
            ):
                raise ScenarioError("config", f"{name} must be a whole number; got {excerpt(value)}")
            return int(value)
        return default

    def require(self, *groups: tuple[str, ...]) -> None:
        missing = [" or ".join(g) for g in groups if self.get(*g) is None]
        if missing:
            kind = f"a {self.model_type} model" if self.model_type else "a model"
            raise ScenarioError("config", f"missing {', '.join(missing)} (needed for {kind})")


def layers(r: Reader) -> int:
    """The layer count, refused beyond :data:`MAX_LAYERS` (real models stay far below)."""
    n = r.count(*LAYERS)
    if n is not None and n > MAX_LAYERS:
        name = next(k for k in LAYERS if r.cfg.get(k) is not None)
        raise ScenarioError("config", f"{name} is {n:,}; at most {MAX_LAYERS:,} layers")
    return n or 0


def base(r: Reader, tied: bool = False, ffn_required: bool = True) -> Block:
    """The fields every decoder shares, in the Llama reading (configuration_llama.py)."""
    r.require(LAYERS, HIDDEN, HEADS, VOCAB, *((FFN,) if ffn_required else ()))
    n_layers = layers(r)
    hidden, heads = r.get(*HIDDEN), r.get(*HEADS)
    head_dim = r.get("head_dim") or (hidden // heads if hidden % heads == 0 else None)
    bias = r.flag("attention_bias")  # Llama: q, k, v and o all get a bias
    return {
        "name": str(r.get("_name_or_path") or r.model_type or "custom").rstrip("/").split("/")[-1],
        "family": r.model_type or "llama",
        "layers": n_layers,
        "hidden_size": hidden,
        "attention_heads": heads,
        "kv_heads": r.get("num_key_value_heads", "num_kv_heads", default=heads),
        "head_dim": head_dim,
        "ffn_hidden_size": r.get(*FFN),
        "activation": r.get("hidden_activation", "hidden_act", "activation_function", default="silu"),
        "vocab_size": r.get(*VOCAB),
        "tied_embeddings": r.flag("tie_word_embeddings", tied),
        "max_context": r.get("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"),
        "qkv_bias": bias,
        "attention_output_bias": bias,
        "mlp_bias": r.flag("mlp_bias"),
        "dropout": r.fraction("resid_pdrop", "hidden_dropout"),
    }


def sliding(r: Reader, block: Block, default_layers: int, key: str = "sliding_window") -> None:
    """Window size and how many layers use it (``layer_types`` when the config lists them;
    transformers' cache treats ``chunked_attention`` layers as sliding ones, cache_utils.py)."""
    window, types = r.get(key), r.cfg.get("layer_types")
    count = default_layers
    if isinstance(types, list) and types:
        count = sum(t in ("sliding_attention", "chunked_attention") for t in types)
    if window and count > 0:
        block.update(sliding_window=window, sliding_window_layers=min(count, block["layers"]))


def experts(r: Reader) -> int:
    """Routed experts; a key holding 0 is refused (it is not a dense model's config)."""
    for name in EXPERTS:
        n = r.count(name)
        if n == 0:
            raise ScenarioError(
                "config", f"{name} is 0: an MoE config needs experts (a dense model's config has no such key)"
            )
        if n:
            return n
    return 0


def moe(r: Reader, block: Block, dense_layers: int = 0, **extra: Any) -> None:
    """Routed experts: Mixtral ``num_local_experts``, Qwen/OLMoE ``num_experts``, DeepSeek."""
    n = experts(r)
    if not n:
        return
    r.require(("num_experts_per_tok",), ("moe_intermediate_size", "intermediate_size"))
    block["moe"] = {
        "experts": n,
        "experts_per_token": r.get("num_experts_per_tok"),
        "expert_ffn_hidden_size": r.get("moe_intermediate_size", "intermediate_size"),
        "dense_layers": dense_layers,
        **extra,
    }


def multiples(lo: int, hi: int, step: int) -> int:
    """How many i in [lo, hi) have i % step == 0 (no loop: any layer count is instant)."""
    return max(0, (hi - 1) // step - (lo - 1) // step) if hi > lo else 0


def listed_below(values: Any, limit: int, step: int = 1) -> int:
    """Distinct integers of a config list in [0, limit) with (i + 1) % step == 0 (Qwen
    ``mlp_only_layers``); the list is bounded by the file, not by the layer count."""
    if not isinstance(values, list):
        return 0
    return len(
        {
            v
            for v in values
            if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < limit and (v + 1) % step == 0
        }
    )
