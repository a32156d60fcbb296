"""Why an option is not offered as it stands, as data every surface prints: ``unmet`` (one of
:data:`UNMET`) and ``unmet_reason``, a sentence naming the target or limit and by how much.

- ``memory``: no layout of up to the search's limit holds the work (the only case that reads
  "does not fit");
- ``context_limit``: a request is longer than the engine's context (``serving.max_context``:
  vLLM's ``max_model_len``, llama.cpp's ``--ctx-size``, 4,096 by default in ``llama-server``),
  which no count of GPUs changes;
- ``targets``: the option holds the work but misses a target the user set, or the default
  service level (core/sizing/service_level.py);
- ``practical_limit``: one replica holds the work, but the users or targets need more GPUs than
  the search buys (``max_gpus``, whole boxes of cards);
- ``no_price``: holds and meets, but has no price on the basis asked (ranked after the priced).
"""

from __future__ import annotations

from typing import Any

from ..model.result import Estimate
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..speed.goodput import wall_seconds
from .deadline_words import deadline_adjective
from .frontend_floor import frontend_floor_clause
from .option import Pace
from .rate_words import rate_words
from .service_level import ServiceLevel

UNMET = ("memory", "targets", "context_limit", "practical_limit", "no_price")
DAY = 86400.0
GIB = 2**30


def speed_gaps(pace: Pace, level: ServiceLevel) -> list[str]:
    """The serving targets of ``level`` that ``pace`` misses, each with its shortfall:
    ``first token 6.65 s, 4.65 s over the 2 s asked``."""
    out = []
    ttft, per_user = pace.ttft_seconds, pace.tokens_per_second_per_user
    if level.max_ttft_seconds is not None and (ttft is None or ttft > level.max_ttft_seconds):
        over = "" if ttft is None else f"{ttft:,.2f} s, {ttft - level.max_ttft_seconds:,.2f} s over"
        out.append(f"first token {over} the {level.max_ttft_seconds:g} s asked")
    floor = level.min_tokens_per_second_per_user
    if floor is not None and (per_user is None or per_user < floor):
        if per_user is None:  # the simulated load ended before its users decoded: no rate to state
            out.append(f"no decode rate within the simulated load, {floor:g} tokens/s per user asked")
        else:
            short = f"{floor - per_user:,.1f} short of the {floor:g} asked"
            out.append(f"{rate_words(per_user)} tokens/s per user, {short}")
    return out


def training_gap(s: Scenario, pace: Pace, gpus: int = 1) -> str | None:
    """The deadline missed, in wall time on ``gpus`` GPUs (core/speed/goodput.py): ``2 GPUs
    train it in 41.2 days, 11.2 over the 30-day deadline``. The count is named: "trains in
    1,528.7 days" beside "more GPUs, up to 32" read as the 32 cards' time, not the 2 shown."""
    days_max, secs = s.targets.max_training_days, wall_seconds(s, gpus, pace.time_seconds)
    if days_max is None or secs is None or secs / DAY <= days_max:
        return None
    days = secs / DAY
    who = f"{gpus:,} GPU{'s train' if gpus != 1 else ' trains'} it"
    return (
        f"{who} in {days:,.1f} days, {days - days_max:,.1f} over the {deadline_adjective(days_max)} deadline"
    )


def targets_reason(
    s: Scenario,
    pace: Pace,
    top: int,
    gpus: int = 1,
    at_top: bool = True,
    best: tuple[int, Pace] | None = None,
) -> str:
    """The sentence of an option (on ``gpus`` GPUs) that holds the work and misses the user's
    targets: with up to ``top`` GPUs (``at_top``), or where doubling the GPUs stopped making
    any user faster; ``best``: the most GPUs weighed and their speed. The option shown is the
    fewest that hold the work, so its speeds are not what more GPUs reach: 8 RTX A6000s serve
    64 users of a 70B at a 10.9 s first token, 32 of them at 2.2 s, and the speed per user
    levels off near 16 tokens/s; saying only "doubling them made no user faster" beside the 8
    GPUs' figures read as if more GPUs never helped. Training: ``best`` the most GPUs weighed
    (the cap) and their pace, whose days are said beside the fewest's."""
    if s.workload.trains:
        limit = deadline_adjective(s.targets.max_training_days or 0.0)
        gap = training_gap(s, pace, gpus) or f"the {limit} deadline is missed"
        secs = None if best is None or best[0] <= gpus else wall_seconds(s, best[0], best[1].time_seconds)
        if best is None or secs is None:
            return f"{gap}; more GPUs, up to {top:,}, do not meet it"
        used = "" if best[0] >= top else f", its fastest layout running {best[0]:,} of them"
        return f"{gap}; more GPUs do not meet it: {top:,} take {secs / DAY:,.1f} days{used}"
    gaps = speed_gaps(pace, ServiceLevel.of(s.targets))
    floor = frontend_floor_clause(s)
    what = "; ".join(gaps + ([floor] if floor else [])) if gaps else "the targets are missed"
    if at_top:
        return f"{what}; more GPUs, up to {top:,}, do not meet the targets"
    if best is None or best[0] <= gpus:
        return f"{what}; more GPUs do not close the gap (doubling them made no user faster)"
    n, fast = best
    reached = ", ".join(
        x
        for x in (
            None if fast.ttft_seconds is None else f"a first token in {fast.ttft_seconds:,.2f} s",
            None
            if fast.tokens_per_second_per_user is None
            else f"{rate_words(fast.tokens_per_second_per_user)} tokens/s per user",
        )
        if x
    )
    return (
        f"{what}; more GPUs do not close the gap: on {n:,} GPUs the best layout reaches {reached}, "
        "and doubling them made no user faster"
    )


def unreachable_reason(s: Scenario, least: int, gpus: int, pace: Pace) -> str:
    """One replica holds the model on ``least`` GPUs, but no count meets the serving targets:
    the fastest layout on ``gpus`` GPUs (the most weighed, where doubling them stopped making
    any user faster) misses them by ``pace``'s gaps. The search stopped there, so "the users
    need more than the 4,096 GPUs the search buys" was false: 200 users of Llama 3.3 70B FP8
    asking 20 tokens/s each read so on DGX Sparks, where 512 of them serve each user at 3.0
    tokens/s (273 GB/s over the 70 GB of weights), a speed no count changes."""
    gaps = speed_gaps(pace, ServiceLevel.of(s.targets)) or ["the targets are missed"]
    floor = frontend_floor_clause(s)
    gaps = [*gaps, floor] if floor else gaps
    held = f"{least:,} GPU{'s hold' if least != 1 else ' holds'} one replica"
    return (
        f"{held}, but no count meets the targets: on {gpus:,} GPUs the fastest layout reaches "
        f"{'; '.join(gaps)}; doubling the GPUs made no user faster"
    )


def capped_speed_clause(s: Scenario, gpus: int, pace: Pace) -> str:
    """``; on 16 GPUs the fastest layout reaches ...`` where the search ran to a practical cap
    (core/sizing/practical.py) and its fastest layout there still misses a serving target: the
    cap alone would read as if more GPUs would do, where the per-user speed is short too (16 DGX
    Sparks serve a 70B FP8 model's users at about 3 tokens/s against 20 asked); "" where no
    speed target is missed."""
    gaps = speed_gaps(pace, ServiceLevel.of(s.targets))
    return f"; on {gpus:,} GPUs the fastest layout reaches {'; '.join(gaps)}" if gaps else ""


def context_reason(s: Scenario) -> str | None:
    """The engine's context is shorter than one request (``serving.max_context``), or None.
    No count of GPUs changes it: only a longer context setting or a shorter request."""
    if s.workload.trains:
        return None
    try:
        est = estimate(s)
    except Exception:  # an estimate that fails is the memory search's to report
        return None
    sv, w = est.serving, s.workload
    need = w.prompt_tokens + w.generated_tokens
    if sv is None or not sv.starts or need <= sv.max_context:
        return None
    model = s.model.max_context
    head = f"a request of {need:,} tokens is longer than the engine's {sv.max_context:,}-token context"
    if model and model < need:  # the engine's default is the model's own: only a shorter request runs
        return f"{head} (the model's, model.max_context): shorten the request; more GPUs do not help"
    room = f" (the model takes up to {model:,})" if model else ""
    fix = f"set serving.max_context to at least {need:,}{room} or shorten the request"
    return f"{head}: {fix}; more GPUs do not help"


def practical_reason(
    s: Scenario, least: int, top: int, unfilled: int | None = None, refusal: str | None = None
) -> str:
    """One replica holds the work on ``least`` GPUs, but no count up to ``top`` holds the
    users or meets the targets: the cap, not memory, stops it.

    ``unfilled``: no target decides the count (``targets`` empty), so the cap never came into
    it: the count search (memory alone) found ``least`` GPUs, and the fill that lays the
    fastest layouts out on ``unfilled`` GPUs (core/sizing/fill.py) kept none of them; on
    unified memory it estimates the whole machine too (fill.Filler._pooled_fits), and
    ``refusal`` is that full estimate's own reason (:func:`fill_refusal`). A full fine-tune of
    Llama 3.1 70B on Apple M3 Ultra 512GB machines read "the targets need more than 4,096
    GPUs" with no target set."""
    if unfilled is not None:
        head = f"{least:,} GPU{'s hold' if least != 1 else ' holds'} one replica in the count search, but"
        if refusal is None:
            return (
                f"{head} the fill (the fastest layouts on {unfilled:,} GPUs of this type) kept none; "
                "no target is set, so more GPUs were not tried"
            )
        return (
            f"{head} no layout on {unfilled:,} GPUs of this type fits once estimated in full ({refusal}); "
            "no target is set, so more GPUs were not tried"
        )
    users = s.targets.users
    who = f"{users:,} users" if users else "the targets"
    return (
        f"{least:,} GPU{'s hold' if least != 1 else ' holds'} one replica, but {who} need more than the "
        f"{top:,} GPUs the search buys at most"
    )


def fill_refusal(est: Estimate, capacity: int) -> str | None:
    """Why a full estimate does not hold on its GPU (core/sizing/search.holds), in words:
    the machine's unified memory (``Estimate.pool_shortfall``), the GPU's own memory, or None
    when it holds."""
    if est.pool_shortfall is not None:
        return est.pool_shortfall
    if est.required_bytes > capacity:
        return f"{est.required_bytes / GIB:,.1f} GiB needed of the {capacity / GIB:,.1f} GiB kept per GPU"
    return None


def priced_reason(option: dict[str, Any], basis: str) -> tuple[str, str] | None:
    """``("no_price", sentence)`` for an option that holds and meets but has no cost on the
    basis asked (ranked after the priced ones), else None."""
    if not option.get("fits") or option.get("unmet") or option.get("cost_per_hour") is not None:
        return None
    if basis == "owned" and option.get("used_price_left_out"):
        return "no_price", (
            f"only a used price for {option['gpu_name']} ({option.get('list_price_basis') or 'resale'}): "
            "rankings count new prices unless used prices are asked for; ranked after the priced"
        )
    words = {"cloud": "on-demand cloud", "owned": "purchase", "marketplace": "marketplace"}
    head = f"no {words.get(basis, basis)} price for {option['gpu_name']}: ranked after the priced"
    bought = option.get("purchase_cost")
    if basis != "owned" and bought:
        # a Mac Studio, a DGX Spark: machines bought, not rented, whose purchase the same row
        # shows; a buyer of one box read "no price" beside its Purchase $ as a missing figure.
        # Whether some cloud rents it the catalog does not know: only that it has no such price
        # among the unpriced it ranks by that purchase (core/sizing/compare_rank.py purchase_rank)
        owned = "(basis owned ranks it with the rest)"
        return "no_price", f"{head}, by its purchase price: ${bought:,.0f} {owned}"
    return "no_price", head
