"""Fuzzing gpusizer-cli in-process: for generated bad scenario files, every refused
input is exit 2 and exactly one line on stderr, nothing on stdout; every accepted one is strict
JSON on stdout; no run takes over 2 s. Small models only, so that a mutation that stays valid
plans quickly; the example count keeps the test to a few seconds in CI."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusizer.cli import main

BASES: list[dict[str, Any]] = [
    {"model": {"preset": "gpt-2"}, "workload": {"kind": "pretraining"}},
    {"model": {"preset": "llama-3.2-1b"}, "workload": {"kind": "inference"}},
    {
        "model": {"preset": "qwen2.5-0.5b"},
        "workload": {"kind": "lora"},
        "parallelism": {"data": 2, "zero_stage": 2},
    },
    {
        "model": {
            "name": "tiny",
            "layers": 4,
            "hidden_size": 256,
            "attention_heads": 8,
            "kv_heads": 2,
            "ffn_hidden_size": 688,
            "vocab_size": 32000,
        },
        "hardware": {"gpu": {"id": "my-gpu", "memory_bytes": 2**34, "dense_tflops": {"bf16": 100.0}}},
    },
]
FIELDS = [
    ("model", "layers"),
    ("model", "hidden_size"),
    ("model", "attention_heads"),
    ("model", "name"),
    ("model", "tied_embeddings"),
    ("model", "sliding_window"),
    ("workload", "sequence_length"),
    ("workload", "micro_batch_size"),
    ("workload", "batch_size"),
    ("workload", "training_tokens"),
    ("workload", "lora_targets"),
    ("workload", "kind"),
    ("parallelism", "tensor"),
    ("parallelism", "pipeline"),
    ("parallelism", "zero_stage"),
    ("precision", "weights"),
    ("hardware", "gpu"),
    ("hardware", "gpus_per_node"),
    ("compute", "mfu"),
    ("compute", "bandwidth_efficiency"),
    ("", "name"),
]
# JSON text of hostile values: wrong types, limits, non-finite numbers, huge values
VALUES = [
    "true",
    "false",
    "null",
    '"4096"',
    '""',
    '"' + "x" * 5000 + '"',
    "-1",
    "0",
    "0.5",
    "4096.0",
    str(2**31),
    str(2**64),
    "1" + "0" * 400,
    "1" + "0" * 5000,
    "1e308",
    "1e999",
    "NaN",
    "Infinity",
    "-Infinity",
    "[1, 2]",
    "[]",
    "{}",
    '{"a": 1}',
    "[" * 5000 + "]" * 5000,
    json.dumps(list(range(3000))),
    '"h100-sxm-80gb"',
    "100000",
    str(2**26),
    "65536",
    "1e-300",
    "5e-324",
    '{"id": "g", "dense_tflops": {"bf16": -5}}',
    '{"id": "g", "dense_tflops": {"bf16": 1e-300}, "hbm_bandwidth_gb_per_s": 1e-300}',
]


def _with_value(base: dict[str, Any], block: str, key: str, value: str) -> str:
    """The base scenario's JSON with ``block.key`` (or top-level ``key``) set to raw text."""
    data = json.loads(json.dumps(base))
    target = data.setdefault(block, {}) if block else data
    target[key] = "@@VALUE@@"
    return json.dumps(data).replace('"@@VALUE@@"', value)


@st.composite
def bad_files(draw: st.DrawFn) -> bytes:
    base = draw(st.sampled_from(BASES))
    text = json.dumps(base)
    kind = draw(
        st.sampled_from(["value", "value", "value", "encoding", "syntax", "twice", "unknown", "binary"])
    )
    if kind == "value":
        block, key = draw(st.sampled_from(FIELDS))
        text = _with_value(base, block, key, draw(st.sampled_from(VALUES)))
    elif kind == "encoding":
        enc = draw(st.sampled_from(["utf-16", "utf-16-le", "utf-32", "latin-1", "utf-8-sig"]))
        return text.replace("gpt-2", "gpt-2é").encode(enc)
    elif kind == "syntax":
        return text[: draw(st.integers(0, len(text) - 1))].encode()
    elif kind == "twice":
        text = text.replace('{"preset"', '{"preset": "gpt-2", "preset"', 1)
        text = text.replace('{"name"', '{"name": "a", "name"', 1)
    elif kind == "unknown":
        text = text[:-1] + ', "' + draw(st.text(min_size=1, max_size=200)) + '": 1}'
    else:
        return draw(st.binary(max_size=200))
    return text.encode("utf-8", "surrogatepass")


def _run(args: list[str]) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, seconds): CPU seconds of this process, so that other jobs
    on a shared CI machine do not count (the slowest valid mutation, 65,536 layers, plans in
    about 0.8 s; nothing here waits on I/O)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue(), time.process_time() - start


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in --json output")

    return json.loads(text, parse_constant=refuse)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bad_files())
def test_refused_is_one_line_accepted_is_strict_json(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.gpusizer.json"
        path.write_bytes(content)
        for command in ("estimate", "plan"):
            code, out, err, seconds = _run([command, str(path), "--json"])
            assert seconds < 2.0, f"{command} took {seconds:.1f} s"
            assert code in (0, 2), err
            if code == 2:
                assert out == "" and len(err.splitlines()) == 1 and err.startswith("error: ")
            else:
                assert err == "" and _strict_json(out) is not None
