"""``gpusizer-cli plan FILE [--json]``: a JSON list or a table, exit 0; bad input -> one line on
stderr, nothing on stdout, exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main

SCENARIO = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}


def _write(tmp_path: Path, data: Any, name: str = "s.gpusizer.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_plan_json_prints_a_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", _write(tmp_path, SCENARIO), "--json"]) == 0
    out, err = capsys.readouterr()
    options = json.loads(out)
    assert isinstance(options, list) and options and err == ""
    h100 = next(o for o in options if o["gpu"] == "h100-sxm-80gb")
    # one H100 holds it; H100 SXM comes in 8-GPU servers: 8 replicas
    assert h100["min_gpus"] == 1 and h100["gpus"] == 8 and h100["per_gpu_total"] > 0
    assert h100["layout_reason"] and h100["scenario_changes"] == {}
    assert set(h100["parallelism"]) >= {"tensor", "pipeline", "data", "zero_stage"}


def test_plan_text_prints_a_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", _write(tmp_path, SCENARIO)]) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines()[0].startswith("GPU") and "H100 SXM 80GB" in out
    assert "TP 1 x PP 1 x DP 1" in out


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference", "batch": 2}},
        {"model": {"preset": "llama-3.1-8b"}, "parallelism": {"tensor": 3}},
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}, "framework": "vllm"},
    ],
)
def test_bad_file_is_one_line_on_stderr_exit_2(
    tmp_path: Path, content: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", _write(tmp_path, content), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and err.startswith("error:")


def test_missing_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(tmp_path / "nope.gpusizer.json")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1
