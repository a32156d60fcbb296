"""The disaggregated split (xPyD) the advice proposes where a scenario asks for disaggregated
prefill and decode (``serving.disaggregated``): the fewest GPUs, in replicas of the option's
tensor x pipeline layout, whose prefill pool meets the first-token target and whose decode pool
meets the per-user speed, for the option's users (core/serving/disaggregated.py times both).

Why two searches, one after the other: the decode pool's time per token depends on the users
each decode replica holds, not on the prefill pool (DistServe, Zhong et al. 2024 arXiv
2401.09670 §3: the phases are sized apart, "each phase's parallelism and resources chosen for
its own latency target"); the first-token time falls with prefill replicas and barely moves
with the decode pool (the users' cycle sets the prefill pool's arrival rate). So the fewest
decode replicas that meet the time per token, then the fewest prefill replicas that meet the
first token with them, is the least-GPU split, and on one GPU type the least cost.

Targets: the user's (``targets.max_ttft_seconds``, ``targets.min_tokens_per_second_per_user``:
a token every ``1 / floor`` seconds), else the stated default service level
(core/serving/service_level.py).
"""

from __future__ import annotations

from collections.abc import Callable

from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..serving.disaggregated import disaggregated_of
from .option_split import DisaggSplit
from .service_level import ServiceLevel, default_target

MAX_REPLICAS = 64  # replicas a pool may have (each pool: replicas x tensor x pipeline GPUs)


def _level(s: Scenario) -> ServiceLevel:
    """The user's speed targets, the default service level's halves where none is set."""
    own, default = ServiceLevel.of(s.targets), default_target(s) or ServiceLevel()
    return ServiceLevel(
        own.max_ttft_seconds if own.max_ttft_seconds is not None else default.max_ttft_seconds,
        own.min_tokens_per_second_per_user
        if own.min_tokens_per_second_per_user is not None
        else default.min_tokens_per_second_per_user,
    )


def _split(s: Scenario, prefill: int, decode: int, per: int) -> DisaggSplit | None:
    """``prefill`` and ``decode`` replicas timed (None: the layout does not start)."""
    spec = s.serving.disaggregated
    assert spec is not None  # only called for a scenario that asks for the split
    pools = spec.model_copy(update={"prefill_gpus": prefill * per, "decode_gpus": decode * per})
    run = s.model_copy(update={"serving": s.serving.model_copy(update={"disaggregated": pools})})
    sv = estimate(run).serving
    if sv is None or not sv.disaggregated_prefill_gpus:
        return None
    return DisaggSplit(
        prefill,
        decode,
        per,
        sv.disaggregated_ttft_seconds,
        sv.disaggregated_tpot_seconds,
        sv.disaggregated_tokens_per_second,
        False,
    )


def _fewest(
    ok: Callable[[DisaggSplit], bool], make: Callable[[int], DisaggSplit | None], top: int
) -> tuple[DisaggSplit | None, bool]:
    """The first of ``make(1..top)`` that ``ok`` accepts, else the last made (None: none starts)."""
    last = None
    for n in range(1, top + 1):
        got = make(n)
        if got is None:
            continue
        last = got
        if ok(got):
            return got, True
    return last, False


def propose_split(s: Scenario, max_gpus: int) -> DisaggSplit | None:
    """The least-GPU xPyD split of ``s``'s users on at most ``max_gpus`` GPUs that meets the
    speed targets (module docstring); the largest tried, ``targets_met`` false, where none
    does; None where ``s`` does not ask for disaggregation or no split starts."""
    if disaggregated_of(s) is None:
        return None
    p = s.parallelism
    per = p.tensor * p.pipeline
    top = max(1, min(MAX_REPLICAS, max_gpus // per - 1))
    level = _level(s)
    floor, ceiling = level.min_tokens_per_second_per_user, level.max_ttft_seconds

    def fast(x: DisaggSplit) -> bool:
        return floor is None or (x.tpot_seconds > 0 and 1.0 / x.tpot_seconds >= floor)

    def soon(x: DisaggSplit) -> bool:
        return ceiling is None or x.ttft_seconds <= ceiling

    dec, dec_met = _fewest(fast, lambda y: _split(s, 1, y, per), top)
    if dec is None:
        return None
    pre, pre_met = _fewest(soon, lambda x: _split(s, x, dec.decode, per), max(1, top + 1 - dec.decode))
    best = pre or dec
    met = dec_met and pre_met and fast(best)
    return DisaggSplit(
        best.prefill, best.decode, per, best.ttft_seconds, best.tpot_seconds, best.tokens_per_second, met
    )
