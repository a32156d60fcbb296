"""``--transformers-version`` and ``--unsloth-version`` (src/gpusizer/cli_flags.py): each reaches
its scenario field and the answer; bad input is one line naming the field, exit code 2
(docs/scenario-format.md, "Command-line scenarios"). Figures: tests/core/test_unsloth_release.py
(gpt-oss-20b r 8: 3,981,312 attention adapters; 92,454,912 with Unsloth 2026.7.2's experts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main

OSS = {
    "framework": "unsloth",
    "model": {"preset": "gpt-oss-20b"},
    "workload": {"kind": "qlora", "lora_rank": 8, "lora_targets": ["q", "k", "v", "o", "gate", "up", "down"]},
}


def _file(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _trainable(capsys: pytest.CaptureFixture, args: list[str]) -> tuple[dict, int]:
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    return out["scenario"]["workload"], out["parameters"]["trainable"]


def test_unsloth_version_reaches_the_adapters(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = _file(tmp_path, OSS)
    w, before = _trainable(capsys, ["estimate", path, "--json"])
    assert "unsloth_version" not in w and before == 3_981_312  # exact: 24 x 8 x 20,736
    w, after = _trainable(capsys, ["estimate", path, "--unsloth-version", "2026.7.2", "--json"])
    assert w["unsloth_version"] == "2026.7.2" and after == 92_454_912  # exact: + 24 x 8 x 460,800


def test_transformers_version_reaches_the_adapters(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Qwen3-30B-A3B under PEFT: from 5 the fused gate_up_proj at 2r (tests/core/
    test_lora_moe_release.py): the count changes."""
    path = _file(tmp_path, {**OSS, "framework": "huggingface", "model": {"preset": "qwen3-30b-a3b"}})
    _, before = _trainable(capsys, ["estimate", path, "--json"])
    w, after = _trainable(capsys, ["estimate", path, "--transformers-version", "5.1.0", "--json"])
    assert w["transformers_version"] == "5.1.0" and after != before


@pytest.mark.parametrize(
    ("flag", "value", "field"),
    [
        ("--unsloth-version", "latest", "workload.unsloth_version"),
        ("--unsloth-version", "7.2", "workload.unsloth_version"),
        ("--transformers-version", "five", "workload.transformers_version"),
    ],
)
def test_bad_release_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture, flag: str, value: str, field: str
) -> None:
    assert main(["estimate", _file(tmp_path, OSS), flag, value]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and field in err and "Traceback" not in err


def test_unsloth_version_off_unsloth_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = _file(tmp_path, {**OSS, "framework": "huggingface"})
    assert main(["estimate", path, "--unsloth-version", "2026.7.2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "workload.unsloth_version" in err and "applies to unsloth" in err
