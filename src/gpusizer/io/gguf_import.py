"""A GGUF file -> a model block and the precision its tensor types show.

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

The precision: ``general.file_type`` names the llama.cpp quantisation (a rule of
core/registry/quant_rules.py where one exists), and the tensor types give each group's stored bytes
(io/checkpoint_check.py). A vision tower sits in a separate ``mmproj`` GGUF and is not counted.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError, excerpt
from .checkpoint_check import Record, check, dominant, follow_headers, group_table
from .gguf_reader import MAX_TENSORS, GGUFArray, GGUFFile, read_gguf
from .hf_config import import_hf_config

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
# general.file_type (gguf-py LlamaFileType) -> (weights dtype, quantisation rule)
FILE_TYPES = {
    0: ("fp32", "uniform"),
    1: ("fp16", "gguf-f16"),
    2: ("gguf_q4_0", "gguf-q4_0"),
    3: ("gguf_q4_1", "gguf-q4_1"),
    7: ("gguf_q8_0", "gguf-q8_0"),
    15: ("gguf_q4_k_m", "gguf-q4_k_m"),
    17: ("gguf_q5_k_m", "gguf-q5_k_m"),
    32: ("bf16", "uniform"),
    38: ("mxfp4", "gguf-mxfp4_moe"),
}
# ggml tensor types stored whole in one of our dtypes (core/registry/dtypes.py)
GGML_DTYPES = {
    "F32": "fp32",
    "F16": "fp16",
    "BF16": "bf16",
    "Q8_0": "gguf_q8_0",
    "Q4_0": "gguf_q4_0",
    "Q4_1": "gguf_q4_1",
    "Q5_0": "gguf_q5_0",
    "Q5_1": "gguf_q5_1",
    "Q2_K": "gguf_q2_k",
    "Q3_K": "gguf_q3_k",
    "Q4_K": "gguf_q4_k",
    "Q5_K": "gguf_q5_k",
    "Q6_K": "gguf_q6_k",
    "IQ4_XS": "gguf_iq4_xs",
    "IQ4_NL": "gguf_iq4_nl",
    "MXFP4": "mxfp4",
}
_MATRICES = ("attention", "mlp", "experts", "shared_experts")
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


def _merged(files: list[GGUFFile]) -> GGUFFile:
    """The first file's metadata with every file's tensors (for the config's tensor checks)."""
    first = files[0]
    if len(files) == 1:
        return first
    return GGUFFile(
        first.version,
        first.metadata,
        tuple(t for f in files for t in f.tensors),
        first.file_bytes,
        first.data_start,
    )


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


_SPLIT = re.compile(r"^(.*)-(\d{5})-of-(\d{5})\.gguf$")


def _shards(p: Path, f: GGUFFile) -> list[GGUFFile]:
    """Every file of a split GGUF (``split.count``; llama.cpp's gguf-split names the files
    ``NAME-00001-of-00003.gguf``): the first holds the metadata, each its part of the table."""
    count = f.metadata.get("split.count")
    if not isinstance(count, int) or count <= 1:
        return [f]
    name = _SPLIT.match(p.name)
    if name is None or int(name.group(3)) != count:
        raise ScenarioError(
            "gguf", f"{p.name}: split into {count} files, but the name is not NAME-00001-of-NNNNN.gguf"
        )
    files = [
        f
        if i == int(name.group(2))
        else read_gguf(p.with_name(f"{name.group(1)}-{i:05d}-of-{count:05d}.gguf"))
        for i in range(1, count + 1)
    ]
    if sum(len(x.tensors) for x in files) > MAX_TENSORS:
        raise ScenarioError("gguf", f"{p.name}: more than {MAX_TENSORS:,} tensors in all")
    names = [t.name for x in files for t in x.tensors]
    if len(set(names)) != len(names):
        raise ScenarioError("gguf", f"{p.name}: a tensor appears in two of its files")
    return files


def _records(files: list[GGUFFile]) -> list[Record]:
    from gguf.constants import GGMLQuantizationType

    out: list[Record] = []
    for t in (t for f in files for t in f.tensors):
        kind = GGMLQuantizationType(t.type).name
        out.append((t.name, kind, t.bytes, GGML_DTYPES.get(kind)))
    return out


def import_gguf(path: str | Path) -> dict[str, Any]:
    """A GGUF file -> ``{"model", "precision", "checkpoint", "notes"}`` (io/model_import.py)."""
    from ..core.pipeline.scenario import parse_scenario

    p = Path(path)
    f = read_gguf(p)
    if isinstance(f.metadata.get("split.no"), int) and f.metadata["split.no"] > 0:
        name = _SPLIT.match(p.name)  # a later file of a split GGUF: start from the first
        if name is not None:
            p = p.with_name(f"{name.group(1)}-00001-of-{name.group(3)}.gguf")
            f = read_gguf(p)
    files = _shards(p, f)
    cfg, notes = gguf_config(_merged(files), _SPLIT.sub(r"\1", p.name).removesuffix(".gguf"))
    block = import_hf_config(cfg)
    block["name"] = cfg["_name_or_path"]
    spec = parse_scenario({"model": block}).model
    table = group_table(_records(files), block["layers"])
    ftype = f.metadata.get("general.file_type")
    if ftype in FILE_TYPES:
        weights, rule = FILE_TYPES[ftype]
    else:  # another llama.cpp mix: its matrices' main type, the rest per group
        mats: dict[str, int] = {}
        for g in _MATRICES:
            for d, n in table.whole.get(g, {}).items():
                mats[d] = mats.get(d, 0) + n
        weights, rule = dominant(mats) or "bf16", "uniform"
        notes.append(
            f"file type {excerpt(ftype)} has no rule of its own: {weights} matrices, "
            "the other groups as stored"
        )
    precision, more = follow_headers(
        spec, {"weights": weights, "quantization_rule": rule}, table, quantised=True
    )
    block["checkpoint_precision"] = precision
    report = check(spec, precision, table)
    report.update(
        format="gguf", files=len(files), file_bytes=sum(x.file_bytes for x in files), gguf_version=f.version
    )
    return {"model": block, "precision": precision, "checkpoint": report, "notes": notes + more}
