"""gpusizer-cli on round 5's real runs (tests/core/data/real-configs-round5.json): each refusal
exits 2 with one line naming the field; the runs the engines' own spellings state exit 0
(SGLang's ``--moe-a2a-backend deepep``, vLLM's ``deepep_high_throughput`` and
``--attention-backend FLASH_ATTN``). In-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.scenario_file import refused_naming, run_estimate

DATA = Path(__file__).parents[1] / "core" / "data" / "real-configs-round5.json"
CONFIGS: dict[str, dict[str, Any]] = {c["name"]: c for c in json.loads(DATA.read_text())["configs"]}
REFUSED = sorted(n for n, c in CONFIGS.items() if isinstance(c["expect"], dict))


@pytest.mark.parametrize("name", REFUSED)
def test_refusal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    expect = CONFIGS[name]["expect"]
    got = run_estimate(tmp_path, CONFIGS[name]["scenario"], "--json")
    refused_naming(got, capsys, expect["field"], expect["contains"][0])


@pytest.mark.parametrize(
    "name",
    [
        "sglang-dsv3-dpattn-deepep-h200",
        "vllm-dsv3-dp16-ep-deepep-ht-2xh200",
        "vllm-qwen35-397b-gb200-2x4-flash-attn",
        "slime-qwen3-30b-a3b-8xh100",
    ],
)
def test_named_run_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    got = run_estimate(tmp_path, CONFIGS[name]["scenario"], "--json")
    out, err = capsys.readouterr()
    assert got == 0, err
    assert json.loads(out)["fits"]
