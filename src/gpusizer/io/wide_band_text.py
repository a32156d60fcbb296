"""A speed band wider than the speed itself, in words: the compare table's band cells, the
window's band cells and their tooltip, and one line per regime under the comparison.

A row's band is the 80 % spread of its regime's replayed published figures around its estimate
(core/evidence/bands.py): speeds span [v / p90, v / p10], times [t x p10, t x p90]. Where that
spread of speeds is wider than the speed itself (1 / p10 - 1 / p90 > 1: ``speed/vllm/nvidia/moe``
at 0.67-12.85 puts 50.9 tokens/s per user at 4.0-76.0, and a cost of $2.14 a million tokens at
$1.44-$27.57), printing the range reads as a forecast it is not. Its cells say so instead, and
the line under the table names the regime and how many published figures it rests on (README
"How far to trust it": one run of that regime reads 4.2-13x fast, docs/evidence/speed.md §105).
The band itself is unchanged: ``--json`` and the report keep each ``*_range``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.evidence.bands import Band
from ..core.evidence.confidence import speed_evidence
from ..core.evidence.regimes import regime_label
from ..core.model.presets import gpu_spec
from ..core.model.specs import Scenario

WIDE_CELL = "poorly evidenced"
# the speed each row's band is read on: serving's per user, then its total, training's time,
# RL's step; the first the row has decides
_SPEEDS = ("tokens_per_second_per_user", "tokens_per_second")
_TIMES = ("time_seconds", "rl_time_per_step_seconds")
# bands of the peak are memory's, not speed's: never marked
_MEMORY = "per_gpu_total_range"
TOP = 10  # the rows a buyer reads (io/compare_caveats.py)


def spread(option: dict[str, Any]) -> float | None:
    """1 / p10 - 1 / p90 of the row's speed band (its width over the speed), read back from
    the row's own range; None where the row has no speed band."""
    for k in _SPEEDS:
        v, rng = option.get(k), option.get(f"{k}_range")
        if v and rng:
            return (rng[1] - rng[0]) / v
    for k in _TIMES:
        t, rng = option.get(k), option.get(f"{k}_range")
        if t and rng and rng[0] > 0 and rng[1] > 0:
            return t / rng[0] - t / rng[1]
    return None


def is_wide(option: dict[str, Any]) -> bool:
    """Whether the row's speed band is wider than its speed (:func:`spread` above 1)."""
    w = spread(option)
    return w is not None and w > 1.0


def wide_cell(option: dict[str, Any], key: str) -> bool:
    """Whether a band column's cell (``*_range``, not the peak's) of the row reads
    :data:`WIDE_CELL` rather than its range: every band the speed band scales (cost, time,
    energy, first token, per token) is as wide as it."""
    return key.endswith("_range") and key != _MEMORY and bool(option.get(key)) and is_wide(option)


def wide_tip(option: dict[str, Any]) -> str:
    """The band cell's tooltip where :func:`wide_cell`: what the range is and why it is not shown."""
    rng = option.get("tokens_per_second_per_user_range") or option.get("tokens_per_second_range")
    said = f" ({rng[0]:,.1f}-{rng[1]:,.1f} tokens/s)" if rng else ""
    return (
        f"Poorly evidenced: the speed band{said} is wider than the speed itself, so its range is "
        "no forecast; the How sure line names the regime and its count of published figures "
        "(README 'How far to trust it'). The export keeps the range."
    )


def row_band(option: dict[str, Any]) -> tuple[float, float] | None:
    """(p10, p90) of estimate / published that put the row's speed at its range."""
    for k in _SPEEDS:
        v, rng = option.get(k), option.get(f"{k}_range")
        if v and rng and rng[0] > 0 and rng[1] > 0:
            return v / rng[1], v / rng[0]
    for k in _TIMES:
        t, rng = option.get(k), option.get(f"{k}_range")
        if t and rng:
            return rng[0] / t, rng[1] / t
    return None


def _regime(option: dict[str, Any], s: Scenario) -> Band | None:
    """The row's speed regime (core/evidence/confidence.py ``speed_evidence`` on its GPU), where
    its band is the one the row's range was drawn from (a GPU outside the catalog: none)."""
    try:
        b = speed_evidence(s, gpu_spec(option["gpu"])).band
    except KeyError:
        return None
    own = row_band(option)
    if not (b.has_band and own and b.p10 and b.p90):
        return None
    return b if abs(own[0] / b.p10 - 1) < 1e-3 and abs(own[1] / b.p90 - 1) < 1e-3 else None


def wide_band_lines(options: Sequence[dict[str, Any]], s: Scenario) -> list[str]:
    """One line per speed regime among the top rows whose band :func:`is_wide`: the rows, the
    regime, its count of replayed published figures and its band of estimate / published."""
    rows: dict[str, list[str]] = {}
    bands: dict[str, Band | None] = {}
    for o in options[:TOP]:
        if o.get("fits") and is_wide(o):
            b = _regime(o, s)
            key = b.regime if b else ""
            rows.setdefault(key, []).append(o["gpu"])
            bands[key] = b
    return [_line(gpus, bands[k]) for k, gpus in rows.items()]


def _line(gpus: list[str], b: Band | None) -> str:
    rest = (
        f"{regime_label(b.regime)} ({b.regime}) rests on {b.figures:,} replayed published figures, "
        f"and 80 % of them put the estimate at {b.p10:.2f}-{b.p90:.2f}x the published speed"
        if b and b.p10 and b.p90
        else "its regime's replayed published figures spread that far"
    )
    return (
        f"Speed poorly evidenced ({', '.join(gpus)}): {rest}: a band wider than the speed itself, so "
        f"its cells say '{WIDE_CELL}' rather than a range; rank on the estimate and measure before "
        "signing (--json keeps the range)"
    )
