"""Hostile input, round 3: files and devices, raw text, loose input to the readers.
Each test carries the issue's reproducer."""

from __future__ import annotations

import json
import os
import stat
import struct
import time
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer import ScenarioError, import_hf_config
from gpusizer.core.model import presets
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.readfile import parse_json
from gpusizer.io.atomic import write_atomic
from gpusizer.io.model_import import import_model
from gpusizer.io.quant_config import declared_precision
from gpusizer.io.report import md_text, report_facts, to_markdown
from gpusizer.io.safetensors_header import read_safetensors
from tests.io.gguf_files import tiny_llama_gguf

LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "hidden_size": 256,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 512,
    "vocab_size": 1000,
}


# -- item 5: the atomic writer replaces only regular files --------------------------------------
def test_a_fifo_is_refused_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "chart.png"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as err:
        write_atomic(fifo, b"data")
    assert "FIFO" in str(err.value) and "\n" not in str(err.value)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # was deleted for a regular file, rc 0
    assert [p.name for p in tmp_path.iterdir()] == ["chart.png"]  # no temporary file left


def test_a_link_to_a_device_is_refused_and_the_device_kept(tmp_path: Path) -> None:
    link = tmp_path / "report.md"
    link.symlink_to("/dev/zero")
    with pytest.raises(OSError) as err:
        write_atomic(link, "text")
    assert "device" in str(err.value)
    assert stat.S_ISCHR(os.stat("/dev/zero").st_mode) and link.is_symlink()


def test_dev_null_and_a_link_to_it_are_written_as_streams(tmp_path: Path) -> None:
    """As root ``--output /dev/null`` replaced /dev/null with a regular file."""
    link = tmp_path / "out.svg"
    link.symlink_to("/dev/null")
    assert write_atomic("/dev/null", b"x") == Path("/dev/null")
    write_atomic(link, b"x")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode) and link.is_symlink()


def test_dev_stdout_is_written_to(capfd: pytest.CaptureFixture[str]) -> None:
    write_atomic("/dev/stdout", "to the stream\n")
    assert "to the stream" in capfd.readouterr().out


# -- item 9: text that is no text -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("scenario", "field"),
    [
        ({"name": "a\ud800b"}, "name"),
        ({"model": {"preset": "gpt-2", "name": "x\udcff"}}, "model.name"),  # "\xff" from a shell
        ({"hardware": {"gpu": {"name": "\udfff"}}}, "hardware.gpu.name"),
    ],
)
def test_a_lone_surrogate_is_refused_by_name(scenario: dict[str, Any], field: str) -> None:
    with pytest.raises(ScenarioError) as err:
        gpusizer.estimate_report(scenario)
    assert err.value.field == field and "is not text" in str(err.value)
    str(err.value).encode("utf-8")  # the message itself prints


def test_a_json_file_with_a_lone_surrogate_is_refused() -> None:
    with pytest.raises(ScenarioError) as err:
        parse_json('{"name": "a\\ud800"}', "file", "x.gpusizer.json")
    assert "x.gpusizer.json" in str(err.value) and "\\ud800" in str(err.value)


# -- item 10: names as Markdown -------------------------------------------------------------------
def test_the_markdown_heading_escapes_html_and_markup() -> None:
    name = "<img src=x onerror=alert(1)> *bold* [link](u) a|b snake_case"
    md = to_markdown(report_facts(estimate({"name": name, "model": {"preset": "gpt-2"}})))
    md = md.split("```json")[0]  # the scenario's JSON block is literal text
    heading = md.splitlines()[0]
    assert "<img" not in md and heading.startswith("# GPU Sizer report: &lt;img")
    assert "\\*bold\\*" in heading and "\\[link\\]" in heading and "a\\|b" in heading
    assert "snake_case" in heading
    assert md_text("Llama 3.1 8B") == "Llama 3.1 8B"  # ordinary names unchanged
    assert md_text("a\x1b[2J\nb") == "a\\\\x1b\\[2J\\\\nb"
    fence = "```"
    md = to_markdown(report_facts(estimate({"name": f"x{fence}\n# owned", "model": {"preset": "gpt-2"}})))
    assert "\n# owned" not in md and "````json" in md  # the name cannot close the JSON block


# -- item 11: loose input to the readers ----------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value"),
    [("llama.block_count", True), ("llama.attention.head_count_kv", 2.0), ("llama.embedding_length", "256")],
)
def test_gguf_metadata_of_the_wrong_type_is_refused(tmp_path: Path, key: str, value: Any) -> None:
    """A bool block_count became 1 layer; a float head_count_kv was passed over and the size
    gap then "explained" by an invented storage type."""
    with pytest.raises(ScenarioError) as err:
        import_model(tiny_llama_gguf(tmp_path, **{key: value}))
    assert key in str(err.value) and "must be an integer" in str(err.value)


def test_a_gguf_that_is_no_gguf_says_so(tmp_path: Path) -> None:
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"\x00" * 64)
    with pytest.raises(ScenarioError) as err:
        import_model(fake)
    assert "not a GGUF file" in str(err.value) and "NUL" not in str(err.value)


@pytest.mark.parametrize(
    ("q", "words"),
    [
        ({"quant_method": "gptq", "bits": 0}, "bits"),
        ({"quant_method": "gptq", "bits": -4}, "bits"),
        ({"quant_method": "gptq", "bits": 10**9}, "bits"),
        ({"quant_method": "gptq", "group_size": 2**62}, "group_size"),
        ({"quant_method": "gptq", "group_size": -2}, "group_size"),
        ({"quant_method": "fp8", "weight_block_size": [0, 0]}, "weight_block_size"),
        ({"quant_method": "bitsandbytes", "load_in_4bit": False, "load_in_8bit": False}, "load_in_4bit"),
        ({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf5"}, "nf4 or fp4"),
    ],
)
def test_quantization_config_out_of_bounds_is_refused(q: dict[str, Any], words: str) -> None:
    with pytest.raises(ScenarioError) as err:
        declared_precision({"quantization_config": q}, 2, False)
    assert words in str(err.value)


def test_gptq_per_column_group_is_read_and_said() -> None:
    """transformers GPTQConfig: group_size -1 "uses per-column quantization" (real releases)."""
    out = declared_precision({"quantization_config": {"quant_method": "gptq", "group_size": -1}}, 2, False)
    assert out.precision["weights"] == "gptq_int4" and any("-1" in n for n in out.notes)


def test_a_list_model_type_and_a_string_dropout_are_refused() -> None:
    with pytest.raises(ScenarioError) as err:
        import_hf_config({**LLAMA, "model_type": ["llama"]})
    assert "model_type must be a string" in str(err.value)  # was family "['llama']"
    with pytest.raises(ScenarioError) as err:
        import_hf_config({**LLAMA, "resid_pdrop": "0.1"})
    assert "resid_pdrop must be a number" in str(err.value)


def _safetensors(path: Path, header: dict[str, Any], data: bytes = b"") -> Path:
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + data)
    return path


def test_a_huge_dtype_name_is_not_echoed(tmp_path: Path) -> None:
    entry = {"dtype": "X" * 5_000_000, "shape": [1], "data_offsets": [0, 2]}
    f = _safetensors(tmp_path / "m.safetensors", {"w": entry}, b"\0\0")
    with pytest.raises(ScenarioError) as err:
        read_safetensors(f)
    assert "not a safetensors dtype" in str(err.value) and len(str(err.value)) < 500


def test_huge_shapes_are_refused_at_once(tmp_path: Path) -> None:
    """100,000 dimensions took 28 s (the product a big integer), then a ValueError."""
    for shape in ([7] * 200_000, [2**40, 2**40], [10**4000]):
        entry = {"dtype": "BF16", "shape": shape, "data_offsets": [0, 2]}
        f = _safetensors(tmp_path / "m.safetensors", {"w": entry}, b"\0\0")
        start = time.perf_counter()
        with pytest.raises(ScenarioError) as err:
            read_safetensors(f)
        assert time.perf_counter() - start < 5  # generous: it is milliseconds
        assert "dimensions" in str(err.value) or "elements" in str(err.value) or "digits" in str(err.value)


def test_many_bad_user_gpus_make_one_short_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """340,000 bad entries printed an 11 MB warning line."""
    path = tmp_path / "user-gpus.json"
    path.write_text("[" + ",".join(['{"id": "g", "tdp_watts": "x"}'] * 3000 + ["0"] * 300_000) + "]")
    monkeypatch.setenv(presets.USER_GPUS_ENV, str(path))
    lines = presets.user_gpu_problems()
    assert len(lines) == 1 and len(lines[0]) < 600
    assert "skipped 303,000 entries" in lines[0] and "more" in lines[0]
