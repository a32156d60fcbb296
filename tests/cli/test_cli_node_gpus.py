"""The node bound at the command line (core/limits.py ``MAX_NODE_GPUS``, 65,536): a file, a
flag or a user-GPU entry with a node of 10^6 GPUs is one line on stderr naming the field and
its top, exit code 2, nothing on stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.test_node_gpus_bound import UNIFIED_GPU, _block, _inline


@pytest.mark.parametrize("command", ["estimate", "plan", "compare"])
@pytest.mark.parametrize(
    ("scenario", "field"),
    [(_inline(10**6), "hardware.gpu.gpus_per_node"), (_block(10**6), "hardware.gpus_per_node")],
    ids=["inline-unified-gpu", "hardware-block"],
)
def test_a_node_of_a_million_gpus_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: dict, field: str, command: str
) -> None:
    refused_in_one_line(tmp_path, capsys, scenario, (field, "65536", "1000000"), command)


def test_the_flag_is_held_to_the_bound(capsys: pytest.CaptureFixture[str]) -> None:
    flags = ["--model", "llama-3.1-8b", "--kind", "inference", "--gpus-per-node"]
    assert main(["estimate", *flags, "1000000"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and "hardware.gpus_per_node" in err and "65536" in err
    assert main(["estimate", *flags, "65536"]) == 0  # the top itself is a node
    capsys.readouterr()


def test_a_user_gpu_with_a_million_gpu_node_is_named_when_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps([{**UNIFIED_GPU, "gpus_per_node": 10**6}]), encoding="utf-8")
    monkeypatch.setenv("GPUSIZER_USER_GPUS", str(path))
    assert main(["estimate", "--model", "llama-3.1-8b", "--kind", "inference", "--gpu", "my-um"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1, err
    assert "'my-um'" in err and "gpus_per_node" in err, err
