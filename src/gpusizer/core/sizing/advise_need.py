"""What one GPU type's option says of the work's need and its targets (core/sizing/advise.py
``GpuAdvice``): whether the targets and the default service level are met and why not, the
fewest GPUs and layout the work needs apart from what is bought, and, for training, the share
of wall time spent training. Split from core/sizing/advise.py for size; the fields are as they
were there.
"""

from __future__ import annotations

from typing import Any

from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..pipeline.work import builder_of
from ..speed.goodput import effective_time_share
from .compare_scale import DAY, Growth, smallest_serving
from .fill import Filler
from .fill_serving import Choice
from .layout_space import Layout
from .option import Pace, layout_label
from .practical import cap_words
from .rl_notes import deadline_reason
from .service_level import ServiceLevel, default_target
from .unmet import speed_gaps, targets_reason


def judged(
    s: Scenario,
    filler: Filler,
    caps: tuple[int, int],
    c: Choice,
    growth: Growth,
    rl: dict[str, Any] | None,
    queued: str = "",
) -> dict[str, Any]:
    """``unmet``, ``unmet_reason`` and ``default_target_met`` of choice ``c`` of ``s``: the
    user's targets first, then the stated default service level (core/sizing/service_level.py).
    ``caps``: the most GPUs an option may have and the ``max_gpus`` asked (the first is lower
    where a practical cap holds, core/sizing/practical.py). ``rl``: the choice's estimate's RL
    block (its run, not a training pace, misses a deadline). ``queued``: the clause saying that
    a replica runs fewer requests at once than it is given (core/sizing/served.py), after the
    speeds missed."""
    most, max_gpus = caps
    out: dict[str, Any] = {"unmet": None, "unmet_reason": None, "default_target_met": None}
    if growth.met is False:
        top = growth.unit.top(most)
        if rl is not None:
            why = deadline_reason(s, rl, effective_time_share(s, c.layout.gpus), top)
        else:
            tried = most_tried(filler, top) if s.workload.trains else best_tried(filler, growth)
            why = targets_reason(s, c.pace, top, c.layout.gpus, growth.at_top, tried) + queued
        out |= {"unmet": "targets", "unmet_reason": why}
        if growth.at_top and most < max_gpus:  # the cap, not the model, stops it
            out |= {"unmet": "practical_limit", "unmet_reason": f"{why}; {cap_words(most, filler.g.spec)}"}
    level = default_target(s)
    if level is not None:
        gaps = speed_gaps(c.pace, level)
        out["default_target_met"] = not gaps
        if gaps and out["unmet"] is None:
            out["unmet"] = "targets"
            out["unmet_reason"] = f"misses the default target ({level.words()}): " + "; ".join(gaps) + queued
    return out


def best_tried(filler: Filler, growth: Growth) -> tuple[int, Pace] | None:
    """Serving targets missed: the most GPUs weighed and the fastest layout's speed there."""
    if growth.tried is None or growth.at_top:
        return None
    best = filler.best(growth.tried)
    return (best[0].layout.gpus, best[0].pace) if best else None


def most_tried(filler: Filler, top: int) -> tuple[int, Pace] | None:
    """Training deadline missed: the most GPUs weighed (``top``) and the fastest layout's pace
    there, as the count search's note times them (core/sizing/compare_scale.py)."""
    best = filler.best(top)
    return (best[0].layout.gpus, best[0].pace) if best else None


def goodput(s: Scenario, c: Choice) -> dict[str, Any]:
    """Training: the effective share of wall time and the run's wall time (seconds)."""
    if not s.workload.trains:
        return {}
    share = effective_time_share(s, c.layout.gpus)
    ideal = c.pace.time_seconds
    return {"effective_time_share": share, "wall_time_seconds": None if ideal is None else ideal / share}


def needed(
    s: Scenario, fewest: dict[int, Layout], filler: Filler, c: Choice, growth: Growth, bought: int
) -> dict[str, Any]:
    """What the work needs apart from what is bought: the fewest that hold it (``fewest``: the
    fewest GPUs' layout of each variant, with no target or targets that cannot be met) or the
    layout that meets the targets."""
    training = s.workload.trains
    if growth.why == "fewest" or growth.met is False:
        v, lay = min(fewest.items(), key=lambda item: item[1].gpus)
        par = {
            "tensor": lay.tp,
            "pipeline": lay.pp,
            "context": lay.cp,
            "data": lay.dp,
            "zero_stage": lay.zero,
            "expert": lay.ep,
            "attention_data": lay.ad,
            "expert_per_replica": lay.er,
            "recompute": lay.recompute,
        } | _offload_fields(filler, v, lay, training)
        n, label = lay.gpus, layout_label(par, training)
    else:
        n, label = (
            c.layout.gpus,
            layout_label(c.scenario.parallelism.model_dump(mode="json"), training),
        )
        if growth.why == "targets":  # the fewest GPUs, not units, that meet them
            n = smallest_serving(filler, growth.least, c.layout.gpus, _level_met(s, c))
        elif growth.why == "deadline" and _run_time(s, c) is not None and _fewest_units(growth, bought):
            # one unit bought: the need is the buyer's or renter's question (2 of a server's 8);
            # past one, the spare is a part of the last unit and the bisection's cost (a search
            # per step, 0.15 s of CPU for a 70B pre-training over 49 GPU types, measured before
            # the catalog grew to 63) buys little
            n = _smallest_in_time(s, filler, growth, c.layout.gpus)
        best = filler.best(n) if n != c.layout.gpus else []
        if best:
            label = layout_label(best[0].scenario.parallelism.model_dump(mode="json"), training)
    return {"needed_gpus": n, "needed_layout": label, "spare_gpus": max(0, bought - n)}


def _level_met(s: Scenario, c: Choice) -> ServiceLevel | None:
    """The default service level (core/sizing/service_level.py) where the choice bought meets
    it, so its need meets it too: Llama 3.1 8B for 4 users on llama.cpp at 4,096 tokens of
    context runs 1 request at a time a replica (core/sizing/served.py), so one MI325X queues
    the 4 (the 4th's first token after about 6 s), and its need read "1 x MI325X", the renting
    note "the targets are met on 1 GPU", while the row met the level on 4 replicas and the
    one-GPU RTX 3090 was refused for the same queue. None: no level, or the row misses it."""
    level = default_target(s)
    return None if level is None or speed_gaps(c.pace, level) else level


def _smallest_in_time(s: Scenario, filler: Filler, growth: Growth, gpus: int) -> int:
    """The fewest GPUs (not whole units) whose fastest layout trains ``workload.training_tokens``
    within ``targets.max_training_days`` in wall time, searched below ``gpus`` only within the
    unit bought (fewer units did not meet it: the deadline search's answer). QLoRA of a
    70B within 2 days read "need 8" on an 8-GPU MI325X platform where 2 GPUs, the fewest that
    hold it, train it in hours: a renter of GPUs rents the need."""
    limit = (s.targets.max_training_days or 0.0) * DAY
    lo = gpus - 1
    while lo >= growth.least and growth.unit.count(lo) == growth.unit.count(gpus):
        lo -= 1
    lo = max(lo, growth.least - 1)

    def met(n: int) -> bool:
        best = filler.best(n)
        secs = _run_time(s, best[0]) if best else None
        return secs is not None and secs / effective_time_share(s, best[0].layout.gpus) <= limit

    hi = gpus
    while hi - lo > 1:
        mid = (lo + hi) // 2
        hi, lo = (mid, lo) if met(mid) else (hi, mid)
    return hi


def _run_time(s: Scenario, c: Choice) -> float | None:
    """The run's ideal seconds on choice ``c``: a kind that times its own run (RL: ``rl.steps``
    whole steps, rollout and refit included, core/pipeline/work_rl.py) by its estimate, as the
    deadline's count was grown on it; else the training pace. An RL option's pace has no run
    time, so GRPO of Qwen3 8B split read "need 8" H100s where 4 training GPUs at ZeRO 3 (beside
    the 8 of the rollout) finish the 2,000 steps in 4.0 of 7 days: a renter rents the need."""
    builder = builder_of(s.workload.info)
    return builder.run_seconds(estimate(c.scenario)) if builder.times_run else c.pace.time_seconds


def _fewest_units(growth: Growth, bought: int) -> bool:
    """Whether ``bought`` is in the fewest units any count is (one unit; a split RL run's
    rollout pool beside it can make that two: core/sizing/units.py ``PoolUnit``)."""
    return growth.unit.units(bought) == growth.unit.units(1)


# the host-RAM fields the Layout column names (core/sizing/option.py ``_offloads``)
_OFFLOADS = ("activation_offload", "offload_parameters", "offload_optimizer")


def _offload_fields(filler: Filler, v: int, lay: Layout, training: bool) -> dict[str, Any]:
    """The offloads variant ``v`` of the technique ladder (core/sizing/savings.py) turns on, so
    the Need line names the same layout as the Layout column (``..., offloaded checkpoints,
    optimizer offload``); none where the label does not name them (serving)."""
    if not training:
        return {}
    par = filler.scenario(v, lay, None).parallelism.model_dump(mode="json")
    return {k: par[k] for k in _OFFLOADS if k in par}
