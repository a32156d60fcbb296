"""gpusizer-cli: reports, tables and one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main


def _write(tmp_path: Path, data: object, name: str = "s.gpusizer.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def test_estimate_json_is_the_report(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from gpusizer import estimate_report

    scenario = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
    assert main(["estimate", _write(tmp_path, scenario), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == json.loads(json.dumps(estimate_report(scenario)))
    for key in (
        "scenario",
        "parameters",
        "per_gpu",
        "peak_phase",
        "cluster",
        "gpu",
        "fits",
        "headroom_bytes",
        "compute",
    ):
        assert key in out


def test_estimate_table(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["estimate", _write(tmp_path, {"model": {"preset": "llama-3.1-8b"}})]) == 0
    text = capsys.readouterr().out
    assert "GiB" in text and "GB" in text and "optimizer" in text
    assert "does not fit, " in text and " short" in text  # 8B pre-training on one H100 (io/wording.py)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"model": {"preset": "llama-3.1-8b"}, "parallelism": {"tensor": 3}}, "parallelism.tensor"),
        ({"model": {"preset": "nope"}}, "model.preset"),
        ({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "x"}}, "workload.kind"),
        ({"model": {"preset": "llama-3.1-8b"}, "hardware": {"gpu": "h999"}}, "hardware.gpu"),
        ({"model": {"preset": "llama-3.1-8b"}, "precison": {}}, "precison"),
        ("{not json", "file"),
        ([1, 2], "file"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture, data: object, field: str
) -> None:
    assert main(["estimate", _write(tmp_path, data)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and field in lines[0]


def test_usage_errors_are_one_line(capsys: pytest.CaptureFixture) -> None:
    assert main(["frobnicate"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_presets_and_gpus_list(capsys: pytest.CaptureFixture) -> None:
    assert main(["presets"]) == 0
    assert "llama-3.1-405b" in capsys.readouterr().out
    assert main(["gpus"]) == 0
    assert "h100-sxm-80gb" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture) -> None:
    from gpusizer import __version__

    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out


def test_estimate_table_prints_the_serving_block(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # KV tokens, max users, TTFT, TPOT, tokens/s per user and in total
    scenario = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "workload": {"kind": "inference", "batch_size": 16},
        "serving": {"max_context": 16384},
    }
    assert main(["estimate", _write(tmp_path, scenario)]) == 0
    text = capsys.readouterr().out
    for words in (
        "users at 1,280 tokens each",
        "KV tokens",
        "first token",
        "ms per token",
        "tokens/s each",
        "tokens/s in total",
    ):
        assert words in text
    refused = {**scenario, "hardware": {"gpu": "rtx-4090-24gb"}, "serving": {}}
    assert main(["estimate", _write(tmp_path, refused)]) == 0
    text = capsys.readouterr().out
    assert "the engine does not start" in text and "largest context" in text


def test_estimate_table_prints_training_time_and_cost(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    scenario = {
        "model": {"preset": "llama-3.1-8b"},
        "parallelism": {"data": 8},
        "workload": {"kind": "full_finetune", "training_tokens": 1e9},
    }
    assert main(["estimate", _write(tmp_path, scenario)]) == 0
    text = capsys.readouterr().out
    assert "training" in text and "GPU-hours" in text and "$" in text
