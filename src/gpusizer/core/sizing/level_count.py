"""The count of whole units that meets the stated default service level, where a serving option
meets the user's own targets but misses the level (core/sizing/service_level.py).

The level ranks and labels options; it does not grow the count, which only the user's own
targets do (core/serving/service_level.py). A row that misses it said by how much and nothing
of what would meet it. Llama 3.3 70B FP8 for 200 users at 30 tokens/s each on vLLM
(tests/cli/data/buyer/serve-llama-3.3-70b-amd-200-30tps), read on AMD for the least money: 2
MI325X platforms (16 GPUs, TP 4 x DP 4) serve the 200 at 36.6 tokens/s each but reach the first
token in 2.32 s, past the level's 2 s, so they rank after one MI355X platform at $68.80/h, while 3
MI325X platforms (24 GPUs, TP 8 x DP 3) meet the level too at $46.80/h; the buyer read "0.32 s
over the 2 s asked" and no count. The count kept is the option's (the configuration is the
contract, and its figures and rank are of it); the reason now names the fewest whole units that
meet the level and its speeds (``level_count``), and ``compare`` and ``plan`` price them.

The search is the user's targets' own (core/sizing/compare_scale.py ``_smallest``): whole units
doubled from the count bought until a layout meets the targets and the level
(core/sizing/fill_serving.py ``serves``), then a bisection. It stops where a doubling brings the
missed half of the level no nearer (the first token 1 % earlier, tokens/s per user 1 % nearer
its floor; a half already met is no progress), or at the most GPUs an option may have, and then
says the nearest count weighed. Where another layout on the count bought meets the level (the
search keeps the fastest), that layout is named. Since round 58 the fill ranks a layout that
meets the level first on one count (core/sizing/fill_serving.py ``_rank``), so a row whose
count holds one runs it; the naming stays for a count the fill did not rank that way.
"""

from __future__ import annotations

from dataclasses import replace

from ..model.specs import Scenario
from .fill import Filler
from .fill_serving import Choice
from .level_count_fields import LevelCount
from .option import SizingOption, layout_label
from .service_level import ServiceLevel, default_target
from .units import Unit
from .unmet import speed_gaps

_ALL = 1 << 16  # every layout weighed on a count (``Filler.best``'s keep)


def level_count(s: Scenario, filler: Filler, unit: Unit, bought: int, top: int) -> LevelCount | None:
    """The fewest whole units from ``bought`` (which miss the default level) up to ``top`` that
    meet the targets and the level (None: no level applies, or ``bought`` meets it)."""
    level = default_target(s)
    if level is None or s.workload.trains:
        return None
    if filler.serves(bought, level):  # another layout on the count bought meets it
        c = _meeting(filler, bought, level)
        return None if c is None else _answer(c, bought, "", bought)
    lo, n, seen = bought, bought, _closest(filler, bought, level)
    while True:
        if n >= top:
            return _missed(filler, n, level, n, bought)
        n = min(top, unit.count(max(2 * n, n + 1)))
        if filler.serves(n, level):
            break
        now = _closest(filler, n, level)
        if not _nearer(seen, now):  # the count before came as near: its speeds are said
            return _missed(filler, lo, level, n, bought)
        lo, seen = n, now
    hi = n
    while unit.count(lo + 1) < hi:
        mid = unit.count((lo + hi) // 2)
        mid = mid if lo < mid < hi else unit.count(lo + 1)
        hi, lo = (mid, lo) if filler.serves(mid, level) else (hi, mid)
    c = _meeting(filler, hi, level)
    what = unit.what(hi)
    what += "" if what.endswith(("GPU", "GPUs")) else f" ({hi:,} GPUs)"
    return _answer(c, hi, what, hi) if c is not None else None


def _meeting(filler: Filler, n: int, level: ServiceLevel) -> Choice | None:
    """The fastest layout on ``n`` GPUs that meets the targets and ``level``."""
    return next((c for c in filler.best(n, _ALL) if c.met and not speed_gaps(c.pace, level)), None)


def _closest(filler: Filler, n: int, level: ServiceLevel) -> tuple[float, float]:
    """(the earliest first token, the most tokens/s per user) of the layouts on ``n`` GPUs that
    meet the targets, each only where the level asks for it and only up to the level (a half
    already met is no progress: Llama 3.3 70B on A40s for 50 users doubled to 1,024 GPUs on
    tokens/s per user, long past the 5 asked, with the first token stuck at 2.9 s)."""
    met = [c.pace for c in filler.best(n, _ALL) if c.met]
    ttft = min((p.ttft_seconds for p in met if p.ttft_seconds is not None), default=float("inf"))
    rate = max((p.tokens_per_second_per_user or 0.0 for p in met), default=0.0)
    limit, floor = level.max_ttft_seconds, level.min_tokens_per_second_per_user
    return (0.0 if limit is None else max(ttft, limit), 0.0 if floor is None else min(rate, floor))


def _nearer(before: tuple[float, float], after: tuple[float, float]) -> bool:
    """Whether doubling brought a first token 1 % earlier or a user 1 % faster."""
    return after[0] < 0.99 * before[0] or after[1] > 1.01 * before[1]


def _missed(filler: Filler, n: int, level: ServiceLevel, weighed: int, bought: int) -> LevelCount | None:
    """No count up to ``weighed`` meets the level: on ``n`` (the nearest) the layout that comes
    closest (the earliest first token where the level asks for one, else the fastest user)."""
    met = [c for c in filler.best(n, _ALL) if c.met]
    if not met:
        return None
    if level.max_ttft_seconds is not None:
        c = min(met, key=lambda c: float("inf") if c.pace.ttft_seconds is None else c.pace.ttft_seconds)
    else:
        c = max(met, key=lambda c: c.pace.tokens_per_second_per_user or 0.0)
    return replace(_answer(c, None, "", n), weighed=weighed, bought=bought)


def _answer(c: Choice, gpus: int | None, what: str, tried: int) -> LevelCount:
    par = c.scenario.parallelism.model_dump(mode="json")
    p = c.pace
    return LevelCount(
        gpus,
        what,
        layout_label(par, False),
        p.ttft_seconds,
        p.tokens_per_second_per_user,
        p.tokens_per_second,
        tried,
        tried,
        tried,
    )


def with_level(option: SizingOption, s: Scenario, filler: Filler, unit: Unit, top: int) -> SizingOption:
    """``option`` with its :func:`level_count` beside its gap, where it meets the user's targets
    (or none are set) and misses only the default level; else as it was. A row queued by a stated
    request cap keeps its setting (``batch_lever``, core/sizing/batch_lever.py), which meets the
    level on fewer GPUs than more replicas of the cap do."""
    if option.unmet != "targets" or option.default_target_met is not False or option.targets_met is False:
        return option
    if option.batch_lever is not None:  # a replica queues: the engine setting says what meets it
        return option
    found = level_count(s, filler, unit, option.gpus or 0, top)
    level = default_target(s)
    if found is None or level is None:
        return option
    return replace(option, level_count=found, unmet_reason=f"{option.unmet_reason}{found.words(level)}")
