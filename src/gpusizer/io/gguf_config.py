"""A GGUF's metadata -> the Hugging Face config it was converted from.

The architecture's metadata keys (llama.cpp ``src/llama-model.cpp`` ``load_hparams``, key names
from gguf-py ``constants.py`` ``Keys``) are read into the Hugging Face config keys they were
converted from (``convert_hf_to_gguf.py``), and that config goes through the same family readers
as a config.json (io/hf_config.py), so a GGUF gets the family details a config does:
``{arch}.block_count`` (less ``nextn_predict_layers``, the MTP layers GLM-4.5 files keep, which
become ``mtp_layers``; 0 when the key is absent, as llama.cpp reads it),
``embedding_length``, ``attention.head_count`` / ``head_count_kv`` (a per-layer array: its
largest), ``feed_forward_length``, ``context_length``, ``attention.key_length``,
``attention.sliding_window``, ``expert_count`` / ``expert_used_count`` /
``expert_feed_forward_length`` / ``expert_shared_count`` / ``leading_dense_block_count``, and
for DeepSeek's MLA ``attention.q_lora_rank`` / ``kv_lora_rank`` / ``rope.dimension_count`` with
``key_length_mla`` / ``value_length_mla`` (files converted since MLA support store the absorbed
widths in ``key_length``). The tensor table says the rest: the vocabulary is the token
embedding's rows (else the token list's length), the embedding is tied when there is no
``output.weight`` (llama.cpp then reuses ``token_embd``), biases exist when ``attn_q.bias`` /
``ffn_up.bias`` do.

io/gguf_import.py reads the files and the precision their tensor types show.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import ScenarioError, excerpt
from .gguf_reader import GGUFArray, GGUFFile

# general.architecture -> the transformers model_type whose reader builds it
ARCHS = {
    "llama": "llama",
    "mistral3": "mistral",
    "llama4": "llama4_text",
    "qwen2": "qwen2",
    "qwen2moe": "qwen2_moe",
    "qwen2vl": "qwen2",
    "qwen3": "qwen3",
    "qwen3moe": "qwen3_moe",
    "qwen3vl": "qwen3",
    "qwen3vlmoe": "qwen3_moe",
    "gemma": "gemma",
    "gemma2": "gemma2",
    "gemma3": "gemma3_text",
    "phi3": "phi3",
    "deepseek2": "deepseek_v2",
    "gpt-oss": "gpt_oss",
    "glm4moe": "glm4_moe",
    "falcon": "falcon",
    "gpt2": "gpt2",
    "olmo2": "olmo2",
    "olmoe": "olmoe",
}
_RECURRENT = (
    "mamba",
    "rwkv",
    "jamba",
    "nemotron_h",
    "falcon-h1",
    "qwen3next",
    "hybrid",
    "lfm2",
    "plamo2",
    "kimi-linear",
    "qwen35",
)
LLAMA4_CHUNK = 8192  # llama-model.cpp: n_attn_chunk = 8192 for LLM_ARCH_LLAMA4 (no GGUF key)


def _largest(value: Any) -> Any:
    """A per-layer array (``head_count_kv`` of some files) as its largest entry."""
    if isinstance(value, GGUFArray):
        return max(value.values) if value.values else None
    return value


class _Meta:
    def __init__(self, f: GGUFFile, arch: str) -> None:
        self.meta, self.arch = f.metadata, arch
        self.names = {t.name: t for t in f.tensors}

    def get(self, key: str) -> int | None:
        """A count of the architecture's metadata (llama.cpp stores every key read here as
        an integer, or a per-layer array of them): a bool, float or string is a damaged file,
        refused by name (a bool ``block_count`` became 1 layer, a float ``head_count_kv`` was
        passed over and the size gap then "explained" by a storage type)."""
        full = f"{self.arch}.{key}"
        value = _largest(self.meta.get(full))
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise ScenarioError("gguf", f"{full} must be an integer; got {excerpt(value)}")
        return value

    def has(self, tensor: str) -> bool:
        return tensor in self.names


def _vocab(m: _Meta) -> int | None:
    embd = m.names.get("token_embd.weight")
    if embd is not None and len(embd.dims) == 2:
        return embd.dims[1]
    tokens = m.meta.get("tokenizer.ggml.tokens")
    return m.get("vocab_size") or (tokens.count if isinstance(tokens, GGUFArray) else None)


def _common(m: _Meta, model_type: str, name: str) -> dict[str, Any]:
    layers = (m.get("block_count") or 0) - (m.get("nextn_predict_layers") or 0)
    ffn = m.get("feed_forward_length") or m.get("expert_feed_forward_length")
    cfg: dict[str, Any] = {
        "_name_or_path": name,
        "model_type": model_type,
        "num_hidden_layers": layers,
        "hidden_size": m.get("embedding_length"),
        "num_attention_heads": m.get("attention.head_count"),
        "num_key_value_heads": m.get("attention.head_count_kv"),
        "intermediate_size": ffn,
        "max_position_embeddings": m.get("context_length"),
        "head_dim": m.get("attention.key_length"),
        "vocab_size": _vocab(m),
        "tie_word_embeddings": not m.has("output.weight"),
        "attention_bias": m.has("blk.0.attn_q.bias") or m.has("blk.0.attn_qkv.bias"),
        "mlp_bias": m.has("blk.0.ffn_up.bias"),
        "sliding_window": m.get("attention.sliding_window"),
        "num_local_experts": m.get("expert_count") or None,
        "num_experts_per_tok": m.get("expert_used_count"),
        "moe_intermediate_size": m.get("expert_feed_forward_length"),
        "shared_expert_intermediate_size": m.get("expert_shared_feed_forward_length"),
        "n_shared_experts": m.get("expert_shared_count"),
        "first_k_dense_replace": m.get("leading_dense_block_count"),
        "interleave_moe_layer_step": m.get("interleave_moe_layer_step"),
        # llama.cpp reads the key as optional, 0 when absent: the file holds what it states
        "num_nextn_predict_layers": m.get("nextn_predict_layers") or 0,
    }
    return {k: v for k, v in cfg.items() if v is not None}


def _family(m: _Meta, cfg: dict[str, Any]) -> None:
    """What a family's reader needs beyond the common keys."""
    kind = cfg["model_type"]
    if kind == "deepseek_v2":
        _deepseek(m, cfg)
    elif kind == "llama4_text":
        cfg.update(
            intermediate_size=m.get("expert_feed_forward_length"),
            intermediate_size_mlp=m.get("feed_forward_length"),
            attention_chunk_size=LLAMA4_CHUNK,
        )
    elif kind == "gpt_oss":
        cfg["experts_per_token"] = cfg.get("num_experts_per_tok")
    elif kind == "glm4_moe":
        cfg["use_qk_norm"] = m.has("blk.0.attn_q_norm.weight")
    elif kind == "falcon":
        cfg.update(
            new_decoder_architecture=m.has("blk.0.attn_norm_2.weight"),
            num_kv_heads=cfg.get("num_key_value_heads"),
            parallel_attn=True,
            bias=cfg["attention_bias"],
        )
    elif kind == "gpt2":
        cfg.update(n_positions=cfg.get("max_position_embeddings"), n_inner=cfg.get("intermediate_size"))
    elif kind == "gemma3_text":  # an integer period; newer files store a per-layer bool array
        pattern = m.meta.get(f"{m.arch}.attention.sliding_window_pattern")
        if isinstance(pattern, int) and not isinstance(pattern, bool):
            cfg["sliding_window_pattern"] = pattern


def _deepseek(m: _Meta, cfg: dict[str, Any]) -> None:
    """DeepSeek's MLA widths (``key_length_mla`` / ``value_length_mla`` where the file stores
    the absorbed widths in ``key_length``); sigmoid gating with a bias makes it V3."""
    rope = m.get("rope.dimension_count") or 64
    key = m.get("attention.key_length_mla") or m.get("attention.key_length")
    value = m.get("attention.value_length_mla") or m.get("attention.value_length")
    cfg.update(
        kv_lora_rank=m.get("attention.kv_lora_rank"),
        q_lora_rank=m.get("attention.q_lora_rank") or None,
        qk_rope_head_dim=rope,
        qk_nope_head_dim=(key or rope) - rope,
        v_head_dim=value,
    )
    cfg.pop("head_dim", None)
    if (
        m.get("expert_gating_func") == 2
        or m.has("blk.3.exp_probs_b.bias")
        or any(n.endswith("exp_probs_b.bias") for n in m.names)
    ):  # sigmoid + bias: V3
        cfg["model_type"] = "deepseek_v3"


def gguf_config(f: GGUFFile, fallback_name: str) -> tuple[dict[str, Any], list[str]]:
    """The Hugging Face config a GGUF's metadata stands for, and notes."""
    arch = f.metadata.get("general.architecture")
    if not isinstance(arch, str):
        raise ScenarioError("gguf", "general.architecture is missing; not a model GGUF")
    notes: list[str] = []
    if any(word in arch for word in _RECURRENT) or any(".ssm_" in t.name for t in f.tensors):
        raise ScenarioError(
            "gguf",
            f"architecture {excerpt(arch)} has recurrent (Mamba or "
            "linear-attention) layers, which are not read from GGUF metadata; "
            "import its config.json instead",
        )
    if arch not in ARCHS:
        notes.append(f"architecture {arch!r} is read as a Llama-like decoder")
    if arch in ("gemma3", "qwen2vl", "qwen3vl", "qwen3vlmoe", "llama4", "mistral3"):
        notes.append("a vision tower lives in a separate mmproj GGUF; not counted")
    name = f.metadata.get("general.name")
    m = _Meta(f, arch)
    cfg = _common(m, ARCHS.get(arch, arch), name if isinstance(name, str) and name else fallback_name)
    _family(m, cfg)
    return cfg, notes
