"""gpusizer-cli under a hostile ``serving.disaggregated.opening_burst`` (core/serving/
disagg_burst.py): one line on stderr and exit 2 naming the field and that it takes a boolean,
never a traceback or a half-written report; the largest burst a scenario can state (the
requests' cap, the users' cap) is answered in bounded time. In-process."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from tests.core.test_hostile_pd_framework import PD


def _with(**fields: Any) -> dict[str, Any]:
    d = copy.deepcopy(PD)
    d["serving"]["disaggregated"].update(fields)
    return d


def largest_burst() -> dict[str, Any]:
    """30,000 users at once on one prefill GPU taking one prompt at a time, 300,000 requests."""
    d = _with(opening_burst=True, prefill_max_sequences=1)
    d["serving"].update(concurrency=30_000, requests=300_000)
    d["workload"]["batch_size"] = 30_000
    return d


@pytest.mark.parametrize("value", ["true", 1, 0.5, [True], {"on": True}])
@pytest.mark.parametrize("command", ["estimate", "plan", "compare", "report"])
def test_a_bad_value_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], value: Any, command: str
) -> None:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(_with(opening_burst=value)), encoding="utf-8")
    extra = ["--output", str(tmp_path / "out")] if command == "report" else []
    code = main([command, str(path), *extra])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert "serving.disaggregated.opening_burst" in err and "bool" in err, err
    assert not (tmp_path / "out").exists()


def test_the_largest_burst_is_answered_in_bounded_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """30,000 users on one prefill GPU taking one prompt at a time, 300,000 requests (the
    scenario's caps): the burst's simulation is bounded (core/serving/budget.py); its CPU time,
    benchmarks/bench_hostile_bursts.py."""
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(largest_burst()), encoding="utf-8")
    assert main(["estimate", str(path), "--json"]) == 0
    sv = json.loads(capsys.readouterr().out)["serving"]
    assert sv["disaggregated_ttft_seconds"] > 0
