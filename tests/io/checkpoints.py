"""Tiny real-format checkpoints for the import tests: safetensors files whose headers describe
the tensors of a small model in a given storage (the data bytes are zeros, never read), and
config.json files beside them."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

Tensors = dict[str, tuple[str, list[int]]]
Linear = Callable[[str, int, int], Tensors]

# safetensors dtype -> bytes per element (packed formats store bytes: U8, or I32 words)
ELEMENT_BYTES = {"BF16": 2, "F16": 2, "F32": 4, "F8_E4M3": 1, "U8": 1, "I32": 4, "I8": 1}


CONFIGS = Path(__file__).parent / "configs"


def write_safetensors(path: Path, tensors: Tensors) -> None:
    """A .safetensors file: the JSON header (format README) and a zero data buffer."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        size = math.prod(shape) * ELEMENT_BYTES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        f.truncate(8 + len(raw) + offset)  # a sparse zero buffer


def llama_tensors(cfg: dict[str, Any], linear: Linear, dtype: str = "BF16") -> Tensors:
    """Tensors of a Llama-like model; ``linear(name, out, in)`` gives each projection's
    tensors (the storage format), norms and embeddings are ``dtype``."""
    h, f, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    hd = h // cfg["num_attention_heads"]
    kv = cfg["num_key_value_heads"] * hd
    out: Tensors = {"model.embed_tokens.weight": (dtype, [v, h]), "model.norm.weight": (dtype, [h])}
    if not cfg.get("tie_word_embeddings"):
        out["lm_head.weight"] = (dtype, [v, h])
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        out[p + "input_layernorm.weight"] = (dtype, [h])
        out[p + "post_attention_layernorm.weight"] = (dtype, [h])
        for name, o, n in (
            ("self_attn.q_proj", h, h),
            ("self_attn.k_proj", kv, h),
            ("self_attn.v_proj", kv, h),
            ("self_attn.o_proj", h, h),
            ("mlp.gate_proj", f, h),
            ("mlp.up_proj", f, h),
            ("mlp.down_proj", h, f),
        ):
            out.update(linear(p + name, o, n))
    return out


def plain(dtype: str) -> Linear:
    return lambda name, o, n: {name + ".weight": (dtype, [o, n])}


def gptq(group: int = 128) -> Linear:
    """AutoGPTQ 4-bit layout: qweight int32 [in/8, out], qzeros int32 [in/g, out/8], scales
    fp16 [in/g, out], g_idx int32 [in]."""
    return lambda name, o, n: {
        name + ".qweight": ("I32", [n // 8, o]),
        name + ".qzeros": ("I32", [n // group, o // 8]),
        name + ".scales": ("F16", [n // group, o]),
        name + ".g_idx": ("I32", [n]),
    }


def fp8_block(name: str, o: int, n: int) -> Tensors:
    """DeepSeek-V3 FP8: weight F8_E4M3, weight_scale_inv fp32 per 128x128 block."""
    return {
        name + ".weight": ("F8_E4M3", [o, n]),
        name + ".weight_scale_inv": ("F32", [-(-o // 128), -(-n // 128)]),
    }


def write_model(folder: Path, cfg: dict[str, Any], tensors: Tensors, shards: int = 1) -> Path:
    """config.json and model.safetensors (or an index and ``shards`` shard files)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    if shards == 1:
        write_safetensors(folder / "model.safetensors", tensors)
        return folder
    names = list(tensors)
    weight_map = {}
    for k in range(shards):
        part = names[k::shards]
        file = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(folder / file, {n: tensors[n] for n in part})
        weight_map.update(dict.fromkeys(part, file))
    (folder / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": weight_map}), encoding="utf-8"
    )
    return folder


def awq(group: int = 128) -> Linear:
    """AutoAWQ GEMM layout: qweight int32 [in, out/8], qzeros int32 [in/g, out/8], scales fp16
    [in/g, out]."""
    return lambda name, o, n: {
        name + ".qweight": ("I32", [n, o // 8]),
        name + ".qzeros": ("I32", [n // group, o // 8]),
        name + ".scales": ("F16", [n // group, o]),
    }


def nf4(name: str, o: int, n: int) -> Tensors:
    """bitsandbytes Linear4bit with double quantisation (blocksize 64, absmax in 8 bits with
    an fp32 scale per 256 blocks): packed weight, absmax, quant maps and the state blob."""
    blocks = o * n // 64
    w = name + ".weight"
    return {
        w: ("U8", [o * n // 2, 1]),
        w + ".absmax": ("U8", [blocks]),
        w + ".nested_absmax": ("F32", [-(-blocks // 256)]),
        w + ".quant_map": ("F32", [16]),
        w + ".nested_quant_map": ("F32", [256]),
        w + ".quant_state.bitsandbytes__nf4": ("U8", [96]),
    }


def gpt_oss_tensors(cfg: dict[str, Any]) -> Tensors:
    """gpt-oss as released (modeling_gpt_oss.py names; MXFP4 experts as _blocks of 16 bytes per
    32 values and one E8M0 _scales byte per 32, biases bf16)."""
    h, v, e = cfg["hidden_size"], cfg["vocab_size"], cfg["num_local_experts"]
    f, hd = cfg["intermediate_size"], cfg["head_dim"]
    q, kv = cfg["num_attention_heads"] * hd, cfg["num_key_value_heads"] * hd
    out: Tensors = {
        "model.embed_tokens.weight": ("BF16", [v, h]),
        "lm_head.weight": ("BF16", [v, h]),
        "model.norm.weight": ("BF16", [h]),
    }
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        for norm in ("input_layernorm", "post_attention_layernorm"):
            out[p + norm + ".weight"] = ("BF16", [h])
        for name, o, n in (("q_proj", q, h), ("k_proj", kv, h), ("v_proj", kv, h), ("o_proj", h, q)):
            out[p + f"self_attn.{name}.weight"] = ("BF16", [o, n])
            out[p + f"self_attn.{name}.bias"] = ("BF16", [o])
        out[p + "self_attn.sinks"] = ("BF16", [cfg["num_attention_heads"]])
        out[p + "mlp.router.weight"] = ("BF16", [e, h])
        out[p + "mlp.router.bias"] = ("BF16", [e])
        for name, o, n in (("gate_up_proj", 2 * f, h), ("down_proj", h, f)):
            out[p + f"mlp.experts.{name}_blocks"] = ("U8", [e, o, n // 32, 16])
            out[p + f"mlp.experts.{name}_scales"] = ("U8", [e, o, n // 32])
            out[p + f"mlp.experts.{name}_bias"] = ("BF16", [e, o])
    return out


def tiny_gpt_oss_config() -> dict[str, Any]:
    """gpt-oss-20b's config.json (its MXFP4 quantization_config included) shrunk to 2 layers of
    width 256 and 8 experts: a checkpoint of it is written in milliseconds."""
    cfg: dict[str, Any] = json.loads((CONFIGS / "gpt-oss-20b.json").read_text(encoding="utf-8"))
    cfg.update(
        num_hidden_layers=2,
        hidden_size=256,
        intermediate_size=256,
        head_dim=64,
        num_attention_heads=8,
        num_key_value_heads=2,
        vocab_size=2048,
        num_local_experts=8,
        layer_types=["sliding_attention", "full_attention"],
    )
    return cfg
