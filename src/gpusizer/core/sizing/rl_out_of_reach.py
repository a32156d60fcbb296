"""A split RL run's deadline that no count of training GPUs meets, said as soon as one count
shows it (core/sizing/compare_scale.py ``_run_deadline``).

Under ``rl.placement: "split"`` the rollout pool (``rl.rollout.gpus``) generates every step's
responses whatever the training pool's size: the step lasts at least the rollout pool's
generation (verl's one-step-off and fully async recipes overlap the two pools' phases, the
synchronous ones run them one after the other: either way the step is no shorter than
generation; docs/evidence/rl.md, the split sections). So where ``rl.steps`` generations alone,
over the effective share of wall time (core/speed/goodput.py, which only falls as GPUs are
added), take longer than ``targets.max_training_days``, more training GPUs cannot meet it. The
deadline's doubling search went on to its top (4,096 GPUs) regardless: DAPO of Qwen3 30B-A3B
with 20K-token responses on 16 rollout GPUs spent 80 s of CPU in ``compare``, most of it on
GPUs whose rollout pool alone takes 22 days of a 10-day deadline. Only the ``rollout`` phase is
counted (seconds per step, ``rl.phases``); the weight hand-off (``weight_sync``) depends on the
training layout, so the bound leaves it out and stays a lower bound.
"""

from __future__ import annotations

from typing import Any

from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..speed.goodput import effective_time_share
from .deadline_words import deadline_adjective
from .fill import Filler
from .rl_notes import rollout_floor
from .unmet import DAY


def generation_seconds(rl: dict[str, Any] | None) -> float | None:
    """Seconds of one step the rollout pool generates (None: not a split run)."""
    if rl is None or rl.get("placement") != "split":
        return None
    return sum(float(p["seconds"]) for p in rl["phases"] if p["name"] == "rollout")


def out_of_reach(rl: dict[str, Any] | None, share: float, days: float) -> str | None:
    """The unmet note of a split run whose ``rl.steps`` generations take longer than ``days``
    (the deadline) over ``share`` of the wall time, whatever the training pool (None: the bound
    is within the deadline, or not a split run)."""
    gen = generation_seconds(rl)
    if rl is None or gen is None:
        return None
    floor = gen * int(rl["steps"]) / (share or 1.0)
    if floor <= days * DAY:
        return None
    pool = rollout_floor(rl, share) or (
        f"the rollout pool of {int(rl['rollout_gpus']):,} GPUs (rl.rollout.gpus) bounds each step at "
        f"{gen:,.1f} s at least, {floor / DAY:,.1f} days for the run whatever the training pool; "
        "raise rl.rollout.gpus"
    )
    return (
        f"the {deadline_adjective(days)} deadline is out of reach at any count of training GPUs; "
        f"the fewest that hold the work are shown; {pool}"
    )


def beyond_reach(s: Scenario, filler: Filler, n: int) -> str | None:
    """:func:`out_of_reach` for the fastest layout ``filler`` finds on ``n`` GPUs."""
    best = filler.best(n)
    rl = estimate(best[0].scenario).rl if best else None
    return out_of_reach(rl, effective_time_share(s, n), s.targets.max_training_days or 0.0)
