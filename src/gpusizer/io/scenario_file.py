"""Scenario files (``*.gpusizer.json``): read whole or refuse whole, write atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..core.scenario import parse_scenario, scenario_dict
from ..core.specs import Scenario
from .jsonfile import read_json_object

SUFFIX = ".gpusizer.json"


def read_scenario_dict(path: str | Path) -> dict[str, Any]:
    """The raw JSON object of a scenario file; ScenarioError names the file on any problem."""
    return read_json_object(path, "file", "a JSON object (a scenario)")


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file; nothing is returned unless all of it is valid."""
    return parse_scenario(read_scenario_dict(path))


def save_scenario(s: Scenario | dict[str, Any], path: str | Path) -> Path:
    """Write atomically (temp file in the same folder, then rename): never a half-written file."""
    # The file form: every field written, so the file states all its assumptions.
    data = scenario_dict(s) if isinstance(s, Scenario) else s
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
