"""gpusizer-cli on the real runs of rounds 5 to 7 (tests/core/data/real-configs-round5.json,
-round6.json and -round7.json): each refusal exits 2 with one line naming the field; the runs each
round's readings accept exit 0 (round 5: SGLang's ``--moe-a2a-backend deepep``, vLLM's
``deepep_high_throughput`` and ``--attention-backend FLASH_ATTN``; round 6: Unsloth's ``qlora``
GRPO policy on its 4-bit base, Unsloth's DeepSeek-R1 UD-IQ1_S stated with the ggml i-quant ids;
round 7: vLLM's and SGLang's ``--cpu-offload-gb`` as ``serving.cpu_offload_gib``, DeepSpeed
ZeRO++'s three settings). In-process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.scenario_file import fitting_run_exits_0, real_configs, refused_config_exits_2

ROUNDS = {
    f: real_configs(f)
    for f in ("real-configs-round5.json", "real-configs-round6.json", "real-configs-round7.json")
}
REFUSED = [(f, n) for f, cs in ROUNDS.items() for n, c in sorted(cs.items()) if isinstance(c["expect"], dict)]
NAMED = [
    ("real-configs-round5.json", "sglang-dsv3-dpattn-deepep-h200"),
    ("real-configs-round5.json", "vllm-dsv3-dp16-ep-deepep-ht-2xh200"),
    ("real-configs-round5.json", "vllm-qwen35-397b-gb200-2x4-flash-attn"),
    ("real-configs-round5.json", "slime-qwen3-30b-a3b-8xh100"),
    ("real-configs-round6.json", "unsloth-llama31-8b-grpo-qlora-fast-inference"),
    ("real-configs-round6.json", "llamacpp-dsr1-ud-iq1s-2xh100"),
    ("real-configs-round6.json", "vllm-gptoss-120b-mi355x-mxfp4-fp8-tp8"),
    ("real-configs-round6.json", "verl-qwen3-30b-a3b-megatron-lora-cp2"),
    ("real-configs-round7.json", "vllm-llama2-13b-cpu-offload-10-l4"),
    ("real-configs-round7.json", "sglang-qwen3-32b-cpu-offload-rtx4090"),
    ("real-configs-round7.json", "deepspeed-zeropp-hpz8-qwz-qgz-2x8h100"),
    ("real-configs-round7.json", "msswift-qwen25-7b-zero3-hpz8-2x8h100"),
]


@pytest.mark.parametrize(("f", "name"), REFUSED)
def test_refusal_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], f: str, name: str) -> None:
    refused_config_exits_2(tmp_path, capsys, ROUNDS[f][name])


@pytest.mark.parametrize(("f", "name"), NAMED)
def test_named_run_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str], f: str, name: str) -> None:
    fitting_run_exits_0(tmp_path, capsys, ROUNDS[f][name]["scenario"])
