"""gpusizer-cli under hostile input, round 3: one line and exit 2,
never a traceback or a forged line; escape sequences in names printed escaped. In-process."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main


def _refused(capsys: pytest.CaptureFixture[str], code: int) -> str:
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    return err


ESCAPES = "\x1b]0;pwned\x07\x1b[2J\rfits: headroom 999 GiB\nfits: headroom 999 GiB\x9b31m"


@pytest.mark.parametrize("command", ["estimate", "plan", "compare"])
def test_escape_sequences_in_names_are_printed_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """An ANSI sequence in a name cleared the screen and set the title; CR/LF forged a
    "fits: headroom 999 GiB" line."""
    gpu = {
        "id": "my-gpu",
        "name": "GPU" + ESCAPES,
        "memory_bytes": 80 * 2**30,
        "dense_tflops": {"bf16": 500.0},
    }
    scenario = {
        "name": ESCAPES,
        "model": {"name": "M" + ESCAPES, "parameters": 10**9},
        "hardware": {"gpu": gpu},
    }
    f = tmp_path / "s.gpusizer.json"
    f.write_text(json.dumps(scenario))
    extra = ["--gpus", "my-gpu"] if command == "compare" else []
    assert main([command, str(f), *extra]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x1b\x07\r\x9b")
    assert not any(line.startswith("fits:") for line in out.splitlines())
    if command != "plan":  # the plan table names the GPU model, not the scenario's names
        assert "\\x1b]0;pwned" in out


def test_a_report_over_a_fifo_or_a_device_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With an existing FIFO or device as the output the writer deleted it, rc 0."""
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    args = ["report", "--model", "gpt-2", "--output"]
    assert "not a folder" in _refused(capsys, main([*args, str(fifo)]))
    assert "not a folder" in _refused(capsys, main([*args, "/dev/null"]))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_a_name_that_is_no_text_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A \\xff in a name (a lone surrogate in Python) ended `report` in a UnicodeEncodeError,
    leaving a folder of PNGs only."""
    out = tmp_path / "rep"
    err = _refused(capsys, main(["report", "--model", "gpt-2", "--name", "a\udcffb", "--output", str(out)]))
    assert "name: is not text" in err and not out.exists()


@pytest.mark.parametrize(
    "args",
    [
        ["--min-memory", "nan"],  # exited 0, matching nothing
        ["--min-memory", "８"],  # fullwidth 8 was read as 8
        ["--margin", "inf"],
        ["--electricity", "1e308"],  # "please report the scenario"
        ["--electricity", "1e20"],  # in range for a number, not for a price: the core's bound
    ],
)
def test_bad_compare_numbers_are_one_line(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    _refused(capsys, main(["compare", "--model", "gpt-2", *args]))


@pytest.mark.parametrize("digits", ["١٢", "８", "𝟴"])
def test_digits_of_other_scripts_are_refused(digits: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = _refused(capsys, main(["estimate", "--model", "gpt-2", "--tp", digits]))
    assert "--tp" in err


def test_prompt_beside_context_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """--prompt was silently dropped: --context sets the prompt."""
    args = ["estimate", "--model", "gpt-2", "--kind", "inference", "--prompt", "1k", "--context", "8k"]
    assert "--prompt or --context" in _refused(capsys, main(args))


@pytest.mark.parametrize(
    ("kind", "flag", "value", "words"),
    [
        ("inference", "--micro-batch", "4", "--micro-batch applies to training; ignored for inference"),
        ("inference", "--lora-rank", "8", "--lora-rank applies to training"),
        ("pretraining", "--users", "4", "--users applies to inference; ignored for training"),
        ("lora", "--generated", "128", "--generated applies to inference"),
    ],
)
def test_a_flag_the_kind_ignores_is_said(
    kind: str, flag: str, value: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["estimate", "--model", "gpt-2", "--kind", kind, flag, value]) == 0
    assert words in capsys.readouterr().err


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda s: gpusizer.compare_gpus(s, prices=[{"price_per_hour": 1}]), "prices"),  # AttributeError
        (
            lambda s: gpusizer.compare_gpus(s, prices={"h100-sxm-80gb": {"price_per_hour": float("inf")}}),
            "prices.h100-sxm-80gb.price_per_hour",
        ),
        (lambda s: gpusizer.compare_gpus(s, electricity_usd_per_kwh=1e308), "electricity_usd_per_kwh"),
        (lambda s: gpusizer.compare_gpus(s, amortization_years=1e-300), "amortization_years"),
        (lambda s: gpusizer.compare_gpus(s, gpus="h100-sxm-80gb"), "gpus"),  # read letter by letter
        (lambda s: gpusizer.plan(s, gpus="h100-sxm-80gb"), "gpus"),
        (lambda s: gpusizer.plan(s, gpus=["h100"]), "gpus"),  # gave no option, no word
        (
            lambda s: gpusizer.compare_gpus({**s, "serving": {"memory_fraction": 1e-300}}),
            "serving.memory_fraction",
        ),
        (
            lambda s: gpusizer.estimate_report({**s, "serving": {"memory_fraction": 1e-300}}),
            "serving.memory_fraction",
        ),
    ],
)
def test_api_misuse_is_a_scenario_error(call: Callable[[dict[str, Any]], object], field: str) -> None:
    s = {"model": {"preset": "gpt-2"}, "workload": {"kind": "inference"}, "framework": "vllm"}
    with pytest.raises(gpusizer.ScenarioError) as err:
        call(s)
    assert err.value.field == field


@pytest.mark.parametrize("kind", ["pretraining", "inference"])
def test_the_roofline_of_a_small_size_only_model_is_drawn(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    """A 10M model's negative FLOPs made the roofline "math domain error"; `chart --kind
    roofline` exited 1 with a traceback."""
    f = tmp_path / "s.gpusizer.json"
    f.write_text(json.dumps({"model": {"name": "tiny", "parameters": 10**7}, "workload": {"kind": kind}}))
    out = tmp_path / "r.png"
    assert main(["chart", str(f), "--kind", "roofline", "--output", str(out)]) == 0
    assert out.stat().st_size > 1000


def test_a_user_gpus_name_is_listed_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gpusizer.core.model.presets import USER_GPUS_ENV

    f = tmp_path / "user-gpus.json"
    f.write_text(
        json.dumps([{"id": "mine\n\x1b[2J", "name": "E\r\nfits: 999\x1b]0;x\x07", "memory_bytes": 10**9}])
    )
    monkeypatch.setenv(USER_GPUS_ENV, str(f))
    assert main(["gpus"]) == 0
    out = capsys.readouterr().out
    assert "mine\\n\\x1b[2J" in out and "E\\r\\nfits: 999" in out and "\x1b" not in out
