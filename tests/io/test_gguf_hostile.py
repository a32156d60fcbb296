"""Hostile GGUF files (the rules for safetensors headers): each is refused with one
line naming the file, within bounded memory, never a hang. gguf-py's own GGUFReader loops
forever on the array-count file below (each element read past the end is empty and its offset
does not move) and opens a FIFO with a blocking open; the reader here refuses both."""

from __future__ import annotations

import os
import struct
import tracemalloc
from pathlib import Path

import pytest

from gpusizer import ScenarioError
from gpusizer.cli import main
from gpusizer.io.gguf_reader import MAX_HEADER_BYTES, MAX_STRINGS, MAX_TENSORS, read_gguf

from .gguf_files import T, gguf_string, raw_gguf, tensor_info, write_gguf

U8, STRING, ARRAY = 0, 8, 9


def _kv(key: str | bytes, vtype: int, payload: bytes) -> bytes:
    return gguf_string(key) + struct.pack("<I", vtype) + payload


def _array(etype: int, count: int, payload: bytes = b"") -> bytes:
    return struct.pack("<IQ", etype, count) + payload


def _valid(tmp_path: Path) -> Path:
    kv = {"general.name": "v", "llama.block_count": 1, "llama.embedding_length": 256}
    return write_gguf(
        tmp_path / "valid.gguf",
        "llama",
        kv,
        [("token_embd.weight", (256, 64), T.F16), ("output.weight", (256, 64), T.Q8_0)],
    )


HOSTILE = {
    "empty": (b"", "not a GGUF file"),
    "wrong magic": (raw_gguf(magic=b"GGML"), "not a GGUF file"),
    "version 1": (raw_gguf(version=1), "version 1"),
    "2^63 tensors": (raw_gguf(tensors=2**63), "at most"),
    "2^40 keys": (raw_gguf(kvs=2**40), "at most"),
    "2^60 u8 array": (raw_gguf(kvs=1, body=_kv("a", ARRAY, _array(U8, 2**60))), "truncated"),
    "2^40 strings": (raw_gguf(kvs=1, body=_kv("a", ARRAY, _array(STRING, 2**40))), "strings"),
    "string of 2^62 bytes": (raw_gguf(kvs=1, body=_kv("a", STRING, struct.pack("<Q", 2**62))), "truncated"),
    "unknown value type": (raw_gguf(kvs=1, body=_kv("a", 99, b"")), "unknown metadata"),
    "nested array": (raw_gguf(kvs=1, body=_kv("a", ARRAY, _array(ARRAY, 1))), "unknown array"),
    "key twice": (raw_gguf(kvs=2, body=_kv("a", U8, b"\x01") * 2), "given twice"),
    "key not UTF-8": (raw_gguf(kvs=1, body=_kv(b"\xff\xfe", U8, b"\x01")), "UTF-8"),
    "bad alignment": (
        raw_gguf(kvs=1, body=_kv("general.alignment", 4, struct.pack("<I", 3))),
        "power of two",
    ),
    "5 dimensions": (raw_gguf(tensors=1, body=tensor_info("t", (1,) * 5, 0, 0)), "dimensions"),
    "unknown ggml type": (
        raw_gguf(tensors=1, body=tensor_info("t", (32,), 999, 0) + b"\0" * 64),
        "unknown ggml type",
    ),
    "partial block": (
        raw_gguf(tensors=1, body=tensor_info("t", (33,), int(T.Q8_0), 0) + b"\0" * 64),
        "does not fit type",
    ),
    "data past the end": (raw_gguf(tensors=1, body=tensor_info("t", (1024,), 0, 0)), "does not lie inside"),
    "misaligned": (
        raw_gguf(tensors=1, body=tensor_info("t", (4,), 0, 3) + b"\0" * 64),
        "does not lie inside",
    ),
    "overlap": (
        raw_gguf(tensors=2, body=tensor_info("a", (8,), 0, 0) + tensor_info("b", (8,), 0, 0) + b"\0" * 64),
        "overlap",
    ),
    "name twice": (
        raw_gguf(tensors=2, body=tensor_info("a", (8,), 0, 0) + tensor_info("a", (8,), 0, 32) + b"\0" * 128),
        "twice",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_refused_with_one_line(tmp_path: Path, name: str):
    data, message = HOSTILE[name]
    path = tmp_path / "m.gguf"
    path.write_bytes(data)
    with pytest.raises(ScenarioError, match=message) as err:
        read_gguf(path)
    text = str(err.value)
    assert "\n" not in text and "m.gguf" in text and len(text) <= 400


def test_truncated_anywhere(tmp_path: Path):
    data = _valid(tmp_path).read_bytes()
    for cut in (3, 20, 60, len(data) // 2, len(data) - 1):
        path = tmp_path / f"cut{cut}.gguf"
        path.write_bytes(data[:cut])
        with pytest.raises(ScenarioError, match=r"not a GGUF|truncated|inside the file"):
            read_gguf(path)


def test_a_million_tensor_table_is_refused_before_it_is_read(tmp_path: Path):
    # a 10^6-tensor safetensors header took 5.9 s and 785 MB; here the count is
    # refused first, and the memory used stays a few KB
    one = tensor_info("blk.0.x.weight", (32,), 0, 0)
    path = tmp_path / "many.gguf"
    path.write_bytes(raw_gguf(tensors=10**6, body=one * 10**6))
    tracemalloc.start()
    with pytest.raises(ScenarioError, match=f"at most {MAX_TENSORS:,}"):
        read_gguf(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * 2**20


def test_memory_stays_within_the_header_limit(tmp_path: Path):
    # a tokenizer-sized string list (Llama 3: 128,256 tokens, 280,147 merges): stepped over,
    # never kept; what is held is the header read so far, at most MAX_HEADER_BYTES
    n = 400_000
    strings = _array(STRING, n, (struct.pack("<Q", 6) + b"token!") * n)
    path = tmp_path / "tokens.gguf"
    path.write_bytes(raw_gguf(kvs=1, body=_kv("tokenizer.ggml.tokens", ARRAY, strings)))
    tracemalloc.start()
    f = read_gguf(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert f.metadata["tokenizer.ggml.tokens"].count == n
    assert peak < 2 * path.stat().st_size + 2**20 < MAX_HEADER_BYTES


def test_more_strings_than_a_vocabulary_are_refused(tmp_path: Path):
    body = _kv("a", ARRAY, _array(STRING, MAX_STRINGS + 1, b"\0" * 8 * (MAX_STRINGS + 1)))
    path = tmp_path / "m.gguf"
    path.write_bytes(raw_gguf(kvs=1, body=body))
    with pytest.raises(ScenarioError, match="strings"):
        read_gguf(path)


def test_a_header_over_the_limit_is_refused(tmp_path: Path):
    big = MAX_HEADER_BYTES + 1
    path = tmp_path / "big.gguf"
    path.write_bytes(raw_gguf(kvs=1, body=_kv("x", STRING, struct.pack("<Q", big))))
    with path.open("r+b") as f:
        f.truncate(big + 64)
    with pytest.raises(ScenarioError, match="MiB; not read"):
        read_gguf(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused(tmp_path: Path):
    fifo = tmp_path / "m.gguf"
    os.mkfifo(fifo)
    with pytest.raises(ScenarioError, match="not a regular file"):
        read_gguf(fifo)


def test_cli_exit_2_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "bad.gguf"
    path.write_bytes(raw_gguf(tensors=2**63))
    assert main(["import", str(path)]) == 2
    err = capsys.readouterr()
    assert err.out == "" and err.err.count("\n") == 1 and "bad.gguf" in err.err
