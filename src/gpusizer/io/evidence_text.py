"""The evidence band and the "How sure" line in words (the report's ``evidence`` block and
``*_range`` fields, scenario-format.md "Evidence and bands"), for the CLI, the reports and the
window."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .units import to_unit

EVIDENCE_TIP = (
    "Bands: 80 % of the project's replayed published figures of this regime fall inside "
    "(docs/evidence/serving.md, speed.md, training.md, rl.md; README 'How far to trust it')."
)


# where the estimate lies outside its own band the bare parenthesis read as a typo ("43.5 s
# (44.2 s-1.2 min)"), so there it says what the numbers are, as the memory chart's "runs like
# this: 108.1-119.0 GiB" does
OUTSIDE = "runs like this:"
TOOK = "runs like this took"
# why an estimate can sit outside its own band (the Hardware tab's band cells say it once, in
# their tooltip): the band is the published runs' spread around this regime's estimates, so a
# regime the model reads fast or slow has its band off to one side
OUTSIDE_WHY = (
    "The estimate lies outside this band: the band is where 80 % of the replayed published "
    "runs like this one landed, and in this regime they ran apart from the estimate "
    "(docs/evidence/*.md); the ranking stays on the estimate."
)


def _span(low: str, high: str, sep: str) -> str:
    """``3.5-6.0 h`` where both ends carry the same unit word (``3.5 h``, ``6.0 h``), as a range
    is written; ``44.2 s-1.2 min`` where the units differ, ``$52-$124`` (no unit word) and
    ``1 h 5 min-2 h`` (a compound duration) as they come."""
    lo_num, _, lo_unit = low.rpartition(" ")
    hi_num, _, hi_unit = high.rpartition(" ")
    one_word = lo_num and hi_num and " " not in lo_num + hi_num  # not "1 h 20 min"
    if one_word and lo_unit == hi_unit:
        return f"{lo_num}{sep}{hi_num} {hi_unit}"
    return f"{low}{sep}{high}"


def band_words(
    rng: Sequence[float],
    fmt: Callable[[float], str],
    value: float | None = None,
    lead: str = OUTSIDE,
    sep: str = "-",
) -> str:
    """What goes in a band's parenthesis: ``17.1-25.0``; where the estimate ``value`` (in the
    band's own units) lies outside it, ``runs like this: 17.1-25.0`` (``lead``: ``TOOK`` for a
    time). The band is where 80 % of the replayed published runs like this one landed
    (core/evidence/bands.py, docs/evidence/*.md); a biased regime's estimate can miss it."""
    span = _span(fmt(rng[0]), fmt(rng[1]), sep)
    if value is None or min(rng[0], rng[1]) <= value <= max(rng[0], rng[1]):
        return span
    return f"{lead} {span}"


def banded(
    text: str,
    rng: Sequence[float] | None,
    fmt: Callable[[float], str],
    value: float | None = None,
    lead: str = OUTSIDE,
) -> str:
    """``22.4 tokens/s`` -> ``22.4 tokens/s (17.1-25.0)``; unchanged without a band. With the
    estimate's ``value`` outside the band: ``43.5 s (runs like this took 44.2 s-1.2 min)``
    (``band_words``)."""
    if not rng:
        return text
    return f"{text} ({band_words(rng, fmt, value, lead)})"


def peak_band(rep: Mapping[str, Any], unit: str = "GiB") -> str | None:
    """``73.86-81.09 GiB``: where published runs like this one peaked (None: no band)."""
    rng = rep["per_gpu"].get("total_range")
    if not rng:
        return None
    return f"{to_unit(rng[0], unit):,.2f}-{to_unit(rng[1], unit):,.2f} {unit}"


def _one(kind: str, ev: Mapping[str, Any]) -> str:
    return f"{kind} {ev['confidence']} ({ev['reason']})"


def how_sure(rep: Mapping[str, Any]) -> str:
    """ "How sure: memory validated (71 replayed published figures of ...); speed extrapolated
    (vLLM never measured on AMD GPUs ...)"."""
    ev = rep.get("evidence")
    if not ev:
        return "How sure: no evidence block"
    return f"How sure: {_one('memory', ev)}; {_one('speed', ev['speed'])}"


def how_sure_short(ev: Mapping[str, Any]) -> str:
    """ "How sure: memory measured (71) · speed extrapolated (0)" from an ``evidence`` block,
    each with its figure count (and its parent's where the band is pooled): the window's
    one-line form (the reasons go in its tooltip)."""
    sp = ev["speed"]
    return f"How sure: memory {ev['confidence']} ({_count(ev)}) · speed {sp['confidence']} ({_count(sp)})"


def _count(ev: Mapping[str, Any]) -> str:
    """ "71", or "6; band of 83" for a regime pooled into its parent's band."""
    pool = ev.get("pooled_from")
    return f"{ev['figures']:,}; band of {pool['figures']:,}" if pool else f"{ev['figures']:,}"


def _figures_of(ev: Mapping[str, Any]) -> str:
    """ "71 replayed figures of <label>", or for a regime pooled into its parent's band "83
    replayed figures of <parent>, pooled (<label> has 6)"."""
    pool = ev.get("pooled_from")
    if pool:
        own = f"{ev['label']} has {ev['figures']:,}"
        return f"{pool['figures']:,} replayed figures of {pool['label']}, pooled ({own})"
    return f"{ev['figures']:,} replayed figures of {ev['label']}"


def how_sure_lines(rep: Mapping[str, Any], unit: str = "GiB") -> list[str]:
    """The report's "How sure" section: the confidence of memory and speed, each band."""
    ev = rep.get("evidence")
    if not ev:
        return []
    out = [_one("Memory:", ev), _one("Speed:", ev["speed"])]
    peak = peak_band(rep, unit)
    if peak:
        out.append(
            f"Peak per GPU of runs like this: {peak} (80 % of {_figures_of(ev)}: "
            f"estimate / published {ev['band'][0]:.2f}-{ev['band'][1]:.2f})"
        )
    sp = ev["speed"]
    if sp["band"]:
        out.append(
            f"Speeds of runs like this: estimate / published {sp['band'][0]:.2f}-{sp['band'][1]:.2f} "
            f"(80 % of {_figures_of(sp)}; above 1 the estimate runs fast)"
        )
    out.append("The figures: docs/evidence/ (serving.md, speed.md, training.md, rl.md) and tests/core/data.")
    return out
