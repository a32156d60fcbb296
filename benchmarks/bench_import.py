"""Speed of importing from disk (run: pytest benchmarks --benchmark-enable).

Targets: a Llama-3.1-8B Q4_K_M GGUF (292 tensors, a 128,256-token list and 280,147 merges in
its header) imports in under 0.5 s; a hostile GGUF (a 10^6-tensor table, an array claiming
2^60 values) is refused in under 10 ms (gguf-py's GGUFReader never returns on the second)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from tests.io.gguf_files import gguf_string, llama_q4_k_m, raw_gguf, tensor_info, write_gguf

from gpusizer import ScenarioError
from gpusizer.io.gguf_reader import read_gguf
from gpusizer.io.model_import import import_model


@pytest.fixture(scope="module")
def llama_gguf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    kv = {
        "general.name": "Meta Llama 3.1 8B Instruct",
        "llama.block_count": 32,
        "llama.context_length": 131072,
        "llama.embedding_length": 4096,
        "llama.feed_forward_length": 14336,
        "llama.attention.head_count": 32,
        "llama.attention.head_count_kv": 8,
        "general.file_type": 15,
        "tokenizer.ggml.tokens": [f"token{i}" for i in range(128256)],
        "tokenizer.ggml.merges": [f"a{i} b{i}" for i in range(280147)],
    }
    path = tmp_path_factory.mktemp("gguf") / "llama-q4_k_m.gguf"
    return write_gguf(path, "llama", kv, llama_q4_k_m(32, 4096, 1024, 14336, 128256))


def test_import_llama_8b_gguf(benchmark, llama_gguf: Path) -> None:
    r = benchmark(import_model, llama_gguf)
    assert r["precision"]["weights"] == "gguf_q4_k_m"


@pytest.mark.parametrize("case", ["million-tensors", "huge-array"])
def test_refuse_hostile_gguf(benchmark, tmp_path: Path, case: str) -> None:
    path = tmp_path / "h.gguf"
    if case == "million-tensors":
        path.write_bytes(raw_gguf(tensors=10**6, body=tensor_info("t", (32,), 0, 0) * 10**6))
    else:
        body = gguf_string("a") + struct.pack("<IIQ", 9, 0, 2**60)
        path.write_bytes(raw_gguf(kvs=1, body=body))

    def refuse() -> None:
        with pytest.raises(ScenarioError):
            read_gguf(path)

    benchmark(refuse)
