"""Fields only some frameworks take, and what a switch of framework does with them.

``workload.mlx_version`` (MLX's own release: core/pipeline/validate.py refuses it under a
profile with no fused attention head sizes, ``FrameworkProfile.fused_attention_head_dims``,
MLX's only) and ``serving.max_kv_size`` (mlx-lm ``--max-kv-size``: core/pipeline/
validate_serving.py refuses it in serving under an engine without ``rotating_kv``). A pick of
framework that refuses one of them, held, sets it back to null with the switch, and the status
bar says what went (Undo brings it back), so the switch gives an answer instead of a refusal
beside a field the new framework hides. Each row is shown where its framework takes it, or
while it holds a value, so a refusal from a file can be fixed where it shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.memory.lora_experts import TRANSFORMERS_PEFT
from ...core.memory.techniques import profile_edits
from ...core.registry.framework_profile import FrameworkProfile
from ...core.registry.frameworks import FRAMEWORKS
from ...core.registry.workloads import WORKLOAD_KINDS
from ..state import ScenarioState

Takes = Callable[[FrameworkProfile, bool], bool]  # (profile, the kind serves) -> taken there
# (path, the words the status bar names it with, where the core takes it)
FRAMEWORK_ONLY: tuple[tuple[str, str, Takes], ...] = (
    ("workload.mlx_version", "MLX release", lambda p, _serves: p.fused_attention_head_dims is not None),
    ("serving.max_kv_size", "max KV size", lambda p, serves: p.rotating_kv or not serves),
    # PEFT on a transformers model only (core/memory/lora_experts.py TRANSFORMERS_PEFT): the
    # Workload panel's rows (gui/panels/lora_release_rows.py)
    ("workload.transformers_version", "transformers release", lambda p, _serves: p.id in TRANSFORMERS_PEFT),
    (
        "workload.lora_target_parameters",
        "expert target parameters",
        lambda p, _serves: p.id in TRANSFORMERS_PEFT,
    ),
    # Unsloth's own release (core/registry/unsloth_releases.py)
    (
        "workload.unsloth_version",
        "Unsloth release",
        lambda p, _serves: p.own_release_field == "workload.unsloth_version",
    ),
)


def takes(path: str, profile: FrameworkProfile | None, serves: bool) -> bool:
    """Whether ``profile`` takes the field at ``path`` (fields not listed: always)."""
    rule = next((r for p, _w, r in FRAMEWORK_ONLY if p == path), None)
    return rule is None or (profile is not None and rule(profile, serves))


def shown(state: ScenarioState, path: str, applies: bool = True) -> bool:
    """A framework-only row: shown where the framework takes it and ``applies`` (the kind
    reads it), or while it holds a value (its refusal shows beside it)."""
    if state.value(path) is not None:
        return True
    kind = WORKLOAD_KINDS.get(str(state.value("workload.kind")))
    profile = FRAMEWORKS.get(str(state.value("framework")))
    return applies and kind is not None and takes(path, profile, kind.serves)


def framework_edits(state: ScenarioState) -> Callable[[Any], dict[str, Any]]:
    """The edits that go with a pick of framework: the profile's defaults (core/memory/
    techniques.py ``profile_edits``) and null for each held field it refuses, said in the
    status bar."""

    def edits(framework_id: Any) -> dict[str, Any]:
        out: dict[str, Any] = dict(profile_edits(framework_id))
        profile = FRAMEWORKS.get(str(framework_id))
        kind = WORKLOAD_KINDS.get(str(state.value("workload.kind")))
        if profile is None or kind is None:
            return out
        gone = [
            (path, words, state.value(path))
            for path, words, rule in FRAMEWORK_ONLY
            if state.value(path) is not None and not rule(profile, kind.serves)
        ]
        for path, _words, _value in gone:
            out[path] = None
        if gone:
            said = ", ".join(f"{words} {value}" for _p, words, value in gone)
            state.notice.emit(f"{profile.label} does not take the {said}: cleared (Undo brings it back).")
        return out

    return edits
