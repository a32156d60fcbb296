"""The note of a training option whose memory-saving techniques make its run cost more
GPU-hours than the lighter rung on the next whole count.

The advice sizes a training run on the fewest whole units that hold it and meet the deadline,
turning techniques on (core/sizing/savings.py ``STEPS``) where nothing fits that count
without them. Each technique trades time for memory: full recompute runs the forward again
(about a third more FLOPs, Korthikanti et al. 2022, arXiv:2205.05198 §4), and ZeRO-Offload's
CPU Adam steps on the host (Ren et al. 2021, arXiv:2101.06840 §4.2; DeepSpeed
``deepspeed/ops/adam/cpu_adam.py``). Where the slowdown outgrows the GPUs saved, more GPUs
without the technique cost less per run, since renting prices a GPU-hour: full DPO of Qwen3
32B on 8 H100 (tests/cli/data/buyer/dpo-qwen3-32b-full-8-vs-16) was offered with optimizer
offload at 5.1 h, 40.9 GPU-hours; 16 H100 with gradient checkpointing alone run it in 1.3 h,
20.3 GPU-hours, half the cost at any price per GPU-hour of that GPU.

The option keeps its count, figures and rank (the fewest GPUs is the advice's contract); the
note names the next count on which a lighter rung runs it, its time and GPU-hours, where
those are at least :data:`LESS` fewer.
"""

from __future__ import annotations

from .fill import Filler
from .fill_serving import Choice
from .savings import Variant, describe
from .units import Unit

PREFIX = "cheaper per run on more GPUs: "  # the note's start, which the window's line looks for
LESS = 0.10  # the share of GPU-hours saved below which the note is noise beside the bands
TRIES = 2  # next whole counts tried, up to twice the option's


def _hours(seconds: float) -> str:
    """``5.1 h``, ``48.6 min``, ``2.3 days``: a run's time as the Time column gives it."""
    if seconds >= 86400:
        return f"{seconds / 86400:,.1f} days"
    return f"{seconds / 3600:,.1f} h" if seconds >= 3600 else f"{seconds / 60:,.1f} min"


def lighter_run(filler: Filler, variants: list[Variant], c: Choice, unit: Unit, most: int) -> Choice | None:
    """The fastest layout of a lighter rung than ``c``'s on the next whole count (up to
    :data:`TRIES` counts, at most twice ``c``'s and ``most``) where it needs at least
    :data:`LESS` fewer GPU-hours than ``c`` and meets the deadline; None otherwise."""
    s = variants[0].scenario
    if not s.workload.trains or s.workload.info.phased or c.variant == 0 or not variants[c.variant].names:
        return None
    mine = c.pace.time_seconds
    if not mine:
        return None
    bought = unit.count(c.layout.gpus)
    limit = (s.targets.max_training_days or float("inf")) * 86400
    n = bought
    for _ in range(TRIES):
        n = unit.count(n + 1)
        if n > min(most, 2 * bought):
            return None
        alt = filler.best(n)
        if not alt or alt[0].variant >= c.variant or not alt[0].pace.time_seconds:
            continue
        theirs = alt[0].pace.time_seconds
        cheaper = theirs * unit.count(alt[0].layout.gpus) <= (1 - LESS) * mine * bought
        return alt[0] if cheaper and theirs <= limit else None
    return None


def lighter_run_note(filler: Filler, variants: list[Variant], c: Choice, unit: Unit, most: int) -> list[str]:
    """``[sentence]`` naming the lighter rung's count, time and GPU-hours beside the option's
    (empty where :func:`lighter_run` finds none)."""
    alt = lighter_run(filler, variants, c, unit, most)
    if alt is None or not alt.pace.time_seconds or not c.pace.time_seconds:
        return []
    n, bought = unit.count(alt.layout.gpus), unit.count(c.layout.gpus)
    mine, theirs = c.pace.time_seconds * bought / 3600, alt.pace.time_seconds * n / 3600
    dropped = [w for w in variants[c.variant].names if w not in variants[alt.variant].names]
    kept = describe(dict(variants[alt.variant].changes))
    deadline = " and meet the deadline" if _deadline(variants) else ""
    return [
        f"{PREFIX}on {n:,} GPUs without {_listed(dropped)}"
        f"{' (' + kept + ')' if kept else ''} it trains in {_hours(alt.pace.time_seconds)}, "
        f"{theirs:,.1f} GPU-hours against {mine:,.1f} here ({1 - theirs / mine:.0%} less at "
        f"the same price per GPU-hour); this option is the fewest GPUs that hold it{deadline}"
    ]


def _deadline(variants: list[Variant]) -> bool:
    """Whether the scenario states a training deadline."""
    return variants[0].scenario.targets.max_training_days is not None


def _listed(words: list[str]) -> str:
    """``a, b or c``."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
