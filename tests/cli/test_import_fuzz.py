"""Fuzzing ``gpusizer-cli import``: a GGUF with bytes overwritten, cut or
counts set huge, and a config.json whose quantization_config holds hostile values, are either
imported (strict JSON out) or refused with exit 2 and one line; no run takes over 2 s of CPU."""

from __future__ import annotations

import json
import struct
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.io.gguf_files import T, llama_layer, write_gguf

from .test_cli_fuzz import VALUES, _run, _strict_json

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KV = {
    "general.name": "fuzz",
    "llama.block_count": 1,
    "llama.embedding_length": 64,
    "llama.attention.head_count": 4,
    "llama.attention.head_count_kv": 2,
    "llama.feed_forward_length": 128,
    "llama.context_length": 512,
    "general.file_type": 1,
    "tokenizer.ggml.tokens": [f"t{i}" for i in range(100)],
}
TENSORS = [
    ("token_embd.weight", (64, 100), T.F16),
    ("output_norm.weight", (64,), T.F32),
    *(
        (f"blk.0.{n}.weight", d, T.F16)
        for n, d in (*llama_layer(64, 32, 128), ("attn_norm", (64,)), ("ffn_norm", (64,)))
    ),
]


def _valid_gguf() -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        return write_gguf(Path(folder) / "v.gguf", "llama", KV, TENSORS).read_bytes()


VALID = _valid_gguf()
HEADER_END = VALID.rindex(b"ffn_norm.weight") + 64  # the metadata and tensor table


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(VALID)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["u64", "u32", "byte", "cut"]))
        at = draw(st.integers(0, HEADER_END))
        if kind == "cut":
            return bytes(data[:at])
        if kind == "byte":
            data[at] = draw(st.integers(0, 255))
        else:
            fmt = "<Q" if kind == "u64" else "<I"
            value = draw(st.sampled_from([0, 1, 3, 2**31, 2**32 - 1, 2**63, 2**64 - 1]))
            if kind == "u32":
                value &= 2**32 - 1
            struct.pack_into(fmt, data, min(at, len(data) - struct.calcsize(fmt)), value)
    return bytes(data)


def _check(args: list[str]) -> None:
    code, out, err, seconds = _run(args)
    assert seconds < 2.0, f"import took {seconds:.1f} s"
    assert code in (0, 2), err
    if code == 2:
        assert out == "" and len(err.splitlines()) == 1 and err.startswith("error: ")
    else:  # imported: stderr holds at most warnings (the tensor table not matching the metadata)
        assert all(line.startswith("warning: ") for line in err.splitlines()), err
        assert _strict_json(out) is not None


@FAST
@given(mutated())
def test_mutated_gguf(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.gguf"
        path.write_bytes(content)
        _check(["import", str(path)])


QUANT_KEYS = [
    "quant_method",
    "bits",
    "group_size",
    "modules_to_not_convert",
    "ignore",
    "load_in_4bit",
    "bnb_4bit_quant_type",
    "config_groups",
    "quant_algo",
    "weight_block_size",
    "lm_head",
]
METHODS = [
    '"gptq"',
    '"awq"',
    '"fp8"',
    '"fbgemm_fp8"',
    '"compressed-tensors"',
    '"modelopt"',
    '"mxfp4"',
    '"bitsandbytes"',
    '"hqq"',
]


@FAST
@given(st.sampled_from(METHODS), st.sampled_from(QUANT_KEYS), st.sampled_from(VALUES))
def test_hostile_quantization_config(method: str, key: str, value: str) -> None:
    cfg: dict[str, Any] = {
        "model_type": "llama",
        "num_hidden_layers": 2,
        "hidden_size": 64,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "vocab_size": 100,
        "quantization_config": {"quant_method": "@M@", key: "@V@"},
    }
    text = json.dumps(cfg).replace('"@M@"', method).replace('"@V@"', value)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_text(text, encoding="utf-8")
        _check(["import", str(path)])
