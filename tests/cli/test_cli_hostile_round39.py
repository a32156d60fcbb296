"""gpusizer-cli under this round's hostile fields (``rl.rollout.async_engine``,
``model.moe.expert_groups``, ``parallelism.expert_dispatcher`` / ``.expert_overlap``,
``serving.disaggregated.opening_burst``, ``model.mtp_layers`` with ``num_tokens``, a GPU's
``hpu``) from files and flags: one line on stderr and exit 2 naming the field and what is
allowed, never a traceback, a hang or a half-written report; NaN in a file refuses it whole;
a valid extreme answers in bounded time and its saved echo answers the same. In-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.hostile_inputs import RL, SERVE, at
from tests.core.test_hostile_pd_framework import PD
from tests.core.test_hostile_round39 import DSV3, MOE_TRAIN, MTP_SERVE


def _write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


CASES = [
    (at(at(RL, "rl.rollout.engine", "vllm"), "rl.rollout.async_engine", None), ("async_engine", "boolean")),
    (at(at(RL, "rl.rollout.engine", "sglang"), "rl.rollout.async_engine", True), ("async_engine", "vLLM")),
    (at(DSV3, "model.moe.expert_groups", 7), ("model.moe.expert_groups", "allowed: 1, 2, 4")),
    (at(DSV3, "model.moe.expert_groups", -1), ("model.moe.expert_groups", "greater than or equal to 0")),
    (at(DSV3, "model.moe.expert_groups", 1.5), ("model.moe.expert_groups", "whole number")),
    (at(MOE_TRAIN, "parallelism.expert_dispatcher", "flex"), ("expert_dispatcher", "'deepep' or 'hybridep'")),
    (at(MOE_TRAIN, "parallelism.expert_overlap", "on"), ("parallelism.expert_overlap", "boolean")),
    (at(PD, "serving.disaggregated.opening_burst", 1), ("disaggregated.opening_burst", "boolean")),
    (
        at(MTP_SERVE, "serving.speculative", {"method": "mtp", "num_tokens": 0}),
        ("speculative.num_tokens", "greater than or equal to 1"),
    ),
    (
        at(MTP_SERVE, "serving.speculative", {"method": "mtp", "num_tokens": 100}),
        ("speculative.num_tokens", "less than or equal to 16"),
    ),
    (
        at(SERVE, "hardware.gpu", {"name": "x", "memory_bytes": 96e9, "hpu": "yes"}),
        ("hardware.gpu.hpu", "boolean"),
    ),
]


@pytest.mark.parametrize(("scenario", "words"), CASES)
@pytest.mark.parametrize("command", ["estimate", "plan", "compare", "report"])
def test_a_bad_field_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    scenario: dict[str, Any],
    words: tuple[str, ...],
    command: str,
) -> None:
    refused_in_one_line(tmp_path, capsys, scenario, words, command)


@pytest.mark.parametrize("field", ["opening_burst", "link_gb_per_s"])
def test_nan_in_a_file_refuses_it_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str
) -> None:
    text = json.dumps(PD).replace('"decode_gpus": 1', f'"decode_gpus": 1, "{field}": NaN')
    assert "NaN" in text
    assert main(["estimate", str(_write(tmp_path / "s.gpusizer.json", text))]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "NaN" in err, err


def test_llama_cpp_on_a_gaudi_by_flags(capsys: pytest.CaptureFixture[str]) -> None:
    """estimate refuses naming the framework; compare of the Gaudis only says both are left out."""
    flags = ["--model", "llama-3.1-8b", "--kind", "inference", "--framework", "llama.cpp"]
    assert main(["estimate", *flags, "--gpu", "gaudi-3-128gb"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: framework: ") and "Gaudi" in err, err
    assert main(["compare", *flags, "--gpus", "gaudi-3-128gb", "gaudi-2-96gb"]) == 0
    out = capsys.readouterr().out
    assert "Left out: gaudi-2-96gb, gaudi-3-128gb" in out, out


# valid extremes of this round's fields; each one's CPU time: benchmarks/bench_hostile_bursts.py
EXTREMES = [
    at(
        at(at(PD, "serving.disaggregated.opening_burst", True), "serving.concurrency", 10**6),
        "workload.batch_size",
        10**6,
    ),
    at(DSV3, "model.moe.expert_groups", 8),
    at(at(MOE_TRAIN, "parallelism.expert_dispatcher", "hybridep"), "parallelism.expert_overlap", True),
    at(at(RL, "rl.rollout.engine", "vllm"), "rl.rollout.async_engine", True),
]
EXTREME_IDS = ["burst-1e6", "groups", "dispatcher", "async"]


@pytest.mark.parametrize("scenario", EXTREMES, ids=EXTREME_IDS)
def test_a_valid_extreme_answers_quickly_and_its_echo_answers_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: dict[str, Any]
) -> None:
    """Before (burst-1e6): 40 s of CPU for one estimate."""
    assert main(["estimate", str(_write(tmp_path / "s.gpusizer.json", scenario)), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    json.dumps(first, allow_nan=False)
    assert main(["estimate", str(_write(tmp_path / "echo.gpusizer.json", first["scenario"])), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["per_gpu"] == first["per_gpu"]
    assert again.get("serving") == first.get("serving") and again.get("speed") == first.get("speed")


def test_a_user_gpu_whose_hpu_is_not_a_boolean_is_named_when_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: the entry was skipped (the warning comes only after a command that succeeded)
    and ``--gpu my-hpu`` said only "unknown GPU", the file's own entry unmentioned."""
    entry = {"id": "my-hpu", "name": "My HPU", "vendor": "Intel", "memory_bytes": 96 * 2**30, "hpu": "yes"}
    monkeypatch.setenv("GPUSIZER_USER_GPUS", str(_write(tmp_path / "gpus.json", [entry])))
    flags = ["--model", "llama-3.1-8b", "--kind", "inference"]
    for argv in (["estimate", *flags, "--gpu", "my-hpu"], ["compare", *flags, "--gpus", "my-hpu"]):
        assert main(argv) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1, err
        assert "the user GPU file has 'my-hpu' but skipped it (hpu: Input should be a valid boolean" in err, (
            err
        )
    assert main(["estimate", *flags, "--gpu", "nope"]) == 2
    assert "user GPU file" not in capsys.readouterr().err  # only the entry asked for
