"""verl's replayed steps phase by phase: ours against every published timer the records hold
(docs/evidence/rl.md, the section "verl's small-model steps phase by phase").

The records are the blind rounds' (``tests/core/data/rl-time-blind3.json``, ``-blind4.json``,
``-blind5.json``); each phase of ours is set beside the verl timers that time the same work, as
verl's ``RayPPOTrainer.fit`` (``verl/trainer/ppo/ray_trainer.py``, tags v0.3.0.post1 and v0.5.0)
opens them inside its ``step`` timer:

- ``rollout``: ``gen`` (``generate_sequences``, the reshard and the engine's wake-up and sleep);
- ``log_probs``: ``old_log_prob`` + ``ref`` + ``values`` (whichever the record prints);
- ``training``: ``update_actor`` + ``update_critic``;
- not priced by ours: ``reward`` and ``adv``, and the driver's work outside every phase timer
  (``_balance_batch``, the metrics): the step less the sum of the printed timers
  (tests/core/test_rl_verl_phase_gap.py reads it where the records print all four).

``gap`` is a phase's share of the step's shortfall, (published - ours) / (published step - our
step), where the record prints the timer. Records without phase timers (DeepScaleR's) print the
step alone.

    PYTHONPATH=src:. python scripts/rl_verl_phases.py
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusizer import estimate_report

DATA = Path(__file__).resolve().parents[1] / "tests" / "core" / "data"
FILES = ("rl-time-blind3.json", "rl-time-blind4.json", "rl-time-blind5.json")
# our phase -> verl's timers of the same work (module docstring)
PHASES = {
    "rollout": ("gen",),
    "log_probs": ("old_log_prob", "ref", "values"),
    "training": ("update_actor", "update_critic"),
}


@dataclass(frozen=True)
class Row:
    """One phase of one record: seconds ours and published (None: no timer printed)."""

    record: str
    phase: str
    ours: float
    published: float | None
    timers: tuple[str, ...]


def timers_of(record: dict[str, Any]) -> dict[str, float]:
    """The record's printed verl timers, seconds (``measured_timers`` or ``timers``)."""
    return dict(record.get("measured_timers") or record.get("timers") or {})


def records() -> list[dict[str, Any]]:
    """Every verl step the blind rounds replay, in file order."""
    return [r for f in FILES for r in json.loads((DATA / f).read_text(encoding="utf-8"))]


def rows(record: dict[str, Any]) -> list[Row]:
    """Ours against the published timers, phase by phase, then the step."""
    rl = estimate_report(record["scenario"])["rl"]
    ours = {p["name"]: float(p["seconds"]) for p in rl["phases"]}
    t = timers_of(record)
    out = []
    for phase, names in PHASES.items():
        held = tuple(n for n in names if n in t)
        out.append(Row(record["id"], phase, ours[phase], sum(t[n] for n in held) if held else None, held))
    out.append(
        Row(record["id"], "step", float(rl["time_per_step_seconds"]), record["measured"]["step"], ("step",))
    )
    return out


def gap_shares(found: list[Row]) -> dict[str, float]:
    """Each timed phase's share of the step's shortfall (module docstring)."""
    step = next(r for r in found if r.phase == "step")
    short = (step.published or 0.0) - step.ours
    return {
        r.phase: (r.published - r.ours) / short
        for r in found
        if r.phase != "step" and r.published is not None
    }


def main() -> None:
    print(f"{'record':36s} {'phase':10s} {'published':>10s} {'ours':>9s} {'ratio':>6s} {'gap':>6s}  timers")
    for rec in records():
        found = rows(rec)
        shares = gap_shares(found)
        for r in found:
            pub = f"{r.published:10.2f}" if r.published is not None else f"{'-':>10s}"
            ratio = f"{r.ours / r.published:6.3f}" if r.published else f"{'-':>6s}"
            gap = f"{shares[r.phase]:6.2f}" if r.phase in shares else f"{'':6s}"
            print(
                f"{r.record[:36]:36s} {r.phase:10s} {pub} {r.ours:9.2f} {ratio} {gap}  {'+'.join(r.timers)}"
            )


if __name__ == "__main__":
    main()
