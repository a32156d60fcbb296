"""What one GPU type's option says of the work's need and its targets (core/sizing/advise.py
``GpuAdvice``): whether the targets and the default service level are met and why not, the
fewest GPUs and layout the work needs apart from what is bought, and, for training, the share
of wall time spent training. Split from core/sizing/advise.py for size; the fields are as they
were there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..model.specs import Scenario
from ..speed.goodput import effective_time_share
from .compare_scale import Growth, smallest_serving
from .fill_serving import Choice
from .option import Pace, layout_label
from .practical import cap_words
from .rl_notes import deadline_reason
from .service_level import default_target
from .unmet import speed_gaps, targets_reason

if TYPE_CHECKING:  # core/sizing/advise.py imports this module
    from .advise import GpuAdvice


def judged(adv: GpuAdvice, c: Choice, growth: Growth, rl: dict[str, Any] | None = None) -> dict[str, Any]:
    """``unmet``, ``unmet_reason`` and ``default_target_met`` of choice ``c``: the user's
    targets first, then the stated default service level (core/sizing/service_level.py).
    ``rl``: the choice's estimate's RL block (its run, not a training pace, misses a deadline)."""
    s = adv.s
    out: dict[str, Any] = {"unmet": None, "unmet_reason": None, "default_target_met": None}
    if growth.met is False:
        most = adv.most()
        top = growth.unit.top(most)
        if rl is not None:
            why = deadline_reason(s, rl, effective_time_share(s, c.layout.gpus), top)
        else:
            tried = best_tried(adv, growth)
            why = targets_reason(s, c.pace, top, c.layout.gpus, growth.at_top, tried)
        out |= {"unmet": "targets", "unmet_reason": why}
        if growth.at_top and most < adv.ask.max_gpus:  # the cap, not the model, stops it
            out |= {"unmet": "practical_limit", "unmet_reason": f"{why}; {cap_words(most)}"}
    level = default_target(s)
    if level is not None:
        gaps = speed_gaps(c.pace, level)
        out["default_target_met"] = not gaps
        if gaps and out["unmet"] is None:
            out["unmet"] = "targets"
            out["unmet_reason"] = f"misses the default target ({level.words()}): " + "; ".join(gaps)
    return out


def best_tried(adv: GpuAdvice, growth: Growth) -> tuple[int, Pace] | None:
    """Serving targets missed: the most GPUs weighed and the fastest layout's speed there."""
    if growth.tried is None or growth.at_top:
        return None
    best = adv.filler.best(growth.tried)
    return (best[0].layout.gpus, best[0].pace) if best else None


def goodput(s: Scenario, c: Choice) -> dict[str, Any]:
    """Training: the effective share of wall time and the run's wall time (seconds)."""
    if not s.workload.trains:
        return {}
    share = effective_time_share(s, c.layout.gpus)
    ideal = c.pace.time_seconds
    return {"effective_time_share": share, "wall_time_seconds": None if ideal is None else ideal / share}


def needed(adv: GpuAdvice, c: Choice, growth: Growth, bought: int) -> dict[str, Any]:
    """What the work needs apart from what is bought: the fewest that hold it (with no
    target, or targets that cannot be met) or the layout that meets the targets."""
    training = adv.s.workload.trains
    if growth.why == "fewest" or growth.met is False:
        lay = min(adv.fewest.values(), key=lambda x: x.gpus)
        par = {
            "tensor": lay.tp,
            "pipeline": lay.pp,
            "context": lay.cp,
            "data": lay.dp,
            "zero_stage": lay.zero,
            "expert": lay.ep,
            "recompute": lay.recompute,
        }
        n, label = lay.gpus, layout_label(par, training)
    else:
        n, label = (
            c.layout.gpus,
            layout_label(c.scenario.parallelism.model_dump(mode="json"), training),
        )
        if growth.why == "targets":  # the fewest GPUs, not units, that meet them
            n = smallest_serving(adv.filler, growth.least, c.layout.gpus)
            fewest = adv.filler.best(n)
            if fewest:
                label = layout_label(fewest[0].scenario.parallelism.model_dump(mode="json"), training)
    return {"needed_gpus": n, "needed_layout": label, "spare_gpus": max(0, bought - n)}
