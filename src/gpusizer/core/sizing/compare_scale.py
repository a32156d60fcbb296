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
from dataclasses import dataclass
from typing import Any

from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..pipeline.work import builder_of
from ..speed.goodput import effective_time_share
from .adp_count import adp_count
from .deadline_words import deadline_adjective
from .fill import Filler
from .fill_serving import Choice
from .rl_notes import rollout_floor
from .rl_out_of_reach import beyond_reach
from .service_level import ServiceLevel
from .units import Unit, any_count

DAY = 86400.0


@dataclass(frozen=True)
class Growth:
    """The choices at the count decided, what decided it, and whether the targets hold."""

    choices: list[Choice]
    unit: Unit  # what the count is bought in
    least: int  # fewest GPUs that hold the work (memory), before units and targets
    count: int  # the count weighed (whole units)
    why: str  # "fewest" | "targets" | "deadline" | "run" | "attention_dp" (core/sizing/adp_count.py)
    met: bool | None = None  # targets met (None: none apply)
    notes: tuple[str, ...] = ()
    # targets missed and the search ran to the most GPUs allowed (more might meet them);
    # false when more GPUs stopped helping first
    at_top: bool = False
    tried: int | None = None  # serving targets missed: the most GPUs weighed (the best reached there)


def _goal(s: Scenario) -> tuple[str, tuple[str, ...]]:
    """What decides the count (``fewest`` | ``deadline`` | ``targets``) and notes."""
    t, w = s.targets, s.workload
    if w.trains:
        if t.max_training_days is None:
            return "fewest", ()
        if builder_of(w.info).times_run:
            return "run", ()  # the kind's estimate times its run (RL: rl.steps steps)
        if not w.training_tokens:
            return "fewest", ("targets.max_training_days needs workload.training_tokens: ignored",)
        return "deadline", ()
    return ("targets" if t.serving_active else "fewest"), ()


def grow(s: Scenario, filler: Filler, unit: Unit, least: int, max_gpus: int, keep: int) -> Growth:
    """The count and its layouts for a GPU on which ``least`` GPUs hold the work."""
    if unit.count(least) > max_gpus:  # not even one unit within the limit: count GPUs
        unit = any_count(unit.gpu, unit.spec)
    top = unit.top(max_gpus)
    start = unit.count(least)
    why, notes = _goal(s)
    if why == "fewest":
        wide = adp_count(s, filler, unit, start, top) if s.workload.serves else None
        if wide is not None:  # an attention-DP engine on more GPUs serves better (adp_count.py)
            return Growth(filler.best(wide, keep), unit, least, wide, "attention_dp", None, notes)
        return Growth(filler.best(start, keep), unit, least, start, why, None, notes)
    if why == "run":
        return _run_deadline(s, filler, unit, least, start, top, keep)
    if why == "deadline":
        days = s.targets.max_training_days or 0.0
        timed = filler.deadline(days * DAY, unit, top, keep)
        cut = filler.deadline_cut()  # the search ran out of its work budget (core/sizing/work.py)
        if timed:
            done = unit.count(timed[0].layout.gpus)
            timed = _fastest_on(s, filler, done, timed, keep, days * DAY)
            cut = cut if done > start else None  # no count below the fewest that hold it
            return Growth(timed, unit, least, done, why, True, (*notes, cut) if cut else notes)
        if cut:  # the budget ran out before this GPU: the count search's layouts, timed
            return _cut_deadline(s, filler, unit, least, (start, top), keep, notes)
        return Growth(
            filler.best(start, keep), unit, least, start, why, False, (*notes, _unmet(s, filler, top)), True
        )
    found, tried = _smallest(filler, unit, start, top)
    if found is not None:
        return Growth(filler.best(found, keep), unit, least, found, why, True, notes)
    shown = filler.best(start, keep)
    missed = (*notes, _unmet(s, filler, top))
    return Growth(shown, unit, least, start, why, False, missed, tried >= top, tried)


def _cut_deadline(
    s: Scenario,
    filler: Filler,
    unit: Unit,
    least: int,
    span: tuple[int, int],
    keep: int,
    notes: tuple[str, ...],
) -> Growth:
    """``targets.max_training_days`` where the deadline's search ran out of the call's work
    budget (core/sizing/work.py) before this GPU: the fewest whole units from ``span``'s start
    to its top on which the count search's fastest layout (:meth:`Filler.best`) trains in time,
    doubling then a bisection (as :func:`_run_deadline`). Mistral Small 3.1 24B fully
    fine-tuned at 8K on 2B tokens within 5 days (tests/cli/data/buyer/
    full-ft-mistral-small-24b-5days) spent the budget on the first GPUs of the catalog; 29 of
    46 rows then read the deadline missed, one MI325X platform "the 5-day deadline is missed;
    more GPUs do not meet it: 4,096 take 0.0 days" beside its own 0.8 days, 2 RTX 6000 Ada "more
    GPUs do not meet it: 32 take 2.1 days". Where the fewest units that hold the work meet the
    deadline, no search finds fewer and the row is the one compared alone: no work-limit note
    (Phi-4 14B fully fine-tuned within 3 days read it on its #1 MI325X platform, 3.2 h)."""
    start, top = span
    limit = (s.targets.max_training_days or 0.0) * DAY

    def met(n: int) -> bool:
        best = filler.best(n)
        secs = best[0].pace.time_seconds if best else None
        return secs is not None and secs / effective_time_share(s, best[0].layout.gpus) <= limit

    lo, n = 0, start
    while not met(n):
        if n >= top:
            return Growth(
                filler.best(start, keep),
                unit,
                least,
                start,
                "deadline",
                False,
                (*notes, _unmet(s, filler, top)),
                True,
            )
        lo, n = n, min(top, unit.count(max(2 * n, n + 1)))
    hi = n
    while lo and unit.count(lo + 1) < hi:
        mid = unit.count((lo + hi) // 2)
        mid = mid if lo < mid < hi else unit.count(lo + 1)
        hi, lo = (mid, lo) if met(mid) else (hi, mid)
    if hi == start:  # the fewest whole units that hold the work: no search finds fewer
        return Growth(filler.best(hi, keep), unit, least, hi, "deadline", True, notes)
    steps = filler.evaluator(0).work.deadline_limit
    cut = (
        f"the deadline's search stopped at its work limit ({steps:,} units of search work): the count is "
        "the fewest whole units on which the fastest layout meets the deadline"
    )
    return Growth(filler.best(hi, keep), unit, least, hi, "deadline", True, (*notes, cut))


def _fastest_on(
    s: Scenario, filler: Filler, n: int, timed: list[Choice], keep: int, limit: float
) -> list[Choice]:
    """The layouts the deadline's units run: the fastest on all ``n`` GPUs bought where it is
    faster than the deadline search's pick and still meets ``limit`` seconds of wall time, else
    that pick. The search keeps per shape the smallest DP fast enough, so its pick on the fewest
    units can leave the units' own fastest layout unweighed: Llama 3.2 1B pre-trained on 100B
    tokens within 14 days on one 8-GPU MI325X platform took TP 4 x DP 2 (4.0 days) where DP 8
    trains in 2.8 (this repo's step model), a tensor split no one runs on a 1B model."""
    best = filler.best(n, keep)
    if not best:
        return timed
    rate = lambda c: c.pace.tokens_per_second or 0.0  # noqa: E731
    secs = best[0].pace.time_seconds
    wall = math.inf if secs is None else secs / effective_time_share(s, best[0].layout.gpus)
    return best if rate(best[0]) > rate(timed[0]) and wall <= limit else timed


def _run_seconds(s: Scenario, filler: Filler, n: int) -> float:
    """The run's seconds on ``n`` GPUs as the kind's estimate of its fastest layout times it
    (inf: nothing fits), over the effective share of wall time (core/speed/goodput.py)."""
    best = filler.best(n)
    if not best:
        return math.inf
    builder = builder_of(s.workload.info)
    run = builder.run_seconds_of(best[0].scenario)
    if run is None:
        run = builder.run_seconds(estimate(best[0].scenario))
    return math.inf if run is None else run / effective_time_share(s, n)


def _pool_floor(s: Scenario, filler: Filler, n: int) -> str:
    """``; the rollout pool of 8 GPUs ... bounds each step``: a split RL run on ``n`` training GPUs
    whose fixed rollout pool, not the training count grown, sets the run (core/sizing/rl_notes.py)."""
    best = filler.best(n)
    floor = rollout_floor(estimate(best[0].scenario).rl, effective_time_share(s, n)) if best else None
    return f"; {floor}" if floor else ""


def _run_deadline(
    s: Scenario, filler: Filler, unit: Unit, least: int, start: int, top: int, keep: int
) -> Growth:
    """The fewest whole units whose run meets ``targets.max_training_days`` (a kind that times
    its own run: RL's steps x the step of the layout on that count): doubling, then a bisection,
    as for serving targets (:func:`_smallest`); the fewest that hold it when none does."""
    limit = (s.targets.max_training_days or 0.0) * DAY
    met = lambda n: _run_seconds(s, filler, n) <= limit  # noqa: E731
    lo, n = 0, start
    while not met(n):
        gone = beyond_reach(s, filler, n)  # a split run's rollout pool alone misses it
        if gone is not None:
            return Growth(filler.best(start, keep), unit, least, start, "deadline", False, (gone,))
        if n >= top:
            days = _run_seconds(s, filler, top) / DAY
            why = (
                f"the {deadline_adjective(s.targets.max_training_days or 0.0)} "
                f"deadline needs more than {top:,} GPUs"
                f"{f': {days:,.3g} days on {top:,}' if days < math.inf else ''}; the fewest that hold "
                "the work are shown" + _pool_floor(s, filler, top)
            )
            return Growth(filler.best(start, keep), unit, least, start, "deadline", False, (why,), True)
        lo, n = n, min(top, unit.count(max(2 * n, n + 1)))
    hi = n
    while lo and unit.count(lo + 1) < hi:
        mid = unit.count((lo + hi) // 2)
        mid = mid if lo < mid < hi else unit.count(lo + 1)
        hi, lo = (mid, lo) if met(mid) else (hi, mid)
    return Growth(filler.best(hi, keep), unit, least, hi, "deadline", True)


def _unmet(s: Scenario, filler: Filler, top: int) -> str:
    if s.workload.trains:
        best = filler.best(top)
        days = (
            # one decimal, as the option's own reason says the same run (core/sizing/unmet.py):
            # "3 days on 8" beside "8 take 3.1 days" read as two runs
            f": {best[0].pace.time_seconds / effective_time_share(s, top) / DAY:,.1f} days on {top:,}"
            if best and best[0].pace.time_seconds
            else ""
        )
        return (
            f"the {deadline_adjective(s.targets.max_training_days or 0.0)} "
            f"deadline needs more than {top:,} GPUs{days}; "
            "the fewest that hold the work are shown"
        )
    return f"targets not met with up to {top:,} GPUs; the fewest that hold the model are shown"


def _faster(before: dict[Any, tuple[float, float]], after: dict[Any, tuple[float, float]]) -> bool:
    """Whether a width newly holds the users, or one serves them 1% faster (either speed)."""
    for width, (per_user, ttft) in after.items():
        old = before.get(width)
        if old is None or per_user > 1.01 * old[0] or ttft > old[1] + 0.01 * abs(old[1]):
            return True
    return False


def _smallest(filler: Filler, unit: Unit, start: int, top: int) -> tuple[int | None, int]:
    """The smallest count of whole units from ``start`` up to ``top`` on which a layout meets
    the serving targets (None when none does): doubling, then a bisection; and the largest
    count tried."""
    lo, n, seen = 0, start, None
    while not filler.serves(n):
        lo, now = n, filler.progress(n)
        # doubling the GPUs served no user faster: more will not either. While no width holds
        # the users yet, more GPUs hold more of them: keep growing (1.1B at 32k on RTX 4090s
        # stopped at 38 users, with "nothing fits" at 39)
        if n >= top or (seen and not _faster(seen, now)):
            return None, n
        seen = now
        n = min(top, unit.count(max(2 * n, n + 1)))
    hi = n
    while lo and unit.count(lo + 1) < hi:
        mid = unit.count((lo + hi) // 2)
        mid = mid if lo < mid < hi else unit.count(lo + 1)
        if filler.serves(mid):
            hi = mid
        else:
            lo = mid
    return hi, hi


def smallest_serving(filler: Filler, least: int, bought: int, level: ServiceLevel | None = None) -> int:
    """The fewest GPUs (not whole units) from ``least`` to ``bought`` on which a layout meets
    the serving targets, and ``level`` (the default service level) where given: the need,
    apart from the units bought (a bisection; ``bought`` meets them)."""
    lo, hi = least - 1, bought
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if filler.serves(mid, level):
            hi = mid
        else:
            lo = mid
    return hi
