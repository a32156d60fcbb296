"""gpusizer-cli refuses a serving feature the scenario's engine does not run
(core/registry/serving_support.py): one line on stderr naming the field and the engine's
modes, exit 2, nothing written. In-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main

LLAMA_CPP: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference"},
    "framework": "llama.cpp",
    "hardware": {"gpu": "rtx-4090-24gb"},
    "precision": {"weights": "gguf_q4_k_m"},
}
OLLAMA = {**LLAMA_CPP, "serving": {"engine_version": "ollama-0.17"}}


@pytest.mark.parametrize(
    ("serving", "words"),
    [
        ({"speculative": {"method": "eagle"}}, ("serving.speculative.method", "--model-draft", "ngram")),
        (
            {"disaggregated": {"prefill_gpus": 1, "decode_gpus": 1}},
            ("serving.disaggregated.prefill_gpus", "llama.cpp does not run disaggregated"),
        ),
        (
            {"prefix": {"shared_tokens": 256}, "kv_offload": {"capacity_gb": 8, "medium": "disk"}},
            ("serving.kv_offload.medium", "cpu (--cache-ram)"),
        ),
        (
            {"engine_version": "ollama-0.17", "lora": {"adapters": 4}},
            ("serving.lora.adapters", "Ollama runs one adapter", "ADAPTER"),
        ),
    ],
)
@pytest.mark.parametrize("command", ["estimate", "plan", "compare", "report"])
def test_a_feature_the_engine_does_not_run_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    serving: dict[str, Any],
    words: tuple[str, ...],
    command: str,
) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps({**LLAMA_CPP, "serving": serving}), encoding="utf-8")
    extra = ["--output", str(tmp_path / "out")] if command == "report" else []
    code = main([command, str(path), *extra])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for w in words:
        assert w in err, err
    assert not (tmp_path / "out").exists()


def test_a_method_newer_than_the_release_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """vLLM ran EAGLE-3 from 0.8.5 (PR 16937): asked of 0.8.4, the field, engine and both releases."""
    d = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "serving": {"engine_version": "0.8.4", "speculative": {"method": "eagle3"}},
    }
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    code = main(["estimate", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1, err
    for w in ("serving.speculative.method", "vLLM", '"eagle3" from 0.8.5 on, not 0.8.4'):
        assert w in err, err
