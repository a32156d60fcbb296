"""gpusizer-cli on round 4's real runs (tests/core/data/real-configs-round4.json): each refusal
exits 2 with one line naming the field and the framework's rule; the runs they name exit 0
(torchtitan's MXFP8 on B200 as ``precision.matmuls: "mxfp8"``). In-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.scenario_file import fitting_run_exits_0, real_configs, refused_config_exits_2

CONFIGS = real_configs("real-configs-round4.json")
REFUSED = sorted(n for n, c in CONFIGS.items() if isinstance(c["expect"], dict))


@pytest.mark.parametrize("name", REFUSED)
def test_refusal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    refused_config_exits_2(tmp_path, capsys, CONFIGS[name])


@pytest.mark.parametrize("name", ["torchtitan-mxfp8-b200-matmuls", "mlx-deepseek-v3-2-macs-tensor-stated"])
def test_named_run_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    fitting_run_exits_0(tmp_path, capsys, CONFIGS[name]["scenario"])
