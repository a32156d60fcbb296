"""Count a checkpoint's parameters from safetensors headers alone, never reading tensor data.

Format (github.com/huggingface/safetensors, README "Format"): 8 bytes little-endian unsigned
N, then N bytes of UTF-8 JSON ``{"__metadata__": {...}, NAME: {"dtype": "BF16", "shape": [...],
"data_offsets": [BEGIN, END]}, ...}``, then the data buffer (offsets are relative to its start).
The reference reader refuses headers over 100 MB. A sharded checkpoint has a
``model.safetensors.index.json`` whose ``weight_map`` names each tensor's shard.

Counts are of elements as stored: packed quantised weights (GPTQ ``qweight`` int32...) count
as their storage elements, and a checkpoint that stores tied weights twice counts them twice.
"""

from __future__ import annotations

import json
import os
import re
import struct
from pathlib import Path, PurePath, PureWindowsPath
from typing import Any

from ..core.errors import ScenarioError, excerpt
from ..core.readfile import MiB, open_regular, read_json

MAX_HEADER_BYTES = 100 * 1024 * 1024  # safetensors' own limit (MAX_HEADER_SIZE)
# Tensors read per file (counted before the header is parsed: 10^6 tensors took 5.9 s and
# 785 MB). DeepSeek-V3's whole checkpoint has about 92,000 (58 MoE layers x 256 experts x 3
# matrices, each with an FP8 scale); a shard of 5 GB (transformers' default) a few thousand.
MAX_TENSORS = 2**17
MAX_INDEX_BYTES = 16 * MiB  # DeepSeek-V3's model.safetensors.index.json is about 9 MB
# Bounds of one tensor's shape, as the GGUF reader has (io/gguf_reader.py): real checkpoints
# hold at most 5 dimensions (Qwen2.5-VL's 3-D convolution) and far fewer than 2^50 elements.
# Unbounded, 100,000 dimensions took 28 s (their product is a big integer), 200,000 took
# 111 s, and the message quoting the product ended in a ValueError.
MAX_DIMS = 16
_DTYPE_NAME = re.compile(r"[A-Za-z0-9_]{1,32}")  # BF16, F8_E4M3...; unknown ones are counted by name
MAX_ELEMENTS = 2**50

# bits per element of the dtypes safetensors defines (F4/F6: sub-byte floats, packed)
DTYPE_BITS = {
    "BOOL": 8,
    "U8": 8,
    "I8": 8,
    "F8_E4M3": 8,
    "F8_E5M2": 8,
    "F8_E8M0": 8,
    "F4": 4,
    "F6_E2M3": 6,
    "F6_E3M2": 6,
    "U16": 16,
    "I16": 16,
    "F16": 16,
    "BF16": 16,
    "U32": 32,
    "I32": 32,
    "F32": 32,
    "U64": 64,
    "I64": 64,
    "F64": 64,
    "C64": 64,
}

Tensor = tuple[str, int, int]  # dtype, elements, bytes


def _bad(path: Path, why: str) -> ScenarioError:
    return ScenarioError("safetensors", f"{path}: {why}")


def _read_header(path: Path) -> tuple[dict[str, Any], int]:
    """The JSON header and the size of the data buffer that follows it. Messages never quote
    the file's bytes: the file may be any file an index pointed at."""
    fh, _ = open_regular(path, "safetensors", 2**62)  # data is never read, only the header
    with fh as f:
        try:
            size = os.fstat(f.fileno()).st_size
            prefix = f.read(8)
            if len(prefix) < 8:
                raise _bad(path, "not a safetensors file (shorter than its 8-byte header length)")
            (length,) = struct.unpack("<Q", prefix)
            if length > MAX_HEADER_BYTES or length + 8 > size:
                raise _bad(
                    path, f"not a safetensors file (its header length does not fit its {size:,} bytes)"
                )
            raw = f.read(length)
        except OSError as exc:
            raise _bad(path, f"cannot read: {exc.strerror or exc}") from None
    if raw.count(b'"data_offsets"') > MAX_TENSORS:
        raise _bad(path, f"more than {MAX_TENSORS:,} tensors in one file; not read")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):  # ValueError: JSON, 4,300+ digits
        raise _bad(path, "not a safetensors file (the header is not UTF-8 JSON)") from None
    if not isinstance(header, dict):
        raise _bad(path, "not a safetensors file (the header is not a JSON object)")
    return header, size - 8 - length


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _tensor(path: Path, name: str, info: Any, data_size: int) -> Tensor:
    """One header entry, checked: dtype, shape and offsets that agree with each other."""
    if not isinstance(info, dict):
        raise _bad(path, f"tensor {excerpt(name)}: entry is not an object")
    dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
    if not isinstance(dtype, str):
        raise _bad(path, f"tensor {excerpt(name)}: dtype missing")
    if not _DTYPE_NAME.fullmatch(dtype):  # a 50 MB dtype went into the import's JSON whole
        raise _bad(path, f"tensor {excerpt(name)}: dtype {excerpt(dtype)} is not a safetensors dtype name")
    if not isinstance(shape, list) or not all(_is_count(d) for d in shape):
        raise _bad(path, f"tensor {excerpt(name)}: shape must be a list of non-negative integers")
    elements = _elements(path, name, shape)
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(map(_is_count, offsets))
        or not offsets[0] <= offsets[1] <= data_size
    ):
        raise _bad(
            path,
            f"tensor {excerpt(name)}: data_offsets must be [begin, end] within the "
            f"{data_size}-byte data buffer",
        )
    nbytes = offsets[1] - offsets[0]
    bits = DTYPE_BITS.get(dtype)
    if bits is not None and (elements * bits + 7) // 8 != nbytes:
        raise _bad(
            path,
            f"tensor {excerpt(name)}: {dtype} {shape} needs "
            f"{(elements * bits + 7) // 8} bytes, its offsets span {nbytes}",
        )
    return dtype, elements, nbytes


def _elements(path: Path, name: str, shape: list[int]) -> int:
    """The product of a shape within :data:`MAX_DIMS` and :data:`MAX_ELEMENTS` (checked as it
    grows, so no product is ever a big integer)."""
    if len(shape) > MAX_DIMS:
        raise _bad(path, f"tensor {excerpt(name)}: {len(shape):,} dimensions; at most {MAX_DIMS} are read")
    if 0 in shape:
        return 0
    elements = 1
    for d in shape:
        elements *= d
        if elements > MAX_ELEMENTS:
            raise _bad(path, f"tensor {excerpt(name)}: over {MAX_ELEMENTS:,} elements; not a real tensor")
    return elements


def _file_tensors(path: Path) -> dict[str, Tensor]:
    header, data_size = _read_header(path)
    meta = header.pop("__metadata__", None)
    if meta is not None and not isinstance(meta, dict):
        raise _bad(path, "__metadata__ must be an object")
    return {name: _tensor(path, name, info, data_size) for name, info in header.items()}


def _index_tensors(path: Path) -> tuple[dict[str, Tensor], list[Path]]:
    """All shards named by a ``model.safetensors.index.json``, each tensor where it is mapped;
    (tensors, the shard files)."""
    index, _ = read_json(path, "safetensors", MAX_INDEX_BYTES)
    weight_map = index.get("weight_map") if isinstance(index, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise _bad(path, "a safetensors index needs a weight_map of tensor name -> shard file")
    tensors: dict[str, Tensor] = {}
    shards = [path.parent / _inside(path, shard) for shard in sorted(set(weight_map.values()))]
    for shard_path in shards:
        if not _exists(shard_path):
            raise _bad(shard_path, f"shard named by {path.name} is missing")
        found = _file_tensors(shard_path)
        twice = sorted(found.keys() & tensors.keys())
        if twice:
            raise _bad(shard_path, f"tensor {excerpt(twice[0])} is also in another shard")
        tensors.update(found)
    lost = [n for n, shard in weight_map.items() if n not in tensors]
    if lost:
        raise _bad(
            path,
            f"weight_map lists {excerpt(lost[0])} ({excerpt(weight_map[lost[0]])}), "
            "which its shard does not hold",
        )
    return tensors, shards


def _inside(index: Path, shard: str) -> str:
    """A shard name must be a file in the index's folder or below (the folder may hold
    symlinks, as the Hugging Face cache does; the name itself may not leave the folder)."""
    if not shard.isprintable():  # a NUL made os.stat raise ValueError; no file name holds one
        raise _bad(index, f"shard name {excerpt(shard)} holds a control character")
    parts = PurePath(shard).parts
    if not parts or PurePath(shard).anchor or PureWindowsPath(shard).anchor or ".." in parts:
        raise _bad(
            index,
            f"shard {excerpt(shard)} is outside the index's folder; only files beside the index are read",
        )
    return shard


def _exists(path: Path) -> bool:
    """Whether there is something at ``path`` (what it is, open_regular checks); a folder
    without search permission says so instead of raising PermissionError."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise _bad(path, f"cannot read: {exc.strerror or exc}") from None
    except ValueError:  # an embedded NUL byte: no such file can exist
        raise _bad(path, "the name holds a NUL byte") from None
    return True


def _resolve(path: Path) -> Path:
    """A folder means its index, or its single ``model.safetensors``."""
    if not _exists(path):
        raise _bad(path, "no such file")
    if not path.is_dir():
        return path
    for name in ("model.safetensors.index.json", "model.safetensors"):
        if _exists(path / name):
            return path / name
    raise _bad(path, "no model.safetensors.index.json or model.safetensors in this folder")


def read_safetensors(path: str | Path) -> dict[str, Any]:
    """Parameters, bytes and dtypes of a ``.safetensors`` file, an index of shards, or a folder.

    Returns ``{"parameters": int, "bytes": int, "by_dtype": {dtype: parameters}, "tensors": int}``;
    only headers are read. Malformed input raises :class:`ScenarioError` naming the file.
    """
    tensors, _ = read_tensor_table(path)
    by_dtype: dict[str, int] = {}
    for dtype, elements, _ in tensors.values():
        by_dtype[dtype] = by_dtype.get(dtype, 0) + elements
    return {
        "parameters": sum(t[1] for t in tensors.values()),
        "bytes": sum(t[2] for t in tensors.values()),
        "by_dtype": dict(sorted(by_dtype.items())),
        "tensors": len(tensors),
    }


def read_tensor_table(path: str | Path) -> tuple[dict[str, Tensor], list[Path]]:
    """Every tensor's (dtype, elements, bytes) of a ``.safetensors`` file, an index of shards
    or a model folder, and the files read (headers only; errors as :func:`read_safetensors`)."""
    file = _resolve(Path(path))
    if file.name.endswith(".json"):
        return _index_tensors(file)
    return _file_tensors(file), [file]
