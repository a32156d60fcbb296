"""``gpusizer-cli estimate`` on a scenario written to a file, in-process, and the check of a
refusal the project's bad-input rule asks for (exit 2, nothing on stdout, one line on stderr
naming the field); shared by the CLI tests of fields written with the stacks' own names
(tests/cli/test_cli_real_serving.py, test_cli_real_training.py, test_cli_preference.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main


def run_estimate(tmp_path: Path, scenario: dict[str, Any], *flags: str) -> int:
    """``estimate`` on ``scenario`` written to ``tmp_path``/s.gpusizer.json; the exit code."""
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    return main(["estimate", str(path), *flags])


def refused_naming(got: int, capsys: pytest.CaptureFixture[str], field: str, *words: str) -> None:
    """The run exited 2 with one line on stderr holding ``field`` and every one of ``words``."""
    out, err = capsys.readouterr()
    assert got == 2 and out == "" and len(err.splitlines()) == 1
    assert field in err and all(w in err for w in words)
