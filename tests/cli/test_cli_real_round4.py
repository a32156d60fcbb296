"""gpusizer-cli on round 4's real runs (tests/core/data/real-configs-round4.json): each refusal
exits 2 with one line naming the field and the framework's rule; the runs they name exit 0
(torchtitan's MXFP8 on B200 as ``precision.matmuls: "mxfp8"``). In-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.scenario_file import refused_naming, run_estimate

DATA = Path(__file__).parents[1] / "core" / "data" / "real-configs-round4.json"
CONFIGS: dict[str, dict[str, Any]] = {c["name"]: c for c in json.loads(DATA.read_text())["configs"]}
REFUSED = sorted(n for n, c in CONFIGS.items() if isinstance(c["expect"], dict))


@pytest.mark.parametrize("name", REFUSED)
def test_refusal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    expect = CONFIGS[name]["expect"]
    got = run_estimate(tmp_path, CONFIGS[name]["scenario"], "--json")
    refused_naming(got, capsys, expect["field"], expect["contains"][0])


@pytest.mark.parametrize("name", ["torchtitan-mxfp8-b200-matmuls", "mlx-deepseek-v3-2-macs-tensor-stated"])
def test_named_run_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    got = run_estimate(tmp_path, CONFIGS[name]["scenario"], "--json")
    out, err = capsys.readouterr()
    assert got == 0, err
    assert json.loads(out)["fits"]
