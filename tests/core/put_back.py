"""Putting a sizing option back into its scenario, as the contract says a user does: its
``parallelism`` and ``hardware`` blocks, its ``scenario_changes`` (dotted field paths) and,
for serving, ``workload.batch_size = batch_size``."""

from __future__ import annotations

import json
from typing import Any


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """``data`` with the dotted ``path`` set to ``value`` (blocks created as needed)."""
    *blocks, name = path.split(".")
    for block in blocks:
        data = data.setdefault(block, {})
    data[name] = value


def put_back(scenario: dict[str, Any], option: dict[str, Any], **workload: Any) -> dict[str, Any]:
    """The scenario the option describes (``workload``: more workload fields to set)."""
    out = json.loads(json.dumps(scenario))
    for path, value in (option.get("scenario_changes") or {}).items():
        set_path(out, path, value)
    out["parallelism"] = {**out.get("parallelism", {}), **option["parallelism"]}
    out["hardware"] = option["hardware"]
    if option.get("batch_size") is not None:
        out.setdefault("workload", {})["batch_size"] = option["batch_size"]
    out.setdefault("workload", {}).update(workload)
    return out
