"""Scenario files (``*.gpusizer.json``): read whole or refuse whole, write atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.model.specs import Scenario
from ..core.pipeline.scenario import OTHER_KINDS, other_kinds, parse_scenario, scenario_dict
from ..core.readfile import MiB, read_json_object
from .atomic import write_json

SUFFIX = ".gpusizer.json"
MAX_SCENARIO_BYTES = 1 * MiB  # a full scenario with an inline model and GPU is about 3 KB


def read_scenario_dict(path: str | Path) -> dict[str, Any]:
    """The raw JSON object of a scenario file; ScenarioError names the file on any problem
    (not a regular file, over 1 MiB, not UTF-8, not strict JSON, a key twice...)."""
    return read_json_object(path, "file", MAX_SCENARIO_BYTES, "a JSON object (a scenario)")


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; nothing is returned unless all of it is valid."""
    return parse_scenario(read_scenario_dict(path))


def load_scenario_file(path: str | Path) -> tuple[Scenario, dict[str, dict[str, Any]]]:
    """The scenario of a file and its ``other_kinds`` block (the window's settings of the kinds
    not shown; {} when the file has none); refused whole like :func:`load_scenario`."""
    data = read_scenario_dict(path)
    return parse_scenario(data), other_kinds(data)


def save_scenario(
    s: Scenario | dict[str, Any], path: str | Path, others: dict[str, dict[str, Any]] | None = None
) -> Path:
    """Write atomically (:func:`gpusizer.io.atomic.write_atomic`: never a half-written file,
    the file's mode kept, a symlink written through); strict JSON (no NaN/Infinity).
    ``others``: the other kinds' settings, written as the ``other_kinds`` block when any."""
    # The file form: every field written, so the file states all its assumptions.
    data = scenario_dict(s) if isinstance(s, Scenario) else s
    if others:
        data = {**data, OTHER_KINDS: other_kinds({OTHER_KINDS: others})}
    return write_json(path, data, "file")
