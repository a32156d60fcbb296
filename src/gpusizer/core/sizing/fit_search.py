"""The smallest or largest value of a sorted list whose peak memory fits, in few estimates.

Used by the layout search (smallest DP per GPU) and the advisor's limits (largest batch,
micro-batch, context). Each ``f(value)`` is a full estimate, so the searches guess where the
answer lies from the shape of memory: near A + B/DP in DP (ZeRO shards states over DP),
near-affine in batch and tokens.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence


def _split(values: Sequence[int], t: dict[int, float], lo: int, hi: int, cap: float) -> int:
    """Next probe in ``values[lo..hi]``: the peak is near A + B/DP, so interpolate in 1/DP
    between the known neighbours (bisect when that is not possible)."""
    tl, tr = t[lo - 1], t[hi]
    if not (math.isfinite(tl) and tl > tr):
        return (lo + hi) // 2
    x = 1 / values[hi] + (cap - tr) * (1 / values[lo - 1] - 1 / values[hi]) / (tl - tr)
    return min(hi - 1, max(lo, bisect.bisect_left(values, 1 / x) if x > 0 else hi))


def smallest_fitting(
    f: Callable[[int], float],
    values: Sequence[int],
    caps: dict[str, tuple[int, int]],
    floor1: float | None = None,
) -> dict[str, int]:
    """Per GPU (capacity, largest value allowed), the smallest value whose peak fits. The peak
    must not grow along ``values``, except from 1 to 2 if ``floor1`` (a lower bound of the peak
    at 1) is given. Each GPU is checked at its largest value first (one estimate refutes every
    GPU it does not fit), then all are searched at once; a poor probe is followed by bisection."""
    out: dict[str, int] = {}
    if floor1 is not None and values and values[0] == 1:
        if any(floor1 <= c for c, _ in caps.values()):
            t1 = f(1)
            out = {g: 1 for g, (c, _) in caps.items() if t1 <= c}
        values = values[1:]
    t: dict[int, float] = {}
    live: dict[str, int] = {}
    for g, (c, top) in sorted(caps.items(), key=lambda kv: -kv[1][1]):
        i = bisect.bisect_right(values, top) - 1
        if g in out or i < 0 or max((v for j, v in t.items() if j >= i), default=0) > c:
            continue
        t[i] = t[i] if i in t else f(values[i])
        if t[i] <= c:
            live[g] = c
    if not live:
        return out
    t[0] = f(values[0])
    out.update({g: values[0] for g, c in live.items() if t[0] <= c})
    top = max(j for j, v in t.items() if v <= min(live.values()))
    stack = [(1, top, {g: c for g, c in live.items() if t[0] > c}, True)]
    while stack:
        lo, hi, cs, interpolate = stack.pop()
        if cs and lo == hi:
            out.update(dict.fromkeys(cs, values[lo]))
        elif cs:
            mid = (
                _split(values, t, lo, hi, sorted(cs.values())[len(cs) // 2])
                if interpolate
                else (lo + hi) // 2
            )
            t[mid], half = f(values[mid]), (hi - lo + 1) / 2
            stack.append((lo, mid, {g: c for g, c in cs.items() if t[mid] <= c}, mid - lo < half))
            stack.append((mid + 1, hi, {g: c for g, c in cs.items() if t[mid] > c}, hi - mid < half))
    return out


def largest_fitting(f: Callable[[int], float], values: Sequence[int], start: int, cap: float) -> int:
    """Largest of sorted ``values`` whose peak fits ``cap`` (``values[start]`` fits). Memory is
    near-affine in batch and tokens: a secant guess usually lands it in ~4 estimates."""
    if f(values[-1]) <= cap:
        return values[-1]
    lo, hi = start, len(values) - 1
    j = min(hi, max(lo + 1, bisect.bisect_left(values, 2 * values[lo])))
    t0, tj = f(values[lo]), f(values[j])
    lo, hi = (j, hi) if tj <= cap else (lo, j)
    if math.isfinite(tj) and tj > t0:
        at = bisect.bisect_right(values, values[start] + (cap - t0) * (values[j] - values[start]) / (tj - t0))
        for i in (at - 1, at):
            if lo < i < hi:
                lo, hi = (i, hi) if f(values[i]) <= cap else (lo, i)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if f(values[mid]) <= cap else (lo, mid)
    return values[lo]
