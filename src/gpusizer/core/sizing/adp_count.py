"""The count of an attention-DP engine where the fewest GPUs serve badly (core/sizing/compare_scale.py
``grow``, serving without targets of the user's).

The count is the fewest whole units that hold the work, and the stated default service level
ranks and labels options without growing it (core/sizing/service_level.py). An attention-DP
engine (core/sizing/layout_adp.py) may hold the work only on more GPUs than the plain layouts,
because its EP must divide the experts (DeepSeek-V3 with 32 redundant experts: 72 ranks of 288,
not 64) while a deep pipeline holds the same users' KV on fewer: 18,432 users of 2,100 tokens fit
61 H100s as 61 pipeline stages (a 930 s first token, 744 tokens/s) and 72 as the SGLang team's
attention-DP decode engine (367 s, 2,479 tokens/s: LMSYS blog 2025-05-05). A buyer signs the
second: more GPUs, each serving three times the tokens.

So where the fewest count's fastest layout misses the default service level, the fewest whole
units on which an attention-DP engine holds the work are weighed once, and taken where that
engine is better on every count a buyer of a fixed set of users weighs: a first token no later, a
request no longer end to end (first token plus the output at the time per token), and more tokens
per second per GPU bought (a lower cost per token on one GPU type); the layout on that count is
then the fastest there, as on any count. Nothing else moves the count; without an attention-DP
engine, or with the default met, the answer is as before.
"""

from __future__ import annotations

from ..model.specs import Scenario
from .fill import Filler
from .fill_serving import Choice
from .layout_adp import adp_widths
from .option import Pace
from .service_level import default_target
from .units import Unit
from .unmet import speed_gaps


def _end_to_end(s: Scenario, p: Pace) -> float | None:
    """Seconds from a request's arrival to its last token (None: not timed)."""
    if p.ttft_seconds is None or p.tpot_seconds is None:
        return None
    return p.ttft_seconds + max(0, s.workload.generated_tokens - 1) * p.tpot_seconds


def _better(s: Scenario, wide: Choice, wide_gpus: int, few: Choice, few_gpus: int) -> bool:
    """Whether ``wide`` on ``wide_gpus`` bought beats ``few`` on ``few_gpus`` on all three counts."""
    a, b = wide.pace, few.pace
    end_a, end_b = _end_to_end(s, a), _end_to_end(s, b)
    if a.ttft_seconds is None or b.ttft_seconds is None or end_a is None or end_b is None:
        return False
    rate = (a.tokens_per_second or 0.0) / wide_gpus > (b.tokens_per_second or 0.0) / few_gpus
    return a.ttft_seconds <= b.ttft_seconds and end_a <= end_b and rate


def adp_count(s: Scenario, filler: Filler, unit: Unit, start: int, top: int) -> int | None:
    """The whole-unit count of the fewest attention-DP engine, where the module's rule takes it
    over ``start`` (the fewest that hold the work); None: ``start`` stands."""
    level, widths = default_target(s), adp_widths(s, top)
    if level is None or not widths:
        return None
    found = filler.best(start)
    if not found or not speed_gaps(found[0].pace, level):
        return None
    for width in widths:
        n = unit.count(width)
        if n <= start or n > top:
            continue  # weighed at ``start`` already, or past the most GPUs asked
        engine = filler.adp_engine(width, n)
        if engine is None:
            continue  # does not hold the work: a wider engine may
        # the fill on n then takes the fastest there, this engine or one serving more tokens
        return n if _better(s, engine, n, found[0], start) else None
    return None
