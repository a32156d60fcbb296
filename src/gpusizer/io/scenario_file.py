"""Scenario files (``*.gpusizer.json``): read whole or refuse whole, write atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.model.specs import Scenario
from ..core.pipeline.scenario import parse_scenario, scenario_dict
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


def save_scenario(s: Scenario | dict[str, Any], path: str | Path) -> Path:
    """Write atomically (:func:`gpusizer.io.atomic.write_atomic`: never a half-written file,
    the file's mode kept, a symlink written through); strict JSON (no NaN/Infinity)."""
    # The file form: every field written, so the file states all its assumptions.
    data = scenario_dict(s) if isinstance(s, Scenario) else s
    return write_json(path, data, "file")
