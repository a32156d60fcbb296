"""gpusizer-cli on round 4's configurations written with the engines' and stacks' own names
(tests/core/refusals_round4_data.py, each with its source): a speculative method the engine
rewrites to one it runs (vLLM ``vllm/config/speculative.py``: ``deepseek_mtp`` runs as ``mtp``;
SGLang ``server_args.py``: ``NEXTN`` as EAGLE over the MTP layers) exits 0 with the method's
answer; a flag or option name exits 2 with one line naming the field that states it
(core/registry/engine_names.py, core/registry/stack_names.py). In-process."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.scenario_file import refused_naming, run_estimate
from tests.core.refusals_round4_data import STATED


def _with(name: str, path: tuple[str, ...], value: Any) -> dict[str, Any]:
    s = copy.deepcopy(STATED[name])
    block = s
    for key in path[:-1]:
        block = block.setdefault(key, {})
    block[path[-1]] = value
    return s


@pytest.mark.parametrize(
    ("name", "method", "same"),
    [
        ("vllm-deepseek-r1-mtp", "deepseek_mtp", "mtp"),  # vLLM recipes, DeepSeek MTP
        ("sglang-qwen3-next-nextn", "NEXTN", "mtp"),  # sglang docs/basic_usage/qwen3.md
    ],
)
def test_engine_method_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, method: str, same: str
) -> None:
    got = run_estimate(tmp_path, _with(name, ("serving", "speculative", "method"), method), "--json")
    out, err = capsys.readouterr()
    assert got == 0, err
    assert json.loads(out)["scenario"]["serving"]["speculative"]["method"] == same


@pytest.mark.parametrize(
    ("name", "path", "value", "field", "words"),
    [
        # vLLM docs features/lora.md: --enable-lora --max-loras 4
        ("vllm-llama-3.1-8b-lora", ("serving", "enable_lora"), True, "serving.enable_lora", "max_loaded"),
        # ggml-org/llama.cpp discussion 15396: -c 0
        (
            "llamacpp-gpt-oss-120b-n-cpu-moe",
            ("serving", "max_context"),
            0,
            "serving.max_context",
            "own length",
        ),
        # Unsloth docs, Qwen3-Coder UD-Q2_K_XL
        (
            "llamacpp-qwen3-coder-480b-ud-q2",
            ("precision", "weights"),
            "UD-Q2_K_XL",
            "precision.weights",
            "import",
        ),
        # OpenRLHF README: --colocate_all_models
        (
            "openrlhf-reinforce-pp-colocated",
            ("rl", "colocate_all_models"),
            True,
            "rl.colocate_all_models",
            "colocated",
        ),
        # verl examples/gspo_trainer: loss_mode gspo
        ("verl-gspo-qwen3-30b-a3b", ("rl", "algorithm"), "gspo", "rl.algorithm", "grpo"),
        # axolotl examples/llama-3/qlora.yml: lora_r 32
        ("axolotl-llama-3.1-8b-qlora", ("workload", "lora_r"), 32, "workload.lora_r", "lora_rank"),
        # Ollama written as the framework
        ("ollama-qwen3-30b-kv-q8", ("framework",), "ollama", "framework", "llama.cpp"),
    ],
)
def test_engine_name_exits_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    path: tuple[str, ...],
    value: Any,
    field: str,
    words: str,
) -> None:
    got = run_estimate(tmp_path, _with(name, path, value), "--json")
    refused_naming(got, capsys, field, words)
