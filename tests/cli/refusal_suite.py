"""One pair of refusal tests for a list of hostile cases: the API refuses each in one line
naming the field, and ``estimate``, ``plan`` and ``compare`` refuse its file in one line with
exit code 2 (the guide's bad-input rule). A test module binds the pair to module-level names so
pytest collects them: ``test_api, test_cli = refusal_tests(CASES)``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.hostile_inputs import refused

Case = tuple[dict[str, Any], str, tuple[str, ...]]


def refusal_tests(cases: list[Case]) -> tuple[Callable[..., None], Callable[..., None]]:
    """The API test and the CLI test over ``cases`` (scenario, field, words the message holds)."""
    ids = [f"{field}-{i}" for i, (_, field, _) in enumerate(cases)]
    over_cases = pytest.mark.parametrize(("scenario", "field", "words"), cases, ids=ids)

    @over_cases
    def test_the_api_refuses_in_one_line_naming_the_field(
        scenario: dict[str, Any], field: str, words: tuple[str, ...]
    ) -> None:
        refused(scenario, field, *words)

    @over_cases
    @pytest.mark.parametrize("command", ["estimate", "plan", "compare"])
    def test_the_cli_refuses_a_file_in_one_line_and_exit_2(
        tmp_path: Path,
        capsys: pytest.CaptureFixture[str],
        scenario: dict[str, Any],
        field: str,
        words: tuple[str, ...],
        command: str,
    ) -> None:
        refused_in_one_line(tmp_path, capsys, scenario, (field, *words), command)

    return (
        test_the_api_refuses_in_one_line_naming_the_field,
        test_the_cli_refuses_a_file_in_one_line_and_exit_2,
    )
