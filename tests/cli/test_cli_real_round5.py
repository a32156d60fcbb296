"""gpusizer-cli on round 5's real runs (tests/core/data/real-configs-round5.json): each refusal
exits 2 with one line naming the field; the runs the engines' own spellings state exit 0
(SGLang's ``--moe-a2a-backend deepep``, vLLM's ``deepep_high_throughput`` and
``--attention-backend FLASH_ATTN``). In-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.scenario_file import fitting_run_exits_0, real_configs, refused_config_exits_2

CONFIGS = real_configs("real-configs-round5.json")
REFUSED = sorted(n for n, c in CONFIGS.items() if isinstance(c["expect"], dict))


@pytest.mark.parametrize("name", REFUSED)
def test_refusal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    refused_config_exits_2(tmp_path, capsys, CONFIGS[name])


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
    fitting_run_exits_0(tmp_path, capsys, CONFIGS[name]["scenario"])
