"""The split placement beside a colocated RL answer: the same GPU, the same training layout, a
rollout pool beside it at the fastest rollout:training ratio (core/pipeline/rl_advice.py).

A colocated RL run (``rl.placement`` colocated, verl's hybrid engine) takes turns on one set of
GPUs: the rollout, the log-prob forwards, the training step and the moves between them (the
engine's sleep and wake, the states offloaded and reloaded, the refit) run one after another.
Split placement puts the engine on a pool of its own (``rl.rollout.gpus``); with ``rl.overlap``
(its default) the rollout of step n+1 runs beside the training of step n, one step off-policy
(NeMo RL's async GRPO, verl's one-step-off policy; core/pipeline/rl_time.py), so the step is the
busier pool's and the moves that colocation pays go. GRPO of Qwen3 8B at 8K responses on one
8-GPU H100 server steps in 15.8 min colocated; 8 rollout + 8 training GPUs step in 7.5 min, the
run 1.0 day for $1,605 against 2.2 days for $1,685 (docs/evidence/rl.md, the round-49 buyer
section). The advice sizes the placement as the scenario sets it and this module only weighs the
other, so no answer moves; core/sizing/rl_split_words.py prices it and words it.

Budgets weighed: the colocated answer's own GPUs (``n``: the same money an hour) and twice as
many (a rollout pool as large as the training pool, the shape of the round-49 reading). Each
budget is split at the fastest ratio of whole engines and whole training replicas that the
layout allows (``split_options``: the training layout's TP x PP x CP kept, its DP taken from what
is left), the estimate checks that the training pool fits the GPU with the margin spare and the
engine starts on its pool; the fastest three splits are tried in that order. Kept per option
(the advice's options are kept, core/sizing/advise_all.py), so the window's second asker pays
nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..errors import ScenarioError
from ..evidence.confidence import speed_evidence
from ..memo import Memo
from ..model.result import Estimate
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..pipeline.rl_advice import split_options
from ..pipeline.rl_check import rl_of
from ..pipeline.rl_plan import rl_plan
from ..pipeline.scenario import parse_scenario, scenario_dict
from ..registry.rl_frameworks import RL_FRAMEWORKS
from .layout_search import GpuTarget
from .option import SizingOption
from .rl_split_fields import SplitAlternative
from .rl_unmet import REFUSAL

TRIES = 3  # splits estimated per budget, fastest first (a refused one is rare: the pools shrink)
BUDGETS = (1, 2)  # the colocated answer's GPUs times these


# per advised scenario and GPU (the advice keeps both objects, so their ids stay theirs)
_ALTS: Memo[tuple[SplitAlternative, ...]] = Memo(4096)


def with_split_alternatives(
    option: SizingOption, s: Scenario | None, g: GpuTarget, stated: bool = False
) -> SizingOption:
    """``option`` with the split alternatives of its colocated RL run (``s``: the option's own
    scenario, the advice's choice; None or another kind or placement: the option as it is;
    ``stated``: the user's scenario sets ``rl.placement``)."""
    if s is None or not option.fits or option.rl_run_seconds is None or rl_of(s).placement != "colocated":
        return option
    alts = _ALTS.get((id(s), id(g), stated), lambda: _alternatives(s, g, stated), (s, g))
    return replace(option, rl_split=alts) if alts else option


def _alternatives(s: Scenario, g: GpuTarget, stated: bool) -> tuple[SplitAlternative, ...]:
    n = s.parallelism.gpus
    out = (_best(s, g, n * k) for k in BUDGETS)
    return tuple(replace(a, stated=stated) for a in out if a is not None)


def _best(s: Scenario, g: GpuTarget, total: int) -> SplitAlternative | None:
    """The fastest split of ``total`` GPUs that fits (None: none of the fastest :data:`TRIES`)."""
    rl = rl_of(s)
    # not validated: split_options reads the total and parses each split it makes
    base = s.model_copy(
        update={
            "hardware": g.hardware,
            "rl": rl.model_copy(
                update={
                    "placement": "split",
                    "overlap": rl.overlap if rl.overlap is not None else split_overlap(rl.framework),
                    "rollout": rl.rollout.model_copy(update={"gpus": total - s.parallelism.gpus}),
                }
            ),
        }
    )
    try:
        splits = split_options(base, g.spec, _step)
    except (ScenarioError, ValueError):
        return None
    for o in sorted(splits, key=lambda o: o["time_per_step_seconds"])[:TRIES]:
        alt = _checked(base, g, o["rollout_gpus"], o["training_gpus"])
        if alt is not None:
            return alt
    return None


def split_overlap(framework: str | None) -> bool | None:
    """``rl.overlap`` of a split run under ``framework``: that of its newest release that places
    the run split by default (TRL before v1.0.0: ``overlap`` false, the ranks wait while the main
    process generates, core/registry/rl_framework_releases_trl.py); None (the pools overlap, one
    step off-policy, rl_spec.py's default) for a framework with no such release, or none."""
    fw = RL_FRAMEWORKS.get(framework) if framework else None
    sets = [{d.path: d.value for d in r.defaults} for r in (fw.releases if fw else ())]
    split = [d for d in sets if d.get("placement") == "split"]
    overlap = split[-1].get("overlap") if split else None
    return overlap if isinstance(overlap, bool) else None


def _step(s: Scenario, gpu: Any) -> float:
    return rl_plan(s, gpu).step(rl_of(s).overlaps)


def _checked(base: Scenario, g: GpuTarget, rollout: int, training: int) -> SplitAlternative | None:
    """The split's estimate where its training pool fits with the margin and its engine starts."""
    p = base.parallelism
    data = training // (p.tensor * p.pipeline * p.context)
    try:
        d = scenario_dict(base)
        d["parallelism"]["data"] = data
        d["rl"]["rollout"]["gpus"] = rollout
        sp = parse_scenario(d)
        est = estimate(sp)
    except ScenarioError:
        return None
    if not _fits(est, g) or est.rl is None:
        return None
    run = float(est.rl["run_seconds"])
    band = speed_evidence(sp, g.spec).band.time_range(run)
    return SplitAlternative(
        rollout,
        training,
        float(est.rl["time_per_step_seconds"]),
        run,
        float(est.rl["tokens_trained_per_second"]),
        None if band is None else (float(band[0]), float(band[1])),
        rl_of(sp).overlaps,
    )


def _fits(est: Estimate, g: GpuTarget) -> bool:
    """The training pool within the GPU less the margin, and the engine started on its pool."""
    return est.required_bytes <= g.capacity and not any(a.startswith(REFUSAL) for a in est.assumptions)
