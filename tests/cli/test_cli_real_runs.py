"""gpusizer-cli on configurations people run: llama.cpp over 3 GPUs answers (exit 0; llama.cpp
splits layers or matrix rows, never heads: ggml-cuda.cu ``get_row_split``), vLLM TP 3 on 64
heads stays refused in one line (exit 2; vLLM ``verify_with_parallel_config``). In-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main

SERVE: dict[str, Any] = {
    "model": {"preset": "llama-3.3-70b"},
    "precision": {"weights": "gguf_q4_k_m"},
    "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
    "serving": {"max_context": 8192},
    "hardware": {"gpu": "rtx-3090-24gb"},
    "parallelism": {"tensor": 3},
}


@pytest.mark.parametrize(("framework", "code"), [("llama.cpp", 0), ("vllm", 2)])
def test_three_gpus(tmp_path: Path, capsys: pytest.CaptureFixture[str], framework: str, code: int) -> None:
    path = tmp_path / "s.gpusizer.json"
    scenario = {**SERVE, "framework": framework}
    if framework == "vllm":
        scenario["precision"] = {"weights": "awq_int4"}
    path.write_text(json.dumps(scenario), encoding="utf-8")
    got = main(["estimate", str(path), "--json"])
    out, err = capsys.readouterr()
    assert got == code, err
    if code == 0:
        assert json.loads(out)["cluster"]["gpus"] == 3
    else:
        assert out == "" and len(err.splitlines()) == 1
        assert "parallelism.tensor" in err and "allowed: 1, 2, 4, 8" in err
