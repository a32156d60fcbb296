"""The bands of the figures a report derives from a banded one (scenario-format.md "Evidence
and bands"): a cost, a GPU-hour count, a p99 or end-to-end time, a disaggregated pool's first
token and token time, the RL throughputs, and whether the peak still fits at the band's ends.

Each is the figure's own regime band (core/evidence/bands.py) carried through the arithmetic
that makes the figure, never a new number: a time T whose estimate scales with the inverse of
the regime's speed lies in ``Band.time_range(T)``, a speed in ``Band.size_range``. A serving cost
per million tokens is price x GPUs / tokens per second (core/serving/engine_memory.py), a time in
this sense; a training or RL run's GPU-hours and cost are its seconds x GPUs x price
(core/speed/compute.py, core/pipeline/rl_report.py). The P/D pools each run the scenario's
step model (core/serving/disaggregated.py: "Its step model is the scenario's at that width"),
so each carries the band of the published P/D figures of its metric (``PD_REGIMES``:
``speed/disagg/<metric>``, scripts/evidence_bands.py ``_disagg``, the figures of
scripts/disagg_figures.py) where the bands file holds one, and the serving regime's speed band
otherwise; the wording names the band's regime (io/serving_text.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .bands import Band, band
from .regimes import DISAGG

# (block, figure, kind): "time" grows as the regime's speed falls, "speed" with it
_SERVING = (
    ("cost_per_million_tokens", "time"),
    ("ttft_p99_seconds", "time"),
    ("e2e_seconds", "time"),
)
_SPLIT = (
    ("disaggregated_ttft_seconds", "time"),
    ("disaggregated_tpot_seconds", "time"),
    ("disaggregated_tokens_per_second", "speed"),
)
# the P/D pools' figure -> the regime of the published P/D figures of its metric
PD_REGIMES = {
    "disaggregated_ttft_seconds": f"speed/{DISAGG}/ttft",
    "disaggregated_tpot_seconds": f"speed/{DISAGG}/tpot",
    "disaggregated_tokens_per_second": f"speed/{DISAGG}/throughput",
}
_RUN = (("gpu_hours", "time"), ("cost", "time"))
_TRAIN = (
    ("wall_time_seconds", "time"),
    ("tokens_per_second", "speed"),
    ("tokens_per_second_per_gpu", "speed"),
)
_RL_SPEED = (("tokens_generated_per_second", "speed"), ("tokens_trained_per_second", "speed"))


def _ranged(b: Band, v: Any, kind: str) -> list[float] | None:
    """[lower, upper] of a figure ``v`` in the band (None: no band, or no figure)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not v:
        return None
    r = b.time_range(v) if kind == "time" else b.size_range(v)
    return [r[0], r[1]] if r else None


def _add(block: dict[str, Any], b: Band, figures: Sequence[tuple[str, str]]) -> None:
    for key, kind in figures:
        if key in block:
            block[key + "_range"] = _ranged(b, block[key], kind)


def add_serving_derived(sv: dict[str, Any], b: Band) -> None:
    """Add the serving block's derived ranges (cost per million tokens, p99 and end-to-end
    times at the serving regime's band ``b``; the P/D pools' first token, token time and
    tokens/s at their P/D regimes' bands, ``pd_band``) to a ``serving`` block dict."""
    _add(sv, b, _SERVING)
    if sv.get("disaggregated_prefill_gpus"):
        for key, kind in _SPLIT:
            _add(sv, pd_band(key, b), ((key, kind),))


def pd_band(key: str, serving: Band) -> Band:
    """The band of a P/D pool's figure ``key``: its P/D regime's (``PD_REGIMES``) where the bands
    file gives that regime a band, else the serving regime's ``serving``."""
    own = band(PD_REGIMES[key])
    return own if own.has_band else serving


def add_derived(report: dict[str, Any], b: Band, capacity: int) -> None:
    """Add the derived figures' ``*_range`` keys to a report (each null where the regime has no
    band or the figure is absent or zero) and ``fits_at_band_low`` / ``fits_at_band_high``:
    whether the peak per GPU at the memory band's low and high end is within ``capacity``
    (the GPU's usable bytes, as ``headroom_bytes`` is; null without a memory band): the peak
    alone, not the engine's start check or the work's other limits (``fits``, ``fit_reason``).
    A training run's wall time (its restarts, ``effective_time_share``) scales with its time."""
    sv = report.get("serving")
    if sv is not None:
        add_serving_derived(sv, b)
    rl = report.get("rl")
    if rl is not None:
        _add(rl, b, _RUN + _RL_SPEED)
    elif sv is None and report["compute"].get("time_seconds_range"):
        _add(report["compute"], b, _RUN + _TRAIN)
    rng = report["per_gpu"].get("total_range")
    report["fits_at_band_low"] = rng[0] <= capacity if rng else None
    report["fits_at_band_high"] = rng[1] <= capacity if rng else None
