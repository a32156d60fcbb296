"""GGUF files for the import tests, written by gguf-py's own ``GGUFWriter`` (llama.cpp's
reference writer): the metadata and tensor table as llama.cpp writes them, the data a sparse
run of zeros (never read), so an 8B model's 4.9 GB file costs no disk. ``raw_gguf`` builds
malformed files byte by byte for the hostile-input tests."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gguf
import numpy as np

T = gguf.GGMLQuantizationType
# (name, dimensions fastest-first as llama.cpp prints them, ggml type)
Tensor = tuple[str, Sequence[int], "gguf.GGMLQuantizationType"]


def _add_kv(w: gguf.GGUFWriter, key: str, value: Any) -> None:
    if isinstance(value, bool):
        w.add_bool(key, value)
    elif isinstance(value, int):
        w.add_uint32(key, value)
    elif isinstance(value, float):
        w.add_float32(key, value)
    elif isinstance(value, str):
        w.add_string(key, value)
    else:
        w.add_array(key, list(value))


def write_gguf(
    path: Path,
    arch: str,
    kv: dict[str, Any],
    tensors: Sequence[Tensor],
    endianess: gguf.GGUFEndian = gguf.GGUFEndian.LITTLE,
    split_max_tensors: int = 0,
) -> Path:
    """A GGUF with these metadata keys and tensors; the data is a sparse zero run. With
    ``split_max_tensors`` the writer splits it as gguf-split does (NAME-00001-of-0000N.gguf);
    the first file's path is returned."""
    w = gguf.GGUFWriter(path, arch, endianess=endianess, split_max_tensors=split_max_tensors)
    for key, value in kv.items():
        _add_kv(w, key, value)
    for name, dims, ttype in tensors:
        block, size = gguf.GGML_QUANT_SIZES[ttype]
        nbytes = int(np.prod(dims)) // block * size
        byte_shape = (*reversed(dims[1:]), dims[0] // block * size)
        w.add_tensor_info(name, byte_shape, np.dtype(np.uint8), nbytes, raw_dtype=ttype)
    files = w.format_shard_names(path)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    w.close()
    for file, shard in zip(files, w.tensors, strict=True):
        total = sum(gguf.GGUFWriter.ggml_pad(ti.nbytes, w.data_alignment) for ti in shard.values())
        with file.open("r+b") as f:
            f.seek(0, 2)
            f.truncate(gguf.GGUFWriter.ggml_pad(f.tell(), w.data_alignment) + total)
    return files[0]


def use_more_bits(i: int, n: int) -> bool:
    """llama.cpp src/llama-quant.cpp: the layers where Q4_K_M keeps attn_v / ffn_down in Q6_K."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def llama_q4_k_m(layers: int, hidden: int, kv: int, ffn: int, vocab: int) -> list[Tensor]:
    """A Llama's tensors as llama-quantize writes Q4_K_M (per-tensor types as llama.cpp logs
    them for Llama 3 8B: llamafile PR #122, ``blk.29.attn_v.weight q6_K``...)."""
    out: list[Tensor] = [("token_embd.weight", (hidden, vocab), T.Q4_K), ("rope_freqs.weight", (64,), T.F32)]
    for i in range(layers):
        more = T.Q6_K if use_more_bits(i, layers) else T.Q4_K
        out += [
            (f"blk.{i}.attn_norm.weight", (hidden,), T.F32),
            (f"blk.{i}.attn_q.weight", (hidden, hidden), T.Q4_K),
            (f"blk.{i}.attn_k.weight", (hidden, kv), T.Q4_K),
            (f"blk.{i}.attn_v.weight", (hidden, kv), more),
            (f"blk.{i}.attn_output.weight", (hidden, hidden), T.Q4_K),
            (f"blk.{i}.ffn_norm.weight", (hidden,), T.F32),
            (f"blk.{i}.ffn_gate.weight", (hidden, ffn), T.Q4_K),
            (f"blk.{i}.ffn_up.weight", (hidden, ffn), T.Q4_K),
            (f"blk.{i}.ffn_down.weight", (ffn, hidden), more),
        ]
    return [*out, ("output_norm.weight", (hidden,), T.F32), ("output.weight", (hidden, vocab), T.Q6_K)]


def raw_gguf(
    *, magic: bytes = b"GGUF", version: int = 3, tensors: int = 0, kvs: int = 0, body: bytes = b""
) -> bytes:
    """The fixed header of a GGUF followed by ``body`` (key-values, tensor infos...)."""
    return magic + struct.pack("<IQQ", version, tensors, kvs) + body


def gguf_string(text: str | bytes) -> bytes:
    raw = text.encode() if isinstance(text, str) else text
    return struct.pack("<Q", len(raw)) + raw


def tensor_info(name: str, dims: Sequence[int], ttype: int, offset: int) -> bytes:
    return (
        gguf_string(name)
        + struct.pack("<I", len(dims))
        + b"".join(struct.pack("<Q", d) for d in dims)
        + struct.pack("<IQ", ttype, offset)
    )


# The tiny llama's metadata: one layer, hidden 256, 4 heads, 2 KV heads, FFN 512, Q8_0 (7)
TINY_KV = {
    "general.name": "Tiny",
    "llama.block_count": 1,
    "llama.embedding_length": 256,
    "llama.attention.head_count": 4,
    "llama.attention.head_count_kv": 2,
    "llama.feed_forward_length": 512,
    "llama.context_length": 4096,
    "general.file_type": 7,
}


def llama_layer(hidden: int, kv: int, ffn: int) -> tuple[tuple[str, tuple[int, int]], ...]:
    """One llama layer's matrices as GGUF stores them (``kv``: K/V heads x head size)."""
    return (
        ("attn_q", (hidden, hidden)),
        ("attn_k", (hidden, kv)),
        ("attn_v", (hidden, kv)),
        ("attn_output", (hidden, hidden)),
        ("ffn_gate", (hidden, ffn)),
        ("ffn_up", (hidden, ffn)),
        ("ffn_down", (ffn, hidden)),
    )


# One layer's matrices of the tiny llama (hidden 256, 4 heads of 64, 2 KV heads, FFN 512)
TINY_LAYER = llama_layer(256, 128, 512)


def tiny_llama_gguf(folder: Path, name: str = "Tiny", **kv_extra: Any) -> Path:
    """A one-layer llama GGUF in Q8_0 (hidden 256, 4 heads, 2 KV heads, FFN 512, vocabulary
    1,000) at ``folder/tiny.gguf``; ``kv_extra`` overrides or adds metadata keys."""
    kv = {**TINY_KV, "general.name": name, **kv_extra}
    tensors = [
        ("token_embd.weight", (256, 1000), T.Q8_0),
        ("output.weight", (256, 1000), T.Q8_0),
        *((f"blk.0.{n}.weight", d, T.Q8_0) for n, d in TINY_LAYER),
    ]
    return write_gguf(folder / "tiny.gguf", "llama", kv, tensors)
