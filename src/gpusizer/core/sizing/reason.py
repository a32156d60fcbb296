"""Why an option is what it is, in one phrase (``layout_reason``): what decided the count,
where the layout's parallelism runs, the techniques it turns on, and how it was chosen.

``8-GPU server (1 GPU would hold it); TP 8 within a node (NVLink-class fabric); fastest of
12 layouts tried``.
"""

from __future__ import annotations

from typing import Any

from ..model.architecture import resolve
from ..pipeline.estimate import estimate
from ..pipeline.work import builder_of
from ..speed.goodput import effective_time_share
from .compare_scale import DAY, Growth
from .deadline_words import deadline_span
from .feature_words import feature_part
from .fill_serving import Choice
from .layer_split import tensor_widths
from .layout_space import virtual_stages
from .preference_words import preference_part
from .service_level import default_target
from .unmet import speed_gaps


def _count(adv: Any, c: Choice, g: Growth) -> str:
    """What decided the count: the deadline, the targets, or the fewest that hold the work,
    in the units it is bought in."""
    unit, s = g.unit, adv.s
    bought = unit.count(c.layout.gpus)
    held = "" if g.least >= bought else f" ({g.least:,} GPU{'s' if g.least > 1 else ''} would hold it)"
    what = unit.what(bought)
    one = what.startswith("one ") or bought == 1  # "1 GPU trains it", not "1 GPU train it"
    if g.met is False:
        return f"{what}: the fewest that hold it (the targets cannot be met){held}"
    if g.why == "deadline":
        share = effective_time_share(s, c.layout.gpus)
        wall = _run_seconds(s, c) / share
        verb = "trains" if one else "train"
        # "99.99% of the wall time training" read, on an RL run, as the training phase's share
        # of a step (rollout takes half): the share is goodput, the rest restarts and lost work
        # (core/speed/goodput.py: "effective training time", Llama 3 report, arXiv:2407.21783 3.3.4)
        limit = s.targets.max_training_days
        span = _span(wall) + (" days" if limit < 1 and wall >= DAY else "")
        return (  # "14.1 min of 1 day", not "of 1 days" (a one-day LoRA); "of 12 h" below a day
            f"{what} {verb} it in {span} of {deadline_span(limit or 0.0)} "
            f"({share:.2%} of the wall time productive, the rest restarts and lost work)"
        )
    if g.why == "targets":  # memory's count, apart from the targets' (the need column)
        held = held.replace("would hold it", "would hold the model")
    if g.why == "targets" and _misses_default(s, c):  # not "meets the targets": the default is missed
        users = s.targets.users
        who = f"the {users:,} user{'s' if users != 1 else ''}" if users else "the targets set"
        runs = _runs_at_once(c) if users else None
        if runs is not None:  # "holds" read as "runs at once" where the requests queue
            verb = "queues" if one else "queue"
            return f"{what} {verb} {who}' requests ({runs}), short of the default speed target{held}"
        return f"{what} {'holds' if one else 'hold'} {who} but not the default speed target{held}"
    if g.why == "targets":
        users = s.targets.users
        return (
            f"{what} {'meets' if one else 'meet'} the targets{f' for {users:,} user' if users else ''}"
            + ("s" if users and users != 1 else "")
            + held
        )
    if g.why == "attention_dp":  # core/sizing/adp_count.py
        return (
            f"{what}: the fewest an attention-DP engine holds it on, serving faster and cheaper per "
            f"token than the {g.least:,} GPU{'s' if g.least > 1 else ''} that would hold it"
        )
    if bought == g.least:
        return "the fewest that hold it"
    return what + held


def _runs_at_once(c: Choice) -> str | None:
    """``1 of a replica's 4 at once``: where a replica's engine runs fewer requests at once than
    it is given (its KV cache or slots: core/sizing/served.py ``queue_clause``); None where it
    runs them all."""
    batch = c.batch or 0
    held = estimate(c.scenario).requests_held if batch > 1 else None
    if held is None or held >= batch or c.scenario.parallelism.attention_data > 1:
        return None
    return f"{held:,} of a replica's {batch:,} at once"


def _span(seconds: float) -> str:
    """A run's wall time in days from one day up, else hours or minutes: a 48-minute QLoRA read
    "0.0 of 2 days". Minutes to a tenth, as the Time column (io/wording.py ``duration``): "4 min"
    stood beside a Time of 3.5 min."""
    if seconds >= DAY:  # "29.5 of 30 days"
        return f"{seconds / DAY:,.1f}"
    return f"{seconds / 3600:,.1f} h" if seconds >= 3600 else f"{seconds / 60:,.1f} min"


def _run_seconds(s: Any, c: Choice) -> float:
    """The run's seconds on choice ``c``: a kind that times its own run (RL: ``rl.steps`` steps of
    the whole step, rollout and refit included, core/pipeline/work_rl.py) by its estimate, as
    the deadline's count was grown on it (core/sizing/compare_scale.py); else the training pace
    over ``workload.training_tokens``. An RL layout's pace has no run time of its own, so the
    phrase read "0.0 of 3 days" for a run of 2.3 days."""
    builder = builder_of(s.workload.info)
    if builder.times_run:
        run = builder.run_seconds(estimate(c.scenario))
        return run or 0.0
    return c.pace.time_seconds or 0.0


def _misses_default(s: Any, c: Choice) -> bool:
    """Whether choice ``c`` misses the stated default service level (core/sizing/service_level.py)."""
    level = default_target(s)
    return level is not None and bool(speed_gaps(c.pace, level))


def _adp_where(lay: Any, node: int) -> list[str]:
    """Where an attention-DP engine's parallelism runs (core/sizing/layout_adp.py)."""
    span = " across nodes (network)" if lay.tp > node else ""
    own = f"attention DP {lay.ad}: each GPU its own attention and requests"
    out = [f"{own}, the experts over all {lay.tp}{span}"]
    return out + ([f"{lay.dp} such engines"] if lay.dp > 1 else [])


def _tp_misses_level(adv: Any, width: int, c: Choice) -> bool:
    """Whether TP ``width`` alone on ``c``'s count misses the default service level that ``c``
    meets (the fill ranked ``c`` on it: core/sizing/fill_serving.py ``_rank``)."""
    alt = adv.filler.at_width(width, c.layout.gpus)
    return alt is not None and _misses_default(adv.s, alt)


def _pipeline_in_node(adv: Any, tp: int, pp: int, link: str, c: Choice | None = None) -> str:
    """PP within one node, and why: a replica of ``tp`` x ``pp`` GPUs that TP alone could also
    span (tensor degrees divide the attention heads, any under llama.cpp: layer_split.py) ran
    slower as TP on this count; else TP alone does not take that width. It read "PP 3 where TP
    cannot hold it" for DeepSeek-R1 for 1,000 users on B200 servers, whose 8 GPUs hold it at TP
    8: the search chose replicas of 6 GPUs (TP 2 x PP 3), 9 of them in 7 servers, not memory."""
    width = tp * pp
    if width in tensor_widths(adv.s, adv.filler.arch.heads, width):  # any width under llama.cpp
        if c is not None and c.passed_over is not None and _tp_misses_level(adv, width, c):
            missed = f"TP {width} on this count misses the default service level"
            return f"PP {pp} within a node ({link}): {missed}"
        return f"PP {pp} within a node ({link}), faster on this count than TP {width}"
    return f"PP {pp} within a node ({link}): {width} GPUs a replica, a width TP alone does not take"


def _interleaved(s: Any, pp: int) -> str:
    """ ", interleaved: 2 chunks a stage" where the scenario's ``virtual_stages`` is kept at this
    PP (core/sizing/layout_space.virtual_stages: PP x it within the layers; Megatron-LM
    ``--num-layers-per-virtual-pipeline-stage``, the bubble (PP - 1) / v, training.md section 46),
    so the answer says the interleaving asked is in its layout, or not."""
    asked = s.parallelism.virtual_stages
    if asked <= 1:
        return ""
    kept = virtual_stages(asked, pp, resolve(s.model).layers)
    return (
        f", interleaved: {kept} chunks a stage"
        if kept > 1
        else f", not interleaved ({asked} x PP {pp} passes the layers)"
    )


def _where(adv: Any, c: Choice) -> list[str]:
    lay, links, training = c.layout, adv.links, adv.s.workload.trains
    if lay.ad > 1:
        return _adp_where(lay, links.node)
    out = []
    if lay.tp > 1:
        out.append(f"TP {lay.tp} within a node ({links.name(links.intra)})")
    if lay.pp > 1:
        span = lay.tp * lay.pp if not training else lay.gpus
        out.append(
            (
                f"PP {lay.pp} across nodes (network)"
                if span > links.node
                else _pipeline_in_node(adv, lay.tp, lay.pp, links.name(links.intra), c)
            )
            + (_interleaved(adv.s, lay.pp) if training else "")
        )
    if lay.cp > 1:
        out.append(f"CP {lay.cp} for the long sequence")
    if training and lay.dp > 1:
        out.append(f"DP {lay.dp}" + (f" with ZeRO {lay.zero}" if lay.zero else ""))
    if not training and lay.dp > 1:
        out.append(f"{lay.dp} replicas" + (" sharing the experts" if lay.ep > 1 else ""))
    return out


def layout_reason(adv: Any, c: Choice, g: Growth, index: int, est: Any = None) -> str:
    """The phrase for choice ``c`` (``index`` 0: the answer; more: runners-up) of ``adv``, a
    core/sizing/advise.GpuAdvice; ``est``: the choice's estimate, whose serving features are
    said (core/sizing/feature_words.py)."""
    pref, feat = preference_part(adv.s), feature_part(est)
    parts = [_count(adv, c, g), *([pref] if pref else []), *_where(adv, c), *([feat] if feat else [])]
    phrase = adv.variants[c.variant].phrase
    if phrase:
        parts.append(phrase)
    parts.append(_fastest(c) if index == 0 else f"runner-up {index + 1} of {c.weighed}")
    return "; ".join(parts)


def _fastest(c: Choice) -> str:
    """ "fastest of 4 layouts tried", or, where a faster one misses the default service level
    this one meets, the fastest of those that meet it (core/sizing/fill_serving.py ``_rank``)."""
    tried = f"{c.weighed} layout{'s' if c.weighed != 1 else ''} tried"
    if c.passed_over is None:
        return f"fastest of {tried}"
    if c.passed_over_layout is None:
        return (
            f"fastest that meets the default service level of {tried} (a faster one, "
            f"{c.passed_over:,.0f} tokens/s, misses it)"
        )
    return f"fastest that meets the default service level of {tried}{_given_up(c)}"


def _given_up(c: Choice) -> str:
    """`` (the faster TP 4 x PP 1 x DP 2, 1,366 tokens/s, 24% more than this, misses it: first
    token 2.22 s, 0.22 s over the 2 s asked; state your own targets or --no-default-target to
    run it)``: the throughput the level costs and the miss it avoids, so a buyer who values
    tokens/s over a first token a fraction of a second earlier can choose. The level is
    MLPerf's default, not the user's own target (core/serving/service_level.py
    ``default_target``)."""
    rate = c.pace.tokens_per_second or 0.0
    more = f", {c.passed_over / rate - 1:.0%} more than this" if rate > 0 and c.passed_over else ""
    return (
        f" (the faster {c.passed_over_layout}, {c.passed_over:,.0f} tokens/s{more}, misses it:"
        f" {c.passed_over_misses}; state your own targets, or --no-default-target, to run it)"
    )
