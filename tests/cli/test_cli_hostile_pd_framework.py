"""gpusizer-cli under hostile P/D, expert-parallel and RL-framework fields
(``serving.disaggregated.connector`` / ``.arrival_burstiness``, ``serving.expert_balance`` and
kin, ``rl.framework`` / ``rl.framework_version``, ``rl.sync_transport``,
``rl.policy.old_logprobs``, ``rl.rollout.speculative``): one line on stderr and exit 2 naming
the field and what is allowed, never a traceback, a hang or a half-written report; a saved
echo of a framework scenario answers the same. In-process."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from tests.core.test_hostile_pd_framework import EP8, PD
from tests.scenarios import RL_SPLIT


def _write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _at(base: dict[str, Any], block: str, **fields: Any) -> dict[str, Any]:
    d = copy.deepcopy(base)
    node = d
    for key in block.split("."):
        node = node.setdefault(key, {})
    node.update(fields)
    return d


CASES = [
    (_at(PD, "serving.disaggregated", arrival_burstiness=0), ("arrival_burstiness", "greater than 0")),
    (_at(PD, "serving.disaggregated", arrival_burstiness=1e300), ("arrival_burstiness", "1000000")),
    (
        _at(PD, "serving.disaggregated", connector="nixl"),
        ("disaggregated.connector", "vllm-nixl, vllm-mooncake"),
    ),
    (
        _at(PD, "serving.disaggregated", connector="sglang"),
        ("disaggregated.connector", "for 'vllm': vllm-nixl"),
    ),
    (
        _at(_at(PD, "serving.disaggregated", connector="vllm-nixl"), "serving", engine_version="0.8.5"),
        ("disaggregated.connector", "from vllm 0.9.0 on, not 0.8.5"),
    ),
    (_at(EP8, "serving", expert_balance=1e-9), ("serving.expert_balance", "allowed 0.125 to 1")),
    (_at(EP8, "serving", redundant_experts=10**9), ("serving.redundant_experts", "65536")),
    (_at(EP8, "serving", moe_a2a_backend="deep_ep"), ("serving.moe_a2a_backend", "deepep_normal")),
    (_at(EP8, "serving", two_batch_overlap=True), ("serving.two_batch_overlap", "false or null")),
    (_at(RL_SPLIT, "rl", framework="VERL"), ("rl.framework", "nemo_rl, verl, openrlhf")),
    (_at(RL_SPLIT, "rl", framework_version="0.7.0"), ("rl.framework_version", "needs rl.framework")),
    (_at(RL_SPLIT, "rl", framework="verl", framework_version="0.2.0"), ("rl.framework_version", "0.3.0")),
    (_at(RL_SPLIT, "rl", sync_transport="bogus"), ("rl.sync_transport", "collective")),
    (_at(RL_SPLIT, "rl.policy", old_logprobs="false"), ("rl.policy.old_logprobs", "boolean")),
    (
        _at(RL_SPLIT, "rl.rollout", speculative={"method": "draft_model"}),
        ("rl.rollout.speculative.method", "mtp"),
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


def refused_in_one_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    scenario: dict[str, Any],
    words: tuple[str, ...],
    command: str,
) -> None:
    """``command`` on ``scenario``'s file exits 2 within 10 s of CPU with one line on stderr that
    holds every one of ``words``, and writes nothing (the project's bad-input rule)."""
    path = _write(tmp_path / "s.gpusizer.json", scenario)
    extra = ["--output", str(tmp_path / "out")] if command == "report" else []
    start = time.process_time()
    code = main([command, str(path), *extra])
    assert time.process_time() - start < 10.0
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    for w in words:
        assert w in err, err
    assert not (tmp_path / "out").exists()  # nothing half-written


def test_the_smallest_burstiness_is_answered_in_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before: estimate never returned (a NaN arrival in the prefill queue's simulation)."""
    path = _write(tmp_path / "s.gpusizer.json", _at(PD, "serving.disaggregated", arrival_burstiness=5e-324))
    start = time.process_time()
    assert main(["estimate", str(path), "--json"]) == 0
    assert time.process_time() - start < 20.0
    assert json.loads(capsys.readouterr().out)["serving"]["disaggregated_ttft_seconds"] > 0


def test_a_framework_scenarios_echo_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The echo states every knob the release filled: saved and given back, it answers the same;
    the report itself given as a scenario says what it is."""
    given = _at(RL_SPLIT, "rl", framework="verl", framework_version="0.6.0")
    assert main(["estimate", str(_write(tmp_path / "s.gpusizer.json", given)), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    echo = _write(tmp_path / "echo.gpusizer.json", first["scenario"])
    assert main(["estimate", str(echo), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["rl"] == first["rl"] and again["per_gpu"] == first["per_gpu"]
    report = _write(tmp_path / "r.json", first)
    assert main(["estimate", str(report)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "estimate report" in err
