"""One RL step on a time line (``workload.kind: "rl"``): what runs when, on which pool, from the
estimate's ``rl`` block (core/pipeline/rl_report.py; contract: docs/scenario-format.md "RL
post-training").

Colocated, one lane: the phases and the moves between them in the order NeMo RL runs them
(``nemo_rl/algorithms/grpo.py``: generate, the engine sleeps, the training states come back,
log-probs, train, the states go to the host, the engine wakes, refit). Split, two lanes: the
rollout pool generates while the training pool scores and trains (one step off-policy, the
slower one sets the pace), then the weights go over; without overlap the pools take turns.
Seconds, from the step's start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..pipeline.estimate import estimate

# What each phase or move is, for the chart's colours and legend
GROUPS = {
    "rollout": "generation",
    "log_probs": "scoring",
    "training": "training",
    "weight_sync": "weights",
    "engine_sleep": "moves",
    "state_reload": "moves",
    "state_offload": "moves",
    "engine_wake": "moves",
}
GROUP_LABELS = {
    "generation": "generation (rollout engine)",
    "scoring": "log-probs: reference, old policy, reward, critic",
    "training": "training the policy (and critic)",
    "weights": "weight sync (refit or broadcast)",
    "moves": "engine sleep / wake, states to and from host",
}
# NeMo RL's order of one colocated step (module docstring)
COLOCATED_ORDER = (
    "rollout",
    "engine_sleep",
    "state_reload",
    "log_probs",
    "training",
    "state_offload",
    "engine_wake",
    "weight_sync",
)


@dataclass(frozen=True)
class Segment:
    """One phase or move: its name, group (:data:`GROUPS`), lane, start and length (s)."""

    name: str
    group: str
    lane: str
    start: float
    seconds: float

    @property
    def end(self) -> float:
        return self.start + self.seconds


@dataclass(frozen=True)
class Timeline:
    """A step's segments, its lanes top to bottom, its length (s) and placement."""

    segments: tuple[Segment, ...]
    lanes: tuple[str, ...]
    step_seconds: float
    placement: str


def _colocated(seconds: dict[str, float]) -> list[Segment]:
    out, t = [], 0.0
    for name in COLOCATED_ORDER:
        if name in seconds:
            out.append(Segment(name, GROUPS[name], "shared", t, seconds[name]))
            t += seconds[name]
    return out


def _split(seconds: dict[str, float], overlap: bool) -> list[Segment]:
    roll, lp, train = seconds["rollout"], seconds["log_probs"], seconds["training"]
    begin = 0.0 if overlap else roll  # taking turns: the training pool waits for the responses
    out = [
        Segment("rollout", "generation", "rollout", 0.0, roll),
        Segment("log_probs", "scoring", "training", begin, lp),
        Segment("training", "training", "training", begin + lp, train),
    ]
    sync = max(roll, begin + lp + train)
    return [*out, Segment("weight_sync", "weights", "rollout", sync, seconds["weight_sync"])]


def timeline_of(rl: dict[str, Any]) -> Timeline:
    """The time line of a report's ``rl`` block."""
    seconds = {p["name"]: float(p["seconds"]) for p in rl["phases"]}
    seconds |= {m["name"]: float(m["seconds"]) for m in rl.get("transitions", [])}
    lanes: tuple[str, ...]
    if rl["placement"] == "colocated":
        segments, lanes = _colocated(seconds), ("shared",)
    else:
        # the pools overlap when the step is shorter than their sum (rl.overlap)
        overlap = rl["time_per_step_seconds"] < sum(seconds.values()) - 1e-9
        segments, lanes = _split(seconds, overlap), ("rollout", "training")
    return Timeline(tuple(segments), lanes, float(rl["time_per_step_seconds"]), rl["placement"])


def rl_timeline(s: Scenario) -> Timeline:
    """The time line of an RL scenario's step (its estimate's ``rl`` block)."""
    rl = estimate(s).rl
    if rl is None:
        raise ScenarioError("workload.kind", "the phase timeline is about RL post-training (kind rl)")
    return timeline_of(rl)
