"""The disaggregated split (xPyD) the advice proposes where a scenario asks for disaggregated
prefill and decode (``serving.disaggregated``): the fewest GPUs, in replicas of the option's
tensor x pipeline layout, whose prefill pool meets the first-token target and whose decode pool
meets the per-user speed, for the option's users (core/serving/disaggregated.py times both).

Why two searches, one after the other: the decode pool's time per token depends on the users
each decode replica holds, not on the prefill pool (DistServe, Zhong et al. 2024 arXiv
2401.09670 §3-4: once disaggregated, each phase's parallelism and replicas are chosen for its
own latency target); the first-token time falls with prefill replicas and barely moves
with the decode pool (the users' cycle sets the prefill pool's arrival rate). So the fewest
decode replicas that meet the time per token, then the fewest prefill replicas that meet the
first token with them, is the least-GPU split, and on one GPU type the least cost. The prefill
replicas are tried at each tensor width up to the option's (1, 2, 4, ...: prompts are
compute-bound, so narrow replicas lose little; aiconfigurator's best Qwen3-32B split on H200
pairs TP1 prefill workers with a TP4 decode worker, ai-dynamo/aiconfigurator README), the
fewest GPUs kept.

Targets: the user's (``targets.max_ttft_seconds``, ``targets.min_tokens_per_second_per_user``:
a token every ``1 / floor`` seconds), else the stated default service level
(core/serving/service_level.py).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..pipeline.validate import check_scenario
from ..serving.disagg_prefill import prefill_scenario
from ..serving.disaggregated import disaggregated_of
from ..serving.pools_priced import decode_pool_only
from .option_split import DisaggSplit
from .pd_link_words import link_words
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


def _split(s: Scenario, prefill: int, decode: int, pre_tp: int) -> DisaggSplit | None:
    """``prefill`` replicas at tensor ``pre_tp`` and ``decode`` replicas of the scenario's
    layout, timed (None: the layout does not start)."""
    run = _pools(s, prefill, decode, pre_tp)
    return None if run is None else _timed(run, prefill, decode, pre_tp)


def _pools(s: Scenario, prefill: int, decode: int, pre_tp: int) -> Scenario | None:
    """``s`` with those pools, checked (None: the prefill pool's own ranks do not divide it)."""
    spec = s.serving.disaggregated
    assert spec is not None  # only called for a scenario that asks for the split
    p = s.parallelism
    per, pre_per = p.tensor * p.pipeline, pre_tp * p.pipeline
    pools = {"prefill_gpus": prefill * pre_per, "decode_gpus": decode * per, "prefill_tensor": pre_tp}
    run = s.model_copy(
        update={"serving": s.serving.model_copy(update={"disaggregated": spec.model_copy(update=pools)})}
    )
    try:  # the prefill pool's own ranks (prefill_attention_data) may not divide this width
        check_scenario(run)
    except ScenarioError:
        return None
    return run


def _timed(run: Scenario, prefill: int, decode: int, pre_tp: int) -> DisaggSplit | None:
    """The split ``run`` (:func:`_pools`) as its estimate times it."""
    est = estimate(run)
    sv = est.serving
    if sv is None or not sv.disaggregated_prefill_gpus:
        return None
    p = run.parallelism
    return DisaggSplit(
        prefill,
        decode,
        p.tensor * p.pipeline,
        pre_tp * p.pipeline,
        pre_tp,
        sv.disaggregated_ttft_seconds,
        sv.disaggregated_tpot_seconds,
        sv.disaggregated_tokens_per_second,
        False,
        sv.disaggregated_decode_wait_seconds,
        sv.disaggregated_kv_transfer_seconds,
        link_words(run, est.gpu),
    )


def _fewest(
    ok: Callable[[DisaggSplit], bool],
    make: Callable[[int], DisaggSplit | None],
    top: int,
    misses: Callable[[int], bool] | None = None,
) -> tuple[DisaggSplit | None, bool]:
    """The fewest of ``1..top`` whose ``make(n)`` starts and ``ok`` accepts, by bisection (more
    replicas never make a pool slower: fewer users each, or the same arrivals spread wider);
    else ``make(top)`` with false (None: not even that starts). ``misses(n)``, where given, is
    a cheaper test true only where ``make(n)`` is None or ``ok`` refuses it: a count it is true
    at is not made, and the bisection takes the branch it would have taken (the same counts
    tried, the same answer)."""
    best = make(top)
    if best is None or not ok(best):
        return best, False
    lo, hi = 1, top  # make(hi) is accepted
    while lo < hi:
        mid = (lo + hi) // 2
        got = None if misses is not None and misses(mid) else make(mid)
        if got is not None and ok(got):
            best, hi = got, mid
        else:
            lo = mid + 1
    return best, True


class _Splits:
    """The splits one proposal weighs, each timed once (:func:`_split` is a pure function of
    its pools: the decode search's widest layout is the prefill search's first wherever both
    pools reach their most replicas; 28 of the 384 estimates of DeepSeek-V3's 1P1D compare were
    such repeats), and a decode pool tested by its own figures before the prefill queue is
    priced (:meth:`decode_misses`)."""

    def __init__(self, s: Scenario) -> None:
        self.s = s
        self._runs: dict[tuple[int, int, int], Scenario | None] = {}
        self._splits: dict[tuple[int, int, int], DisaggSplit | None] = {}

    def _run(self, key: tuple[int, int, int]) -> Scenario | None:
        if key not in self._runs:
            self._runs[key] = _pools(self.s, *key)
        return self._runs[key]

    def timed(self, prefill: int, decode: int, pre_tp: int) -> DisaggSplit | None:
        """:func:`_split` of these pools, once."""
        key = (prefill, decode, pre_tp)
        if key not in self._splits:
            run = self._run(key)
            self._splits[key] = None if run is None else _timed(run, *key)
        return self._splits[key]

    def decode_misses(self, prefill: int, decode: int, pre_tp: int, floor: float | None) -> bool:
        """Whether the split does not start or its decode pool keeps users waiting for a slot
        or misses the per-user ``floor`` (tokens/s): the first and last tests of
        :func:`propose_split`'s ``fast``, so the timed split fails it too. Read on an estimate
        whose prefill queue is not priced (core/serving/pools_priced.py ``decode_pool_only``):
        the time per token and the waits are computed before the queue and from none of it, the
        timed split's to the bit; a split that does not start is None before either."""
        key = (prefill, decode, pre_tp)
        if key in self._splits:
            x = self._splits[key]
        else:
            run = self._run(key)
            if run is None:
                return True
            with decode_pool_only():
                x = _timed(run, *key)
        if x is None:
            return True
        slow = floor is not None and not (x.tpot_seconds > 0 and 1.0 / x.tpot_seconds >= floor)
        return x.decode_wait_seconds > 0 or slow


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

    def fast(x: DisaggSplit) -> bool:  # a decode pool its users overfill keeps some waiting
        if x.decode_wait_seconds > 0 or not _served(s, x):
            return False
        return floor is None or (x.tpot_seconds > 0 and 1.0 / x.tpot_seconds >= floor)

    def soon(x: DisaggSplit) -> bool:
        return ceiling is None or x.ttft_seconds <= ceiling

    tp, splits = p.tensor, _Splits(s)
    # the decode pool weighed beside the widest prefill pool, so that the users' cycle, and the
    # output they draw (:func:`_served`), is the decode pool's, not a lone prefill replica's queue
    misses = lambda y: splits.decode_misses(top, y, tp, floor)  # noqa: E731
    dec, dec_met = _fewest(fast, lambda y: splits.timed(top, y, tp), top, misses)
    if dec is None:
        return None
    got, pre_met = _prefill(s, splits, dec, soon, max_gpus)
    return replace(got, targets_met=dec_met and pre_met and fast(got))


# the users' output may fall short of their cycle's by the decode run's own first step and ramp
SERVED_SHARE = 0.9


def _served(s: Scenario, x: DisaggSplit) -> bool:
    """Whether the pools put out what the users draw at the split's own speeds: every user one
    request per cycle of its first token plus ``generated_tokens`` at the time per token (the
    users' cycle of core/serving/disaggregated.py), within :data:`SERVED_SHARE`. The decode
    pool's waits for a running slot or KV room are the estimate's own now (in its first token:
    core/serving/decode_queue.py), so a split whose decode pool runs fewer users than it has no
    longer passes here with the others queued outside the first token (before, 512
    DeepSeek-V3 users on one B300 decode replica, its SGLang engine capped at the aggregated
    replica's 37 users, read 25.3 ms a token while the pool put out 1,459 tokens/s). What this
    still turns away is a decode run that the sizing call's work budget (core/serving/budget.py
    ``SIZING``) cut in its ramp, whose tokens/s are the ramp's (gpt-oss-120b on L40, 64P28D).
    Both sides use the split's own first token, so the decode search (one prefill replica)
    and the prefill search weigh the same thing."""
    users = max(1, s.serving.concurrency or s.workload.batch_size or 1) * s.parallelism.data
    gen = max(1, s.workload.generated_tokens)
    cycle = x.ttft_seconds + gen * x.tpot_seconds
    return cycle > 0 and x.tokens_per_second >= SERVED_SHARE * users * gen / cycle


def _prefill(
    s: Scenario, splits: _Splits, dec: DisaggSplit, soon: Callable[[DisaggSplit], bool], max_gpus: int
) -> tuple[DisaggSplit, bool]:
    """The prefill pool beside decode pool ``dec``: at each width from the option's down, the
    fewest replicas that meet the first token, a narrower width searched only below the GPUs
    already found (and not at all once a width does not hold the model: a narrower one holds
    less); the option's width at its most replicas where none meets."""
    p = s.parallelism
    fixed = dec.decode * dec.per
    best, met = dec, False
    for pre_tp in reversed(_widths(p.tensor)):
        pre_per = pre_tp * p.pipeline
        room = (best.gpus - 1 if met else max_gpus) - fixed
        most = min(MAX_REPLICAS, room // pre_per)
        if most < 1:
            continue
        if not _holds(s, pre_tp):
            break
        pre, ok = _fewest(soon, functools.partial(splits.timed, decode=dec.decode, pre_tp=pre_tp), most)
        if pre is not None and (ok or pre_tp == p.tensor):
            best, met = pre, ok or met
    return best, met


def _holds(s: Scenario, pre_tp: int) -> bool:
    """Whether one prefill replica at tensor ``pre_tp`` holds the model and a prompt (the
    engine starts there), as the aggregated estimate at that width says."""
    spec = s.serving.disaggregated
    if pre_tp == s.parallelism.tensor or spec is None:
        return True
    # the pool's own layout at that width
    pool = prefill_scenario(s, spec.model_copy(update={"prefill_tensor": pre_tp}))
    narrow = pool.model_copy(update={"serving": s.serving.model_copy(update={"disaggregated": None})})
    try:
        check_scenario(narrow)  # the pool's own ranks may not divide this width: none then
        sv = estimate(narrow).serving
    except ScenarioError:
        return False
    return sv is not None and sv.starts


def _widths(tp: int) -> list[int]:
    """Prefill tensor widths tried: powers of two below the option's, and its own."""
    out, w = [], 1
    while w < tp:
        if tp % w == 0:
            out.append(w)
        w *= 2
    return [*out, tp]
