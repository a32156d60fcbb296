"""``gpusizer-cli compare FILE``: the comparison as a table or JSON, in-process; bad input is
one line on stderr, nothing on stdout, exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main

SERVE = {
    "model": {"preset": "qwen3-32b"},
    "workload": {"kind": "inference", "prompt_tokens": 32768, "generated_tokens": 1024},
}
TRAIN = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora", "training_tokens": 1e8}}


def _write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["compare", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_table_has_one_row_per_gpu_and_the_serving_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpusizer.core.model.presets import gpu_presets

    code, out, err = _run(capsys, _write(tmp_path, SERVE))
    lines = out.splitlines()
    assert code == 0 and err == ""
    for head in ("GPU", "GPUs", "Layout", "TTFT", "TPOT", "Tok/s/user", "$/M tok", "kW"):
        assert head in lines[0]
    assert "Time" not in lines[0].split()
    rows = [line for line in lines[2:] if line[:3].strip().isdigit()]
    assert len(rows) == len(gpu_presets())
    assert any(" * " in row or row.rstrip().endswith("*") for row in rows)  # Pareto marks
    assert "Pareto front" in out


def test_json_is_compare_gpus_and_filters_apply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        _write(tmp_path, SERVE),
        "--json",
        "--vendor",
        "amd",
        "--category",
        "datacenter",
        "--min-memory",
        "100",
        "--sort",
        "speed",
    )
    options = json.loads(out)
    assert code == 0 and {o["vendor"] for o in options} == {"AMD"}
    assert {o["gpu"] for o in options} == {"mi300x-192gb", "mi325x-256gb", "mi350x-288gb", "mi355x-288gb"}
    pace = [o["tokens_per_second_per_user"] for o in options]
    assert pace == sorted(pace, reverse=True)


def test_margin_whole_nodes_and_gpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, SERVE)
    _, out, _ = _run(capsys, path, "--json", "--gpus", "b200-192gb", "--whole-nodes")
    (b200,) = json.loads(out)
    assert b200["gpus"] == 8 and b200["nodes"] == 1
    _, out, _ = _run(capsys, path, "--json", "--gpus", "rtx-4090-24gb", "--margin", "0.3")
    (card,) = json.loads(out)
    assert card["headroom_bytes"] >= 0.3 * card["capacity_bytes"]


def test_training_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        _write(tmp_path, TRAIN),
        "--gpus",
        "h100-sxm-80gb",
        "a100-sxm-80gb",
        "--basis",
        "owned",
        "--electricity",
        "0.2",
    )
    head = out.splitlines()[0]
    assert code == 0 and "Time" in head and "$ to train" in head and "TTFT" not in head
    assert "Cost basis: owning" in out


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--gpus", "no-such-gpu"], "gpus"),
        (["--vendor", "Nvidea"], "vendor"),
        (["--margin", "1.5"], "margin"),
        (["--electricity", "-1"], "electricity"),
        (["--sort", "price"], "invalid choice"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], field: str
) -> None:
    code, out, err = _run(capsys, _write(tmp_path, SERVE), *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("error:") and field in err


def test_unknown_category_is_one_line_naming_the_classes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--category has no argparse choices (they would import the estimator at start-up):
    select_gpus refuses an unknown class, and the line names every allowed one."""
    from gpusizer.core.sizing.compare import CATEGORIES

    code, out, err = _run(capsys, _write(tmp_path, SERVE), "--category", "gaming")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert err.startswith("error: category:") and "'gaming'" in err
    assert all(c in err for c in CATEGORIES)


def test_bad_file_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, _write(tmp_path, {**SERVE, "targets": {"users": 0}}))
    assert code == 2 and out == "" and "targets.users" in err
