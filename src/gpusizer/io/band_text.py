"""The bands of the derived figures in words (the report's ``*_range`` keys of
core/evidence/derived.py): a cost, GPU-hours, a p99, a P/D pool's figures, and a fit verdict
that flips inside the memory band. One wording for the CLI, the reports and the window."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..core.evidence.bands import band
from ..core.evidence.derived import PD_REGIMES
from ..core.evidence.ranges import estimate_evidence
from ..core.model.result import Estimate
from .evidence_text import OUTSIDE, TOOK, banded
from .units import to_unit


def usd(v: float) -> str:
    """``$1,234``: whole dollars, as the CLI's run costs were before they carried a band."""
    return f"${v:,.0f}"


def ms(v: float) -> str:
    """``432`` (milliseconds of seconds ``v``, the unit said beside)."""
    return f"{v * 1e3:,.0f}"


def ms_one(v: float) -> str:
    """``4.4`` (milliseconds of seconds ``v``, one decimal)."""
    return f"{v * 1e3:,.1f}"


def with_band(
    block: Mapping[str, Any],
    key: str,
    fmt: Callable[[float], str],
    time: bool = False,
    text: Callable[[float], str] | None = None,
) -> str:
    """``text(block[key])`` (``fmt`` where None) with its ``key_range`` in ``fmt`` in
    parentheses (evidence_text.banded: a time outside its band reads "runs like this took")."""
    v = block[key]
    return banded((text or fmt)(v), block.get(key + "_range"), fmt, v, TOOK if time else OUTSIDE)


def banded_aside(
    text: str,
    rng: Sequence[float] | None,
    fmt: Callable[[float], str],
    value: float | None = None,
    lead: str = TOOK,
) -> str:
    """:func:`evidence_text.banded` for a figure already inside parentheses (a run's GPU-hours
    beside its time): "3.61 GPU-hours, runs like this 2.84-4.19" ("runs like this took …" with
    ``value`` outside the band), not "(3.61 GPU-hours (2.84-4.19))"; ``text`` without a band."""
    if not rng:
        return text
    inside = value is None or min(rng[0], rng[1]) <= value <= max(rng[0], rng[1])
    head = "runs like this" if inside else lead.rstrip(":")
    return f"{text}, {head} {fmt(rng[0])}-{fmt(rng[1])}"


def flip_words(
    peak: float, capacity: float, rng: Sequence[float] | None, fits: bool, unit: str = "GiB"
) -> str | None:
    """Where the memory verdict flips inside the peak's band ``rng`` (bytes): "it would not fit
    at the band's high end, 80.35 GiB", or "it would fit at the band's low end, 14.88 GiB" (the
    verdict itself, with its headroom or shortfall, is said once beside: :func:`with_flip`).
    None where the verdict holds across the band, there is no band, or the verdict is not the
    peak's (``fits`` False with the peak within ``capacity``: the engine does not start, or the
    work does not run for another reason)."""
    if not rng:
        return None
    if peak <= capacity and fits and rng[1] > capacity:
        return f"it would not fit at the band's high end, {to_unit(rng[1], unit):,.2f} {unit}"
    if peak > capacity and rng[0] <= capacity:
        return f"it would fit at the band's low end, {to_unit(rng[0], unit):,.2f} {unit}"
    return None


def with_flip(verdict: str, flip: str | None) -> str:
    """The verdict line with its flip in parentheses: "… — does not fit, 2.12 GiB short (it
    would fit at the band's low end, 14.88 GiB)"; ``verdict`` alone where ``flip`` is None."""
    return f"{verdict} ({flip})" if flip else verdict


def fit_band_line(rep: Mapping[str, Any], unit: str = "GiB") -> str | None:
    """:func:`flip_words` of an estimate report (its ``per_gpu.total_range``, the GPU's
    ``memory_bytes``, ``fits``; the ``fits_at_band_*`` keys say the same per end)."""
    sv = rep.get("serving")
    fits = bool(rep["fits"]) and (sv is None or bool(sv.get("starts", True)))
    pg = rep["per_gpu"]
    return flip_words(pg["total"], rep["gpu"]["memory_bytes"], pg.get("total_range"), fits, unit)


def fit_band_of(est: Estimate, unit: str = "GiB") -> str | None:
    """:func:`flip_words` of an estimate (the window's verdict and the report's)."""
    rng = estimate_evidence(est)[0].band.size_range(est.memory.total)
    fits = est.fits and (est.serving is None or est.serving.starts)
    return flip_words(est.memory.total, est.capacity_bytes, rng, fits, unit)


# what each P/D pool's figure is, in the words below (core/evidence/derived.py ``PD_REGIMES``)
_PD_WORDS = {
    "disaggregated_ttft_seconds": "first token",
    "disaggregated_tpot_seconds": "per token",
    "disaggregated_tokens_per_second": "tokens/s",
}


def pd_band_words() -> str:
    """Where the P/D pools' bands come from (core/evidence/derived.py ``pd_band``): "; bands of
    the P/D regimes (213 first token, 194 per token, 12 tokens/s published P/D figures)" (the
    regimes' ids, "speed/disagg/*", read as a path in the window's summary) where each has its
    band, the aggregated regime's where none has, both said where some have."""
    own = {k: band(r) for k, r in PD_REGIMES.items()}
    if not any(b.has_band for b in own.values()):
        return "; bands of the aggregated regime (no published P/D figures banded)"
    counts = ", ".join(f"{b.figures:,} {_PD_WORDS[k]}" for k, b in own.items() if b.has_band)
    words = f"; bands of the P/D regimes ({counts} published P/D figures)"
    return words if all(b.has_band for b in own.values()) else words + ", else of the aggregated regime"
