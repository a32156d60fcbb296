"""What a buyer reads beside an RL option: which pool bounds a split step, why a deadline is missed,
and whether the deadline holds across the step's evidence band.

A split RL step (``rl.placement: "split"``) runs its rollout pool (``rl.rollout.gpus``) beside its
training pool; with ``rl.overlap`` the step is the busier pool's (core/pipeline/rl_time.py,
NeMo RL's async GRPO and verl's one-step-off policy). The advice grows the training pool alone
(its count is the training pool's, core/sizing/compare_scale.py), so where the rollout bounds the
step more training GPUs leave the step as it is: GRPO of an 8B on 8 + 64 H100s rolls out 33.0 s a
step while the 64 training GPUs work 9.6 s of it; the same 72 GPUs split 39 + 33 step in 18.6 s
(the report's ``best_rollout_gpus``). A deadline missed "with up to 4,096 GPUs" then names the
wrong lever: the rollout pool's field does.

A colocated or split run meets ``targets.max_training_days`` at the estimate's step; the step's
evidence band (``speed/rl/<placement>``, core/sizing/option_band.py) says how long published runs
like it took against their estimates (colocated MoE policies 1.18-2.85x, docs/evidence/rl.md
section 8). Where the band's slow edge passes the deadline the option says so, as the memory
band's note does for a peak past the GPU (core/sizing/band_margin.py).
"""

from __future__ import annotations

from typing import Any

from ..model.specs import Scenario
from .deadline_words import deadline_adjective
from .unmet import DAY


def _busy(rl: dict[str, Any], pool: str) -> float:
    """Seconds of one step the ``pool``'s GPUs work (its phases, ``rl.phases``)."""
    return sum(float(p["seconds"]) for p in rl["phases"] if p["pool"] == pool)


def _days(seconds: float) -> str:
    return f"{seconds / DAY:,.1f} days" if seconds >= DAY else f"{seconds / 3600:,.1f} h"


def split_notes(rl: dict[str, Any] | None) -> list[str]:
    """RL split placement: the rollout pool comes on top of the GPUs counted and priced, and
    which pool bounds the step (each pool's busy seconds of the step), with the fastest split of
    the same GPUs where it is another than the one set (the report's ``split_options``)."""
    if rl is None or rl["placement"] != "split":
        return []
    pools = (
        f"RL split: the rollout pool's {rl['rollout_gpus']:,} GPUs come on top of these "
        f"({rl['total_gpus']:,} in all, rl_total_gpus); the count is the training pool's, the prices "
        "and costs are both pools'"
    )
    return [pools, bound_sentence(rl)]


def bound_sentence(rl: dict[str, Any]) -> str:
    """``the rollout pool bounds the step: ...``: the busier pool, the other's share of the step,
    and the fastest split of the same GPUs where it differs from the one set."""
    step = float(rl["time_per_step_seconds"])
    roll, train = _busy(rl, "rollout"), _busy(rl, "training")
    bound, idle = ("rollout", "training") if roll >= train else ("training", "rollout")
    gpus = {"rollout": rl["rollout_gpus"], "training": rl["training_gpus"]}
    busy = {"rollout": roll, "training": train}
    out = (
        f"the {bound} pool bounds the step ({busy[bound]:,.1f} s of the {step:,.1f} s step); the "
        f"{gpus[idle]:,} {idle} GPUs work {busy[idle]:,.1f} s of it ({busy[idle] / step:.0%})"
        if step > 0
        else f"the {bound} pool bounds the step"
    )
    mine, fastest = rl["rollout_gpus"], rl.get("best_rollout_gpus")
    best = next((o for o in rl.get("split_options") or [] if o["rollout_gpus"] == fastest), None)
    if best is not None and fastest != mine and best["time_per_step_seconds"] < step:
        out += (
            f"; of the same {rl['total_gpus']:,} GPUs, {best['rollout_gpus']:,} rollout and "
            f"{best['training_gpus']:,} training step in {best['time_per_step_seconds']:,.1f} s "
            f"(rl.rollout.gpus {best['rollout_gpus']:,}, rl_best_rollout_gpus)"
        )
    return out


def deadline_reason(s: Scenario, rl: dict[str, Any], share: float, top: int) -> str:
    """The sentence of an RL option that misses ``targets.max_training_days`` with up to ``top``
    training GPUs: the run's wall time and, for a split run whose rollout bounds the step, the
    rollout pool's own floor on the run and its field (more training GPUs do not lower it)."""
    limit = s.targets.max_training_days or 0.0
    run = float(rl["run_seconds"]) / (share or 1.0)
    out = (
        f"the run of {rl['steps']:,} steps takes {run / DAY:,.1f} days, {run / DAY - limit:,.1f} over "
        f"the {deadline_adjective(limit)} deadline; more training GPUs, up to {top:,}, do not meet it"
    )
    floor = rollout_floor(rl, share)
    return out if floor is None else f"{out}: {floor}"


def rollout_floor(rl: dict[str, Any] | None, share: float) -> str | None:
    """``the rollout pool of 8 GPUs (rl.rollout.gpus) bounds each step at ...``: a split run whose
    rollout pool is the busier, whose run no count of training GPUs shortens (None: colocated, or
    the training pool bounds the step)."""
    if rl is None or rl["placement"] != "split":
        return None
    roll = _busy(rl, "rollout")
    if roll < _busy(rl, "training"):
        return None
    floor = roll * rl["steps"] / (share or 1.0)
    return (
        f"the rollout pool of {rl['rollout_gpus']:,} GPUs (rl.rollout.gpus) bounds each step at "
        f"{roll:,.1f} s, {_days(floor)} for the run whatever the training pool; raise rl.rollout.gpus"
    )


def deadline_band_note(option: dict[str, Any], s: Scenario) -> str | None:
    """Where an RL option meets ``targets.max_training_days`` at the estimate but its run band
    (``rl_run_seconds_range``) reaches past it: the run and the band, over the effective share
    of wall time as the deadline is judged (core/sizing/compare_scale.py)."""
    limit = s.targets.max_training_days
    band = option.get("rl_run_seconds_range")
    run = option.get("rl_run_seconds")
    if limit is None or not band or run is None or option.get("targets_met") is not True:
        return None
    share = option.get("effective_time_share") or 1.0
    low, high = band[0] / share, band[1] / share
    if high <= limit * DAY:
        return None
    span = f"{_days(low)} to {_days(high)}"
    if low > limit * DAY:
        return (
            f"meets the {deadline_adjective(limit)}{_AT_ESTIMATE} ({_days(run / share)}), but published "
            f"runs like it took longer than their estimates: {_RUN_BAND}{span}, is past the deadline"
        )
    if band[0] > run:  # every edge slower than the estimate: the deadline met at it alone
        return (
            f"meets the {deadline_adjective(limit)}{_AT_ESTIMATE} ({_days(run / share)}), but published "
            f"runs like it took longer than their estimates, up to {_days(high)} ({_RUN_BAND}{span}, "
            f"wholly past the estimate)"
        )
    return (
        f"meets the {deadline_adjective(limit)}{_AT_ESTIMATE} ({_days(run / share)}); runs like it have "
        f"taken up to {_days(high)} ({_RUN_BAND}{span})"
    )


# the words that mark :func:`deadline_band_note`'s sentence among an option's notes
_AT_ESTIMATE = " deadline at the estimate"  # after "2-day" or "12-hour"
_RUN_BAND = "the RL run band, "


def priced_notes(notes: list[str], option: dict[str, Any]) -> list[str]:
    """The notes with :func:`deadline_band_note`'s sentence priced, once the option is
    (core/sizing/compare_rank.price_options): the run's cost at the edges of the band past the
    deadline (``training_cost_range``, core/sizing/compare_costs.run_cost_range: the hourly
    price x each edge of ``rl_run_seconds_range``) beside the estimate's (``training_cost``), on
    the basis asked. A budget signed for the deadline is signed for the band's slow edge too."""
    band, cost = option.get("training_cost_range"), option.get("training_cost")
    if not band or cost is None:
        return list(notes)
    priced = (
        f"; at the band's edges the run costs ${band[0]:,.0f}-${band[1]:,.0f} (${cost:,.0f} at the estimate)"
    )
    return [n + priced if _AT_ESTIMATE in n and _RUN_BAND in n else n for n in notes]


def rl_fields(rl: dict[str, Any] | None) -> dict[str, Any]:
    """RL post-training: the option's step, run and GPUs of both pools (its estimate's rl block)."""
    if rl is None:
        return {}
    return {
        "rl_time_per_step_seconds": rl["time_per_step_seconds"],
        "rl_run_seconds": rl["run_seconds"],
        "rl_total_gpus": rl["total_gpus"],
        "rl_best_rollout_gpus": rl.get("best_rollout_gpus"),
        "rl_tokens_trained_per_second": rl["tokens_trained_per_second"],
    }
