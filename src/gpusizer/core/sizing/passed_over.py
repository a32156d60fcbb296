"""The faster layout the default service level passed over on one count, and its words.

core/sizing/fill_serving.py ``_rank`` puts a layout that meets the default service level
(MLPerf Inference's server level, core/serving/service_level.py) above a faster one that misses
it, on the same GPUs (round 58, docs/evidence/rl.md). Round 58 then ran 8 H100 for Llama 3.1 70B
at 50 users on TP 2 x PP 2 x DP 2: 1,033 tokens/s against TP 4 x DP 2's 1,366 (24% fewer), for a
first token of 1.95 s against 2.22 s. Its Why said only "a faster one, 1,366 tokens/s, misses it".
The buyer could not see that the miss was 0.22 s of a 2 s level, nor which layout to state to run
it. The option now keeps that layout and what it misses, and core/sizing/reason.py
``_given_up`` words them (round 59).
"""

from __future__ import annotations

from dataclasses import replace

from .choice import Choice
from .service_level import ServiceLevel
from .unmet import speed_gaps


def faster_missing(found: list[Choice], level: ServiceLevel) -> Choice | None:
    """The fastest layout that meets the targets as the first does but misses the default level
    the first meets (None: the first misses it too, or is the fastest)."""
    first = found[0]
    if speed_gaps(first.pace, level):
        return None
    rate = first.pace.tokens_per_second or 0.0
    faster = [
        c
        for c in found
        if c.met == first.met and (c.pace.tokens_per_second or 0.0) > rate and speed_gaps(c.pace, level)
    ]
    return max(faster, key=lambda c: c.pace.tokens_per_second or 0.0, default=None)


def mark_passed_over(first: Choice, found: list[Choice], level: ServiceLevel) -> Choice:
    """``first`` with the faster layout the level passed over: its tokens/s (``passed_over``),
    its shape with EP and attention DP where used (``TP 1 x PP 1 x DP 8, EP 8``), and what it
    misses (core/sizing/unmet.py ``speed_gaps``: ``first token 2.22 s, 0.22 s over the 2 s
    asked``)."""
    faster = faster_missing(found, level)
    if faster is None:
        return first
    lay = faster.layout
    shape = f"TP {lay.tp} x PP {lay.pp}" + (f" x CP {lay.cp}" if lay.cp > 1 else "") + f" x DP {lay.dp}"
    shape += (f", EP {lay.ep}" if lay.ep > 1 else "") + (f", attention DP {lay.ad}" if lay.ad > 1 else "")
    misses = "; ".join(speed_gaps(faster.pace, level))
    rate = faster.pace.tokens_per_second or 0.0
    return replace(first, passed_over=rate, passed_over_layout=shape, passed_over_misses=misses)
