"""Each comparison option's evidence band (core/evidence): where published runs like it
landed, for ``plan``, ``compare_gpus``, the Hardware tab and its CSV.

The option's peak and speeds get the ranges the report gives (core/evidence/ranges.py): a ratio
r = estimate / published puts a published figure at estimate / r, so a size or speed spans
[value / p90, value / p10] and a time [value x p10, value x p90]. The regimes are those of the
scenario on the option's GPU (memory: framework family x workload; speed: engine x GPU vendor x
batch regime). ``*_confidence`` says how sure each is (``measured`` | ``validated`` |
``extrapolated`` | ``none``, core/evidence/confidence.py).

RL post-training (``workload.kind: "rl"``): the speed regime is ``speed/rl/colocated/<dense|moe>``
(by the policy's kind) or ``speed/rl/split`` (core/evidence/regimes.py ``rl_speed_regime``), a band
of whole published steps (scripts/evidence_bands.py; docs/evidence/rl.md section 8), so the
step, the run and the whole step's trained tokens per second get it (``rl_*_range``, as the
report's ``rl.time_per_step_seconds_range`` and ``rl.run_seconds_range``, core/evidence/ranges.py)
and the training phase's ``tokens_per_second`` gets none: that phase is a part of the step the
band is of (the report's ``compute.time_seconds_range`` is null for RL likewise).

The pessimistic edge (``sort="cost_band"`` / ``"speed_band"``, core/sizing/compare_rank.py)
ranks on the slow edge of the speed band: cost per unit of work scales with 1 / speed, so at
that edge it is cost x speed / slow speed.
"""

from __future__ import annotations

from typing import Any

from ..evidence.bands import Band
from ..evidence.confidence import memory_evidence, speed_evidence
from ..model.specs import GPUSpec, Scenario

BAND_FIELDS = (
    "per_gpu_total_range",
    "tokens_per_second_range",
    "tokens_per_second_per_user_range",
    "ttft_seconds_range",
    "tpot_seconds_range",
    "time_seconds_range",
    "memory_confidence",
    "speed_confidence",
    # RL: the step band of speed/rl/... (rl_speed_regime) on the step, the run and the whole step's rate
    "rl_time_per_step_seconds_range",
    "rl_run_seconds_range",
    "rl_tokens_trained_per_second_range",
)
_RL_RANGES = BAND_FIELDS[-3:]
_SIZES = ("tokens_per_second", "tokens_per_second_per_user")
_TIMES = ("ttft_seconds", "tpot_seconds", "time_seconds")


def _pair(r: tuple[float, float] | None, whole: bool = False) -> list[float] | None:
    if r is None:
        return None
    return [round(r[0]), round(r[1])] if whole else [r[0], r[1]]


def option_band(option: dict[str, Any], s: Scenario, spec: GPUSpec) -> dict[str, Any]:
    """The band fields (:data:`BAND_FIELDS`) of one option dict of scenario ``s`` on ``spec``
    (null ranges where the option does not fit or the regime has no band)."""
    mem, speed = memory_evidence(s, spec), speed_evidence(s, spec)
    out: dict[str, Any] = {"memory_confidence": mem.confidence, "speed_confidence": speed.confidence}
    total = option.get("per_gpu_total")
    out["per_gpu_total_range"] = _pair(mem.band.size_range(total), whole=True) if total else None
    out |= _speed_ranges(option, speed.band)
    out |= _rl_ranges(option, speed.band)
    return out


def _rl_ranges(option: dict[str, Any], b: Band) -> dict[str, Any]:
    """RL: the step band on the step and run (seconds) and the whole step's rate (tokens/s);
    null for other kinds, and none on the training phase's rate, a part of the step."""
    out: dict[str, Any] = dict.fromkeys(_RL_RANGES)
    if option.get("rl_run_seconds") is None:
        return out
    for k in ("rl_time_per_step_seconds", "rl_run_seconds"):
        v = option.get(k)
        out[f"{k}_range"] = _pair(b.time_range(v)) if v else None
    rate = option.get("rl_tokens_trained_per_second")
    out["rl_tokens_trained_per_second_range"] = _pair(b.size_range(rate)) if rate else None
    return out | {"tokens_per_second_range": None}


def _speed_ranges(option: dict[str, Any], b: Band) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in _SIZES:
        v = option.get(k)
        out[f"{k}_range"] = _pair(b.size_range(v)) if v else None
    for k in _TIMES:
        v = option.get(k)
        out[f"{k}_range"] = _pair(b.time_range(v)) if v else None
    return out


def slow_edge(option: dict[str, Any]) -> float | None:
    """The speed an option is ranked by (tokens/s per user serving, trained tokens/s), at the
    slow edge of its band; the estimate itself where there is no band."""
    for k in ("tokens_per_second_per_user", "tokens_per_second"):
        if option.get(k) is not None:
            rng = option.get(f"{k}_range")
            return float(rng[0]) if rng else float(option[k])
    return None


def cost_at_slow_edge(option: dict[str, Any]) -> float | None:
    """Cost per million tokens at the slow edge of the speed band (None: unpriced)."""
    cost = option.get("cost_per_million_tokens")
    for k in ("tokens_per_second_per_user", "tokens_per_second"):
        v, rng = option.get(k), option.get(f"{k}_range")
        if v is not None:
            return None if cost is None else (cost * v / rng[0] if rng and rng[0] > 0 else cost)
    return cost


def band_head(option: dict[str, Any]) -> tuple[bool, bool]:
    """What ranks first at the pessimistic edge: options whose peak band stays within the GPU,
    then those with a speed band (an extrapolated speed has no slow edge to rank by)."""
    speed = any(option.get(f"{k}_range") for k in ("tokens_per_second_per_user", "tokens_per_second"))
    return passes_memory(option), not speed


def passes_memory(option: dict[str, Any]) -> bool:
    """The upper edge of the option's peak band passes its GPU's usable memory."""
    rng = option.get("per_gpu_total_range")
    return bool(option.get("fits") and rng and rng[1] > option["capacity_bytes"])
