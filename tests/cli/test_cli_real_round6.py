"""gpusizer-cli on round 6's real runs (tests/core/data/real-configs-round6.json): each refusal
exits 2 with one line naming the field; the runs the new readings accept exit 0 (Unsloth's
``qlora`` GRPO policy on its 4-bit base, Unsloth's DeepSeek-R1 UD-IQ1_S stated with the ggml
i-quant ids). In-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.scenario_file import fitting_run_exits_0, real_configs, refused_config_exits_2

CONFIGS = real_configs("real-configs-round6.json")
REFUSED = sorted(n for n, c in CONFIGS.items() if isinstance(c["expect"], dict))


@pytest.mark.parametrize("name", REFUSED)
def test_refusal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    refused_config_exits_2(tmp_path, capsys, CONFIGS[name])


@pytest.mark.parametrize(
    "name",
    [
        "unsloth-llama31-8b-grpo-qlora-fast-inference",
        "llamacpp-dsr1-ud-iq1s-2xh100",
        "vllm-gptoss-120b-mi355x-mxfp4-fp8-tp8",
        "verl-qwen3-30b-a3b-megatron-lora-cp2",
    ],
)
def test_named_run_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    fitting_run_exits_0(tmp_path, capsys, CONFIGS[name]["scenario"])
