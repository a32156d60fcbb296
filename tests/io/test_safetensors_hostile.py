"""Hostile safetensors input: an index may not leave its folder nor
make the error echo another file's bytes; a header of 10^6 tensors is refused, not parsed."""

from __future__ import annotations

import json
import struct
import tracemalloc
from pathlib import Path

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.io import read_safetensors
from gpusizer.io.safetensors_header import MAX_TENSORS

SECRET = b"SECRET-token-1234567890\n"


def _index(folder: Path, shard: str) -> Path:
    index = folder / "model.safetensors.index.json"
    index.write_text(json.dumps({"weight_map": {"w": shard}}))
    return index


@pytest.mark.parametrize(
    "shard",
    [
        "../outside.safetensors",
        "sub/../../outside.safetensors",
        "/etc/passwd",
        "C:\\Windows\\win.ini",
        "",
        ".",
    ],
)
def test_an_index_may_not_leave_its_folder(tmp_path: Path, shard: str) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (tmp_path / "outside.safetensors").write_bytes(SECRET)
    with pytest.raises(ScenarioError, match="outside the index's folder"):
        read_safetensors(_index(folder, shard))


def test_a_shard_in_a_subfolder_is_fine(tmp_path: Path) -> None:
    (tmp_path / "shards").mkdir()
    raw = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
    raw += b" " * (-len(raw) % 8)
    (tmp_path / "shards" / "a.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(8))
    assert read_safetensors(_index(tmp_path, "shards/a.safetensors"))["parameters"] == 2


def test_an_error_never_echoes_the_target_bytes(tmp_path: Path) -> None:
    (tmp_path / "notes.safetensors").write_bytes(SECRET)
    with pytest.raises(ScenarioError) as err:
        read_safetensors(_index(tmp_path, "notes.safetensors"))
    text = str(err.value)
    (as_length,) = struct.unpack("<Q", SECRET[:8])  # the header length it would have read
    assert "SECRET" not in text and str(as_length) not in text
    assert f"{as_length:,}" not in text


def test_a_million_tensors_are_refused_before_parsing(tmp_path: Path) -> None:
    entry = b'"t":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]},'
    raw = b"{" + entry * 10**6 + b'"u":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]}}'
    raw += b" " * (-len(raw) % 8)
    path = tmp_path / "many.safetensors"
    with path.open("wb") as fh:
        fh.write(struct.pack("<Q", len(raw)) + raw)
        fh.write(b"\0\0")
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError, match=f"more than {MAX_TENSORS:,} tensors"):
            read_safetensors(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(raw)  # the header bytes once (parsed, it took 785 MB)


@pytest.mark.parametrize(
    "header", [b"[" * 100_000 + b"]" * 100_000, b'{"w": {"dtype": "F32", "shape": [1' + b"0" * 5000 + b"]}}"]
)
def test_a_header_nested_deep_or_with_a_huge_number_is_refused(tmp_path: Path, header: bytes) -> None:
    header += b" " * (-len(header) % 8)
    path = tmp_path / "odd.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header)
    with pytest.raises(ScenarioError, match="not UTF-8 JSON"):
        read_safetensors(path)
