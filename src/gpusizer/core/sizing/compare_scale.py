"""Growing a sizing past the fewest GPUs: the count of one GPU type the advice recommends
(core/sizing/advise.py).

Without targets: the fewest that hold the work, in whole purchase units. With targets, the
smallest count of whole units at which the fastest layout (core/sizing/fill.py) meets them:

- serving (``targets.users``, ``min_tokens_per_second_per_user``, ``max_ttft_seconds``): the
  users are spread over the replicas (``workload.batch_size`` is per replica); the count
  doubles until a layout meets the targets, then a bisection finds the smallest;
- training (``targets.max_training_days``): data-parallel replicas and nodes grow until
  ``workload.training_tokens`` are trained in time: per layout shape the smallest DP fast
  enough (core/sizing/fill.Filler.deadline); the fewest whole units of any shape win.

A count that meets the targets stays met on more GPUs (a layout of fewer GPUs is still
weighed), so the bisection finds the smallest. No option goes past ``max_gpus`` (4,096):
when even that many cannot meet the targets, the fewest that hold the work are shown and
the option says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..model.specs import Scenario
from .fill import Choice, Filler
from .units import Unit, any_count

DAY = 86400.0


@dataclass(frozen=True)
class Growth:
    """The choices at the count decided, what decided it, and whether the targets hold."""

    choices: list[Choice]
    unit: Unit  # what the count is bought in
    least: int  # fewest GPUs that hold the work (memory), before units and targets
    count: int  # the count weighed (whole units)
    why: str  # "fewest" | "targets" | "deadline"
    met: bool | None = None  # targets met (None: none apply)
    notes: tuple[str, ...] = ()


Goal = Callable[[Choice], bool]


def _goal(s: Scenario) -> tuple[Goal | None, str, tuple[str, ...]]:
    """(predicate on the fastest layout of a count, what it is, notes)."""
    t, w = s.targets, s.workload
    if w.is_training:
        if t.max_training_days is None:
            return None, "fewest", ()
        if not w.training_tokens:
            return None, "fewest", ("targets.max_training_days needs workload.training_tokens: ignored",)
        limit = t.max_training_days * DAY
        return (lambda c: c.pace.time_seconds is not None and c.pace.time_seconds <= limit), "deadline", ()
    if not t.serving_active:
        return None, "fewest", ()
    return (lambda c: c.met), "targets", ()


def grow(s: Scenario, filler: Filler, unit: Unit, least: int, max_gpus: int, keep: int) -> Growth:
    """The count and its layouts for a GPU on which ``least`` GPUs hold the work."""
    if unit.count(least) > max_gpus:  # not even one unit within the limit: count GPUs
        unit = any_count(unit.gpu, unit.spec)
    top = unit.top(max_gpus)
    start = unit.count(least)
    goal, why, notes = _goal(s)
    if goal is None:
        return Growth(filler.best(start, keep), unit, least, start, why, None, notes)
    if why == "deadline":
        days = s.targets.max_training_days or 0.0
        timed = filler.deadline(days * DAY, unit, top, keep)
        if timed:
            return Growth(timed, unit, least, unit.count(timed[0].layout.gpus), why, True, notes)
        return Growth(
            filler.best(start, keep), unit, least, start, why, False, (*notes, _unmet(s, filler, top))
        )
    found = _smallest(s, filler, unit, start, top, goal)
    if found is not None:
        return Growth(filler.best(found, keep), unit, least, found, why, True, notes)
    shown = filler.best(start, keep)
    return Growth(shown, unit, least, start, why, False, (*notes, _unmet(s, filler, top)))


def _unmet(s: Scenario, filler: Filler, top: int) -> str:
    if s.workload.is_training:
        best = filler.best(top)
        days = (
            f": {best[0].pace.time_seconds / DAY:,.0f} days on {top:,}"
            if best and best[0].pace.time_seconds
            else ""
        )
        return (
            f"the {s.targets.max_training_days:g}-day deadline needs more than {top:,} GPUs{days}; "
            "the fewest that hold the work are shown"
        )
    return f"targets not met with up to {top:,} GPUs; the fewest that hold the model are shown"


def _smallest(s: Scenario, filler: Filler, unit: Unit, start: int, top: int, goal: Goal) -> int | None:
    """The smallest count of whole units from ``start`` up to ``top`` whose fastest layout
    meets ``goal`` (None when none does)."""

    def ok(n: int) -> tuple[bool, Choice | None]:
        got = filler.best(n)
        return (bool(got) and goal(got[0])), (got[0] if got else None)

    lo, n = 0, start
    while True:
        good, c = ok(n)
        if good:
            break
        lo = n
        if n >= top:
            return None
        guess = 2 * n
        time = c.pace.time_seconds if c is not None else None
        if s.workload.is_training and time and s.targets.max_training_days:
            guess = math.ceil(n * time / (s.targets.max_training_days * DAY))
        n = min(top, unit.count(max(guess, n + 1)))
    hi = n
    while lo and unit.count(lo + 1) < hi:
        mid = unit.count((lo + hi) // 2)
        mid = mid if lo < mid < hi else unit.count(lo + 1)
        if ok(mid)[0]:
            hi = mid
        else:
            lo = mid
    return hi
