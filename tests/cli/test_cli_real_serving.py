"""gpusizer-cli on serving deployments written with the engines' own flag names: vLLM's
``--cpu-offload-gb`` (vllm/model_executor/models/utils.py ``maybe_offload_to_cpu``: weights
read from host memory every step, not modelled) and SGLang's ``--quantization w4afp8``
(python/sglang/srt/server_args.py ``QUANTIZATION_CHOICES``) exit 2 with one line naming what
to state; the stated stand-in exits 0 (core/registry/engine_flags.py). In-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.scenario_file import refused_naming, run_estimate

SERVE: dict[str, Any] = {
    "model": {"preset": "llama-3.3-70b"},
    "framework": "vllm",
    "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
    "serving": {"max_context": 8192},
    "parallelism": {"tensor": 2},
}


@pytest.mark.parametrize(
    ("block", "field", "words"),
    [
        (
            {"serving": {"max_context": 8192, "cpu_offload_gb": 40}},
            "serving.cpu_offload_gb",
            "cpu_offload_gib",
        ),
        ({"precision": {"weights": "w4afp8"}}, "precision.weights", "awq_int4"),
        (
            {"serving": {"max_context": 8192, "enforce_eager": True}},
            "serving.enforce_eager",
            "cuda_graphs false",
        ),
    ],
)
def test_engine_flag_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], block: dict[str, Any], field: str, words: str
) -> None:
    got = run_estimate(tmp_path, {**SERVE, **block}, "--json")
    refused_naming(got, capsys, field, words)


def test_stated_field_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --enforce-eager stated as the refusal names it: serving.cuda_graphs false
    got = run_estimate(tmp_path, {**SERVE, "serving": {"max_context": 8192, "cuda_graphs": False}}, "--json")
    out, err = capsys.readouterr()
    assert got == 0, err
    assert json.loads(out)["cluster"]["gpus"] == 2
