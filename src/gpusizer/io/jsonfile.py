"""Read a JSON object from a file or text, refusing anything else with one clear message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError


def parse_json_object(text: str, field: str, where: str, what: str = "a JSON object"
                      ) -> dict[str, Any]:
    """``json.loads`` that must give a dict; ScenarioError(``field``) names ``where`` and the
    line and column of a syntax error."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScenarioError(field, f"{where} is not valid JSON (line {exc.lineno}, "
                            f"column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise ScenarioError(field, f"{where} must be {what}")
    return data


def read_json_object(path: str | Path, field: str, what: str = "a JSON object"
                     ) -> dict[str, Any]:
    """Read and parse a file holding one JSON object (see :func:`parse_json_object`)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(field, f"cannot read {p}: {exc.strerror or exc}") from None
    return parse_json_object(text, field, p.name, what)
