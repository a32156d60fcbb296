"""``gpusizer-cli estimate`` on a scenario written to a file, in-process, and the check of a
refusal the project's bad-input rule asks for (exit 2, nothing on stdout, one line on stderr
naming the field); shared by the CLI tests of fields written with the stacks' own names
(tests/cli/test_cli_real_serving.py, test_cli_real_training.py, test_cli_preference.py), the
hostile-input tests that refuse a scenario through the API and the CLI both
(tests/core/test_context_limit.py, test_rl_trl.py), and the rounds' NaN walk
(tests/cli/test_buyer_review_round44.py, round45)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.core.hostile_inputs import at


def run_estimate(tmp_path: Path, scenario: dict[str, Any], *flags: str, name: str = "s.gpusizer.json") -> int:
    """``estimate`` on ``scenario`` written to ``tmp_path``/``name``; the exit code."""
    path = tmp_path / name
    path.write_text(json.dumps(scenario), encoding="utf-8")
    return main(["estimate", str(path), *flags])


def refused_naming(got: int, capsys: pytest.CaptureFixture[str], field: str, *words: str) -> None:
    """The run exited 2 with one line on stderr holding ``field`` and every one of ``words``."""
    out, err = capsys.readouterr()
    assert got == 2 and out == "" and len(err.splitlines()) == 1
    assert field in err and all(w in err for w in words)


def refused_by_api_and_cli(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: dict[str, Any], field: str
) -> None:
    """The parser refuses ``scenario`` naming ``field``; ``estimate`` on its file exits 2 with
    nothing on stdout and one line on stderr naming it."""
    with pytest.raises(ScenarioError) as err:
        parse_scenario(scenario)
    assert err.value.field == field
    assert run_estimate(tmp_path, scenario, name="s.json") == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and field in out.err


def nan_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], base: dict[str, Any], field: str
) -> None:
    """A bare NaN written at ``field`` of ``base``'s file: ``estimate`` exits 2 with the reader's
    one line naming the field (its walk to a refused number)."""
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(at(copy.deepcopy(base), field, "@@")).replace('"@@"', "NaN"))
    assert main(["estimate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"error: file: s.gpusizer.json: {field}: NaN is not a JSON number; write a finite number\n"


def real_configs(name: str) -> dict[str, dict[str, Any]]:
    """The configurations of a real-runs round (tests/core/data/<name>), by name."""
    path = Path(__file__).parents[1] / "core" / "data" / name
    return {c["name"]: c for c in json.loads(path.read_text())["configs"]}


def refused_config_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: dict[str, Any]
) -> None:
    """gpusizer-cli refuses a real-runs configuration whose ``expect`` names a field: exit 2,
    one line naming that field and the first of its words."""
    expect = config["expect"]
    got = run_estimate(tmp_path, config["scenario"], "--json")
    refused_naming(got, capsys, expect["field"], expect["contains"][0])


def fitting_run_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: dict[str, Any]) -> None:
    """gpusizer-cli answers a run that fits: exit 0 and ``fits`` in its JSON."""
    got = run_estimate(tmp_path, scenario, "--json")
    out, err = capsys.readouterr()
    assert got == 0, err
    assert json.loads(out)["fits"]
