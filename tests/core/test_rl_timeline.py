"""One RL step on a time line (core/views/rl_timeline.py), from a report's ``rl`` block."""

from __future__ import annotations

import pytest

from gpusizer.core.views.rl_timeline import timeline_of

PHASES = {"rollout": 10.0, "log_probs": 2.0, "training": 5.0, "weight_sync": 1.0}


def _rl(placement: str, step: float, moves: dict[str, float] | None = None) -> dict:
    return {
        "placement": placement,
        "time_per_step_seconds": step,
        "phases": [{"name": k, "seconds": v} for k, v in PHASES.items()],
        "transitions": [{"name": k, "seconds": v} for k, v in (moves or {}).items()],
    }


def test_colocated_runs_in_nemo_rls_order() -> None:
    moves = {"engine_sleep": 0.5, "state_reload": 0.25, "state_offload": 0.25, "engine_wake": 0.5}
    t = timeline_of(_rl("colocated", 19.5, moves))
    assert [s.name for s in t.segments] == [
        "rollout",
        "engine_sleep",
        "state_reload",
        "log_probs",
        "training",
        "state_offload",
        "engine_wake",
        "weight_sync",
    ]
    assert t.lanes == ("shared",) and t.segments[-1].end == pytest.approx(19.5)


def test_split_overlaps_or_takes_turns() -> None:
    both = {s.name: s for s in timeline_of(_rl("split", 11.0)).segments}  # max(10, 7) + 1
    assert both["log_probs"].start == 0.0 and both["weight_sync"].start == 10.0
    turns = {s.name: s for s in timeline_of(_rl("split", 18.0)).segments}  # 10 + 7 + 1
    assert turns["log_probs"].start == 10.0 and turns["weight_sync"].end == pytest.approx(18.0)
