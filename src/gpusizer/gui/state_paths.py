"""What the window's ScenarioState (gui/state.py) does to scenario data: dotted paths read and
set in nested dicts, which paths contain which, a new scenario's derived name, and the node
size that follows a change of GPU."""

from __future__ import annotations

from typing import Any

from ..core.model.naming import with_derived_name
from ..core.model.specs import Scenario
from ..core.pipeline.scenario import default_gpus_per_node, parse_scenario


def named_new(scenario: Scenario | dict[str, Any]) -> Scenario:
    """The scenario parsed, named after itself where it has no name (core/model/naming.py)."""
    s = parse_scenario(scenario)
    return s if s.name else with_derived_name(s)


def follow_gpu_node(data: dict[str, Any], base: Scenario, edits: dict[str, Any]) -> None:
    """A GPU change leaves the node out of ``data`` (so the new GPU's default applies: 72 on a
    GB200/GB300 NVL72, core/pipeline/scenario.py ``default_gpus_per_node``) where the node was
    the old GPU's default, not a count the user chose; the window then sizes a GB200 on the
    rack's NVLink domain as ``estimate`` and ``plan`` do."""
    if "hardware.gpu" not in edits or "hardware" in edits or "hardware.gpus_per_node" in edits:
        return
    if base.hardware.gpus_per_node == default_gpus_per_node(base.hardware.gpu):
        data["hardware"].pop("gpus_per_node", None)


def get_path(obj: Any, path: str) -> Any:
    """The value at a dotted path in nested models/dicts; ``None`` where the path ends early."""
    for part in path.split(".") if path else ():
        obj = obj.get(part) if isinstance(obj, dict) else getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set a dotted path in a nested dict, creating (or replacing non-dict) parents."""
    parts = path.split(".")
    for part in parts[:-1]:
        child = data.get(part)
        if not isinstance(child, dict):
            child = {}
            data[part] = child
        data = child
    data[parts[-1]] = value


def related_paths(a: str, b: str) -> bool:
    """Whether one path contains the other (``model`` and ``model.layers``)."""
    return a == b or a.startswith(b + ".") or b.startswith(a + ".")
