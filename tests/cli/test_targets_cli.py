"""``gpusizer-cli compare``: the target flags, the stated default target, reasons that name
the cause, and the need apart from the purchase."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main

SERVE = ["--model", "llama-3.1-8b", "--kind", "inference", "--framework", "vllm", "--context", "2560"]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["compare", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_default_target_is_stated_and_can_be_cleared(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, *SERVE, "--gpus", "h100-sxm-80gb")
    assert code == 0 and err == ""
    assert "default target: first token within 2 s, at least 5 tokens/s per user" in out
    assert "Default target" in out.splitlines()[0]
    code, out, _ = _run(capsys, *SERVE, "--gpus", "h100-sxm-80gb", "--no-default-target")
    assert code == 0 and "default target:" not in out


def test_target_flags_set_the_targets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys,
        *SERVE,
        "--gpus",
        "h100-sxm-80gb",
        "--max-ttft",
        "0.5",
        "--min-tokens-per-user",
        "20",
        "--target-users",
        "3",
        "--json",
    )
    (o,) = json.loads(out)
    assert code == 0 and o["targets_met"] is True and o["default_target_met"] is None
    assert o["tokens_per_second_per_user"] >= 20 and o["ttft_seconds"] <= 0.5
    code, out, _ = _run(capsys, *SERVE, "--gpus", "h100-sxm-80gb", "--max-ttft", "-1")
    assert code == 2


def test_deadline_flag(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--model", "llama-3.1-8b", "--kind", "lora", "--tokens", "1B", "--gpus", "h100-sxm-80gb"]
    code, out, _ = _run(capsys, *argv, "--deadline-days", "0.01", "--json")
    (o,) = json.loads(out)
    assert code == 0 and o["targets_met"] is not None and o["default_target_met"] is None


def test_need_and_purchase_are_apart(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, *SERVE, "--gpus", "h100-sxm-80gb")
    assert code == 0
    assert "Need (h100-sxm-80gb): 1 x H100 SXM" in out and "bought 8 (7 spare GPUs" in out


def test_context_limit_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # llama-server's default context is 4,096 tokens (-c, --ctx-size): an 8k request does not
    # run, and that is no memory failure
    scenario = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference", "prompt_tokens": 8000, "generated_tokens": 192},
        "framework": "llama.cpp",
        "serving": {"max_context": 4096},
        "hardware": {"gpu": "rtx-4090-24gb"},
    }
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    code, out, _ = _run(capsys, str(path), "--gpus", "rtx-4090-24gb")
    assert code == 0 and "context limit" in out and "does not fit" not in out
    assert "Not offered (rtx-4090-24gb, context_limit)" in out
    assert main(["estimate", str(path)]) == 0
    out = capsys.readouterr()[0]
    said = "does not run: a request of 8,192 tokens is longer than the engine's 4,096-token context"
    assert said in out and "does not fit" not in out  # io/wording.py's verdict
    assert main(["plan", str(path)]) == 0
    out = capsys.readouterr()[0]
    assert out.startswith("No GPU runs this scenario: a request of 8,192 tokens") and " fits" not in out


def test_readme_fit_models_example_needs_no_kind(capsys: pytest.CaptureFixture[str]) -> None:
    # README: gpusizer-cli fit-models --gpu dgx-spark-128gb --framework llama.cpp --weights gguf_q4_k_m
    argv = ["fit-models", "--gpu", "dgx-spark-128gb", "--framework", "llama.cpp", "--weights", "gguf_q4_k_m"]
    assert main(argv) == 0
    assert "Tok/s/user" in capsys.readouterr()[0]


def test_training_states_its_effective_time(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["estimate", "--model", "llama-3.1-8b", "--kind", "pretraining", "--dp", "8", "--zero", "1"]
    assert main([*argv, "--tokens", "1T"]) == 0
    out = capsys.readouterr()[0]
    assert "of wall time at 99.99% effective (restarts, lost work)" in out
