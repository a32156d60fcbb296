"""Switching the kind of work keeps each kind's own settings: the framework and the layout
(parallelism) set for a kind come back when the user returns to it, and what does not apply to
a kind never seen before is reset (a training layout — DP 7, ZeRO-3 — carried into serving
would count replicas as memory; vLLM cannot train). The status bar says what changed.

Sources of the resets: serving replicas add throughput, not memory (core/solver.py keeps
DP = EP for inference); ZeRO, recomputation, virtual pipeline stages, sequence parallelism and
optimizer offload are training techniques (core/specs.ParallelismSpec docstrings).
"""

from __future__ import annotations

from typing import Any

from ..core.registry.frameworks import FRAMEWORKS, frameworks_for
from ..core.registry.workloads import WORKLOAD_KINDS, WorkloadKind
from .state import ScenarioState

# What serving resets when it has no layout of its own yet (field, serving value, label).
_SERVING_RESETS = (
    ("data", 1, "DP"),
    ("zero_stage", 0, "ZeRO"),
    ("virtual_stages", 1, "virtual stages"),
    ("context", 1, "CP"),
    ("recompute", "none", "recompute"),
    ("sequence_parallel", False, "sequence parallel"),
    ("offload_optimizer", False, "optimizer offload"),
)


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    labels = {f: label for f, _v, label in _SERVING_RESETS} | {
        "tensor": "TP",
        "pipeline": "PP",
        "expert": "EP",
    }
    return [
        f"{labels.get(k, k)} {before[k]} → {after[k]}"
        for k in after
        if k in before and before[k] != after[k] and k in labels
    ]


def _label(framework: str) -> str:
    profile = FRAMEWORKS.get(framework)
    return profile.label if profile is not None else framework


class KindSwitch:
    """Edits that go with a change of ``workload.kind`` (see the module docstring); ``last``
    is the sentence the status bar shows for the last switch."""

    def __init__(self, state: ScenarioState) -> None:
        self.state = state
        self.saved: dict[str, dict[str, Any]] = {}  # kind id -> framework and parallelism
        self.last = ""

    def edits_for(self, kind_id: Any) -> dict[str, Any]:
        """The edits to apply with the switch to ``kind_id`` (and the message, in ``last``)."""
        old = str(self.state.value("workload.kind"))
        new = WORKLOAD_KINDS.get(str(kind_id))
        self.last = ""
        if new is None or new.id == old:
            return {}
        par = dict(self.state.scenario.parallelism.model_dump(mode="json"))
        framework = str(self.state.value("framework"))
        self.saved[old] = {"framework": framework, "parallelism": par}
        mine = self.saved.get(new.id)
        if mine is not None:
            edits = {"framework": mine["framework"], "parallelism": dict(mine["parallelism"])}
            said = f"{new.label}: its own settings are back"
        else:
            was_training = old in WORKLOAD_KINDS and WORKLOAD_KINDS[old].is_training
            edits = {
                "framework": self._framework(new, framework),
                "parallelism": par if was_training == new.is_training else self._layout(new, par),
            }
            said = new.label
        notes = []
        if edits["framework"] != framework:
            notes.append(f"framework {_label(framework)} → {_label(edits['framework'])}")
        notes += _changes(par, edits["parallelism"])
        if notes:
            old_label = WORKLOAD_KINDS[old].label if old in WORKLOAD_KINDS else old
            self.last = (
                f"{said} — {', '.join(notes)} ({old_label}'s settings are kept for when you switch back)."
            )
            self.state.notice.emit(self.last)
        return {k: v for k, v in edits.items() if v != (par if k == "parallelism" else framework)}

    @staticmethod
    def _framework(kind: WorkloadKind, current: str) -> str:
        """The current framework if it runs this kind, else the kind's default."""
        profile = FRAMEWORKS.get(current)
        if profile is not None and profile.fits(kind):
            return current
        fitting = frameworks_for(kind)
        return fitting[0].id if fitting else current

    @staticmethod
    def _layout(kind: WorkloadKind, par: dict[str, Any]) -> dict[str, Any]:
        """A layout for a kind met for the first time: serving drops the training-only
        settings and data-parallel replicas; training starts from the serving TP/PP."""
        out = dict(par)
        if not kind.is_training:
            for field, value, _label in _SERVING_RESETS:
                out[field] = value
        else:
            out["data"] = 1
        return out
