"""Reading safetensors headers: counts from the JSON header only, malformed files refused.

Files are written here with struct + json in the layout of the safetensors README ("Format"):
u64 little-endian header length, JSON header (padded with spaces to 8 bytes), data buffer.
The data buffer is made with truncate(), so it is a sparse file of zeros that is never read.
"""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.io import read_safetensors

BYTES = {"BF16": 2, "F16": 2, "F32": 4, "I32": 4, "U8": 1, "F8_E4M3": 1, "I64": 8}


def header_for(tensors: dict[str, tuple[str, list[int]]]) -> tuple[dict[str, Any], int]:
    header: dict[str, Any] = {}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        size = math.prod(shape) * BYTES[dtype]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    return header, offset


def write_raw(path: Path, header: Any, data_bytes: int) -> Path:
    raw = json.dumps(header).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    with path.open("wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        f.truncate(8 + len(raw) + data_bytes)
    return path


def write_st(path: Path, tensors: dict[str, tuple[str, list[int]]], **meta: str) -> Path:
    header, size = header_for(tensors)
    header["__metadata__"] = {"format": "pt", **meta}
    return write_raw(path, header, size)


def test_single_file_counts(tmp_path: Path):
    path = write_st(
        tmp_path / "model.safetensors",
        {
            "model.embed_tokens.weight": ("BF16", [10, 4]),
            "model.norm.weight": ("F32", [4]),
            "lm_head.weight": ("BF16", [10, 4]),
        },
    )
    assert read_safetensors(path) == {
        "parameters": 84,
        "bytes": 40 * 2 * 2 + 4 * 4,
        "by_dtype": {"BF16": 80, "F32": 4},
        "tensors": 3,
    }
    assert read_safetensors(str(path)) == read_safetensors(tmp_path)  # str path, folder


def test_header_only_is_read(tmp_path: Path):
    # An 8 GiB tensor: the (sparse) file is never read past its header, so this is instant.
    path = write_st(tmp_path / "big.safetensors", {"w": ("BF16", [2**16, 2**16])})
    result = read_safetensors(path)
    assert result["parameters"] == 2**32 and result["bytes"] == 2**33


def test_scalar_and_empty_tensors(tmp_path: Path):
    path = write_st(tmp_path / "m.safetensors", {"step": ("I64", []), "empty": ("F32", [0, 3])})
    assert read_safetensors(path)["parameters"] == 1
    assert read_safetensors(path)["tensors"] == 2


def test_unknown_dtype_takes_its_bytes_from_the_offsets(tmp_path: Path):
    header = {"q": {"dtype": "X7", "shape": [3], "data_offsets": [0, 5]}}
    result = read_safetensors(write_raw(tmp_path / "m.safetensors", header, 5))
    assert result == {"parameters": 3, "bytes": 5, "by_dtype": {"X7": 3}, "tensors": 1}


def write_sharded(folder: Path) -> Path:
    shards = {
        "model-00001-of-00002.safetensors": {"a.weight": ("BF16", [8, 8]), "a.bias": ("F32", [8])},
        "model-00002-of-00002.safetensors": {"b.weight": ("F8_E4M3", [16, 8])},
    }
    weight_map = {}
    for shard, tensors in shards.items():
        write_st(folder / shard, tensors)
        weight_map.update(dict.fromkeys(tensors, shard))
    index = folder / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": 288}, "weight_map": weight_map}))
    return index


def test_sharded_checkpoint_through_its_index(tmp_path: Path):
    index = write_sharded(tmp_path)
    expected = {
        "parameters": 64 + 8 + 128,
        "bytes": 128 + 32 + 128,
        "by_dtype": {"BF16": 64, "F32": 8, "F8_E4M3": 128},
        "tensors": 3,
    }
    assert read_safetensors(index) == expected
    assert read_safetensors(tmp_path) == expected  # the folder finds the index


def test_index_with_a_missing_shard_is_refused(tmp_path: Path):
    index = write_sharded(tmp_path)
    (tmp_path / "model-00002-of-00002.safetensors").unlink()
    with pytest.raises(ScenarioError, match=r"model-00002-of-00002\.safetensors.*missing"):
        read_safetensors(index)


def test_index_naming_a_tensor_its_shard_lacks_is_refused(tmp_path: Path):
    index = write_sharded(tmp_path)
    data = json.loads(index.read_text())
    data["weight_map"]["c.weight"] = "model-00001-of-00002.safetensors"
    index.write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match=r"'c\.weight'"):
        read_safetensors(index)


def test_tensor_in_two_shards_is_refused(tmp_path: Path):
    write_st(tmp_path / "s1.safetensors", {"w": ("F32", [2])})
    write_st(tmp_path / "s2.safetensors", {"w": ("F32", [2])})
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(json.dumps({"weight_map": {"w": "s1.safetensors", "x": "s2.safetensors"}}))
    with pytest.raises(ScenarioError, match="also in another shard"):
        read_safetensors(index)


@pytest.mark.parametrize(
    "content",
    ["not json", "[1, 2]", json.dumps({"metadata": {}}), json.dumps({"weight_map": {"w": 3}})],
)
def test_malformed_index_is_refused(tmp_path: Path, content: str):
    index = tmp_path / "model.safetensors.index.json"
    index.write_text(content)
    with pytest.raises(ScenarioError, match=r"model\.safetensors\.index\.json") as err:
        read_safetensors(index)
    assert err.value.field == "safetensors"


def _bad_headers() -> list[tuple[str, Any, str]]:
    ok = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
    return [
        ("list header", [1, 2], "not a JSON object"),
        ("entry not object", {"w": 3}, "entry is not an object"),
        ("no dtype", {"w": {**ok, "dtype": None}}, "dtype missing"),
        ("bad shape", {"w": {**ok, "shape": [2, -1]}}, "shape"),
        ("bool shape", {"w": {**ok, "shape": [True]}}, "shape"),
        ("offsets past data", {"w": {**ok, "data_offsets": [0, 16]}}, "data_offsets"),
        ("offsets reversed", {"w": {**ok, "data_offsets": [8, 0]}}, "data_offsets"),
        ("size mismatch", {"w": {**ok, "shape": [3]}}, "needs 12 bytes"),
        ("bad metadata", {"__metadata__": [1], "w": ok}, "__metadata__"),
    ]


@pytest.mark.parametrize(("case", "header", "message"), _bad_headers(), ids=lambda c: str(c))
def test_malformed_header_is_refused(tmp_path: Path, case: str, header: Any, message: str):
    path = write_raw(tmp_path / "bad.safetensors", header, 8)
    with pytest.raises(ScenarioError, match=message) as err:
        read_safetensors(path)
    assert err.value.field == "safetensors"
    assert "bad.safetensors" in str(err.value), case


def test_truncated_and_foreign_files_are_refused(tmp_path: Path):
    short = tmp_path / "short.safetensors"
    short.write_bytes(b"\x01\x02\x03")
    with pytest.raises(ScenarioError, match=r"short\.safetensors.*8-byte"):
        read_safetensors(short)
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes(struct.pack("<Q", 10**6) + b"{}")  # header longer than the file
    with pytest.raises(ScenarioError, match=r"huge\.safetensors.*header length"):
        read_safetensors(huge)
    binary = tmp_path / "model.bin.safetensors"
    binary.write_bytes(struct.pack("<Q", 4) + b"\xff\xfe\x00\x01")
    with pytest.raises(ScenarioError, match="not UTF-8 JSON"):
        read_safetensors(binary)


def test_missing_file_and_empty_folder(tmp_path: Path):
    with pytest.raises(ScenarioError, match=r"nope\.safetensors"):
        read_safetensors(tmp_path / "nope.safetensors")
    with pytest.raises(ScenarioError, match=r"no model\.safetensors"):
        read_safetensors(tmp_path)
