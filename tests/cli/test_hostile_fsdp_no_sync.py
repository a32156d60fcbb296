"""Hostile values for ``parallelism.fsdp_no_sync`` (core/memory/fsdp_no_sync.py) through the API
and scenario files given to ``gpusizer-cli`` (estimate, plan, compare): one line naming the field
and what is allowed, exit 2, never a traceback or a silent answer."""

from __future__ import annotations

import copy
from typing import Any

from tests.cli.refusal_suite import refusal_tests
from tests.core.test_fsdp_no_sync import FSDP_7B

ZERO3 = copy.deepcopy(FSDP_7B["recipe_scenario"])


def _par(**par: Any) -> dict[str, Any]:
    out = copy.deepcopy(ZERO3)
    out["parallelism"].update(par)
    return out


FIELD = "parallelism.fsdp_no_sync"
CASES: list[tuple[dict[str, Any], str, tuple[str, ...]]] = [
    (_par(fsdp_no_sync="true"), FIELD, ("boolean",)),
    (_par(fsdp_no_sync=[True]), FIELD, ("boolean",)),
    (_par(fsdp_no_sync=2), FIELD, ("boolean",)),
    (_par(zero_stage=1), FIELD, ("zero_stage 3 with fsdp_version 1", "got zero_stage 1")),
    (_par(fsdp_version=2), FIELD, ("zero_stage 3 with fsdp_version 1", "fsdp_version 2")),
]
test_the_api_refuses_in_one_line_naming_the_field, test_the_cli_refuses_a_file_in_one_line_and_exit_2 = (
    refusal_tests(CASES)
)
