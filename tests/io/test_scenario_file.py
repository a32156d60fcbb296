"""Scenario files: saved atomically, loaded back identical, malformed ones refused whole."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from gpusizer import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.io.scenario_file import load_scenario, save_scenario

CUSTOM = {
    "model": {
        "name": "tiny",
        "layers": 4,
        "hidden_size": 256,
        "attention_heads": 8,
        "kv_heads": 2,
        "ffn_hidden_size": 688,
        "vocab_size": 32000,
    },
    "workload": {"kind": "inference"},
    "hardware": {"gpu": {"id": "my-gpu", "name": "My GPU", "memory_bytes": 2**34}},
}


@pytest.mark.parametrize(
    "data",
    [{"model": {"preset": "llama-3.1-8b"}}, CUSTOM, {"model": {"name": "7B", "parameters": 7_000_000_000}}],
)
def test_round_trip(tmp_path: Path, data: dict) -> None:
    scenario = parse_scenario(data)
    path = save_scenario(scenario, tmp_path / "a.gpusizer.json")
    assert load_scenario(path) == scenario
    assert [p.name for p in tmp_path.iterdir()] == ["a.gpusizer.json"]  # no temp file left


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("{", "file"),
        ("[]", "file"),
        ('{"model": {"preset": "x"}}', "model.preset"),
        ('{"model": {"preset": "llama-3.1-8b"}, "extra": 1}', "extra"),
    ],
)
def test_malformed_files_are_refused_whole(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bad.gpusizer.json"
    path.write_text(text)
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.field == field


def test_save_never_leaves_a_half_written_file(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.gpusizer.json"
    save_scenario(parse_scenario({"model": {"preset": "gpt-2"}}), path)
    before = path.read_text()
    real_write = os.write

    def disk_full(fd: int, data: bytes) -> int:  # half the bytes land, then the disk is full
        if len(data) > 8:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", disk_full)
    with pytest.raises(OSError) as err:
        save_scenario(parse_scenario({"model": {"preset": "llama-3.1-8b"}}), path)
    monkeypatch.undo()
    assert err.value.errno == errno.ENOSPC  # the reason reaches the caller
    assert path.read_text() == before
    assert len(list(tmp_path.iterdir())) == 1
