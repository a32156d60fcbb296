"""The config.json readers by ``model_type`` (one entry each, a duplicate refused) and the
architectures whose blocks GPU Sizer does not model, refused in one line rather than read as a
Llama-like decoder and mis-counted:

- recurrent models without attention: RWKV (modeling_rwkv.py: time-mix and channel-mix
  blocks), Mamba 1 and Falcon-Mamba (modeling_mamba.py: x_proj/dt_proj selective scan), xLSTM
  (pure Mamba-2 is read: io/hf_ssm.py);
- hybrids whose mixers or MoE layout are not read: Jamba, Zamba, Bamba, Falcon-H1, LFM2,
  RecurrentGemma (Granite 4.0-H is read: io/hf_families_2026.py);
- Gemma 3n (``gemma3n``): per-layer embeddings, AltUp and LAuReL blocks, which no model block
  field prices (refused naming the keys, not read as Gemma 3 and mis-counted);
- encoder-decoders (``is_encoder_decoder`` true, or a T5/BART/Whisper ``model_type``): two
  stacks and cross-attention (modeling_t5.py ``T5Stack``, modeling_bart.py).

Nemotron-H (Mamba-2 + attention) is read (io/hf_families.py).

A ``model_type`` no reader lists is read as a Llama-like decoder unless its config carries a key
that says its blocks are not Llama's (``NOT_LLAMA_KEYS``: linear-attention or state-space
mixers, latent attention, per-layer embeddings, or ``layer_types`` naming a layer other than full
or sliding attention). Such a config is refused naming the key, rather than counted as all-MHA
layers: Kimi Linear's ``linear_attn_config`` (modeling_kimi.py, moonshotai/Kimi-Linear-48B-A3B),
MiniMax-M1's ``attn_type_list`` (modeling_minimax.py), LongCat-Flash's ``kv_lora_rank``,
Step3's ``share_q_dim`` (its factorised query), ERNIE-4.5-VL's and Step-3.5's
``moe_num_experts`` (experts the Llama-like reading does not count: ERNIE-4.5-VL-28B-A3B read as
3.6B dense). LFM2-MoE (``lfm2_moe``) is refused by name: its short convolutions have no field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ..core.errors import MESSAGE_CHARS, ScenarioError
from .hf_reader import Block, Config, Reader

Readers = Mapping[str, Callable[[Reader], Block]]

_RECURRENT = ("rwkv", "rwkv5", "rwkv6", "rwkv7", "mamba", "falcon_mamba", "xlstm")
_HYBRID = ("jamba", "zamba", "zamba2", "bamba", "falcon_h1", "lfm2", "recurrent_gemma")
_ENCODER_DECODER = ("t5", "mt5", "umt5", "longt5", "switch_transformers", "bart", "mbart", "pegasus")
_ENCODER_DECODER_MORE = ("marian", "whisper", "encoder-decoder")
UNMODELLED: dict[str, str] = {
    # Gemma 3n (modeling_gemma3n.py): per-layer embeddings (hidden_size_per_layer_input), AltUp
    # (altup_num_inputs) and LAuReL (laurel_rank) around each layer, KV shared across layers
    **dict.fromkeys(("gemma3n", "gemma3n_text"), "per-layer embeddings, AltUp: hidden_size_per_layer_input"),
    **{t: "recurrent blocks, no attention" for t in _RECURRENT},
    **{t: "hybrid blocks" for t in _HYBRID},
    # LFM2-MoE (modeling_lfm2_moe.py ``Lfm2MoeShortConv``: in_proj, a depthwise conv1d of
    # ``conv_L_cache``, out_proj on the "conv" layers): no block field prices a short convolution
    "lfm2_moe": "short convolutions, layer_types conv: no block field prices them",
    **{t: "encoder-decoder" for t in _ENCODER_DECODER + _ENCODER_DECODER_MORE},
}


# read by a listed family's reader under another name, left out of the refusal's list too
# DeepSeek-V3.2 and GLM-5: deepseek_v3's reader; Hunyuan dense: hunyuan_v1_moe's
_VARIANTS = frozenset({"deepseek_v32", "glm_moe_dsa", "hunyuan_v1_dense"})


# keys of a config whose blocks the Llama-like reader would mis-count (module doc): key -> what
NOT_LLAMA_KEYS: dict[str, str] = {
    "linear_attn_config": "linear-attention layers",
    "attn_type_list": "linear-attention layers",
    "linear_num_value_heads": "linear-attention layers",
    "kv_lora_rank": "latent (MLA) attention",
    "ssm_state_size": "state-space mixers",
    "mamba_d_state": "state-space mixers",
    "hidden_size_per_layer_input": "per-layer embeddings",
    # Step3 (step3_text): q through share_q_dim, inter_norm, then wq; one key-value head
    "share_q_dim": "factorised (MFA) query attention",
    # ERNIE-4.5-VL (ernie4_5_moe_vl: text and vision experts, a list each) and Step-3.5
    # (step3p5): experts under keys the Llama-like reading does not read, so a dense count
    "moe_num_experts": "experts under moe_num_experts",
}
_LLAMA_LAYER_TYPES = frozenset({"full_attention", "sliding_attention", "attention"})


def _not_llama(cfg: Config) -> str | None:
    """The first key of ``cfg`` (or its ``text_config``) that the Llama-like reader would not
    read, with what it means; None when there is none."""
    for c in (cfg, cfg.get("text_config")):
        if not isinstance(c, dict):
            continue
        for key, what in NOT_LLAMA_KEYS.items():
            if c.get(key) not in (None, 0, False, {}, []):
                return f"{key}: {what}"
        types = c.get("layer_types")
        if isinstance(types, list):
            odd = sorted({str(t)[:30] for t in types} - _LLAMA_LAYER_TYPES)
            if odd:
                return f"layer_types {', '.join(odd[:3])}"
    return None


def _generation_of(kind: str, family: str) -> bool:
    """``cohere2`` of ``cohere``, ``deepseek_v3`` of ``deepseek_v2``: one name and another
    number, the later one left out of the list."""
    stem = kind.rstrip("0123456789")
    return kind > family and stem != kind and stem == family.rstrip("0123456789")


def merged(*tables: Readers) -> dict[str, Callable[[Reader], Block]]:
    """One reader per ``model_type``; a type registered twice (or also refused) is a bug."""
    out: dict[str, Callable[[Reader], Block]] = {}
    for table in tables:
        for kind, reader in table.items():
            if kind in out or kind in UNMODELLED:
                raise ValueError(f"reader of model_type {kind!r} registered twice or also refused")
            out[kind] = reader
    return out


def refuse_unmodelled(cfg: Config, kind: str, supported: Readers) -> None:
    """ScenarioError (field ``config``) naming ``architectures`` and the supported
    ``model_type`` values when the config's blocks are not modelled (module doc)."""
    why = UNMODELLED.get(kind)
    if why is None and cfg.get("is_encoder_decoder") is True:
        why = UNMODELLED["encoder-decoder"]
    if why is None and kind not in supported:
        why = _not_llama(cfg)
    if why is None:
        return
    arch = cfg.get("architectures")
    names = ",".join(str(a)[:40] for a in arch[:2]) if isinstance(arch, list) and arch else "(none)"
    head = f"architectures {names} ({kind or 'no model_type'}) not modelled ({why}); supported: "
    room = MESSAGE_CHARS - len("config: " + head)  # str(error) carries the field too
    raise ScenarioError("config", head + _supported_list(supported, room))


def _supported_list(supported: Readers, room: int) -> str:
    """The supported ``model_type`` values, folded (below), as many whole names as fit in
    ``room`` characters and then how many more: never a name cut by the message's limit."""
    # variants of a listed family (qwen2_moe, xlm-roberta, nested *_text configs, Falcon's old
    # names) left out, so that the list fits the one-line message
    kinds = {
        k
        for k in supported
        if not k.endswith("_text") and not k.startswith("RefinedWeb") and k not in _VARIANTS
    }
    # and a family's numbered generations (cohere2, deepseek_v3, qwen3...) under its first name
    listed = sorted(
        k
        for k in kinds
        if not any(k.startswith(j + "_") or k.endswith("-" + j) or _generation_of(k, j) for j in kinds)
    )
    # and a type read by the reader of a name listed before it (kimi_k2: DeepSeek's) under that name
    first = {supported[k]: k for k in reversed(listed)}
    names = ["llama-like", *(k for k in listed if first[supported[k]] == k)]
    text = ",".join(names)
    if len(text) <= room:
        return text
    keep = len(names)
    while keep > 1 and len(",".join(names[:keep])) + len(f",+{len(names) - keep} more") > room:
        keep -= 1
    return ",".join(names[:keep]) + f",+{len(names) - keep} more"
