"""The prefill pool's first token under a disaggregated split (core/serving/disaggregated.py):
a request alone on an idle replica, or the users' requests queued as Poisson arrivals (or the
stated gamma gaps, ``arrival_burstiness``) whose rate and the queue meet at the fixed point of
the users' cycle. Split from
core/serving/disaggregated.py for size; the rules are as they were there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the step model and the scheduler load on the first split's figures
    from ..speed.step import StepModel
    from .scheduler_types import Engine, Workload

PREFILL_REQUESTS = 200  # Poisson arrivals simulated for the prefill pool
ROUNDS = 8  # regula falsi steps to the users' cycle and the prefill queue (fixed_point)


def prefill_ttft(
    pre_step: StepModel,
    eng: Engine,
    wl: Workload,
    users: int,
    replicas: int,
    rest: tuple[float, float],
    burstiness: float | None = None,
    shared: bool = False,
) -> float:
    """Seconds from a request's arrival at the prefill pool to its first token.

    Each user has one request outstanding at most, so with no more users than prefill
    replicas an idle replica is always free (a router that picks it: exact for one user) and
    a request waits behind none: it is one prompt alone. More users than replicas reach the
    pool as Poisson arrivals at the users' rate, one request per cycle (first token, then
    ``rest``: the decode and the transfer): the arrival rate and the queue meet at the fixed
    point of the cycle (:func:`fixed_point`). ``burstiness`` (``serving.disaggregated.
    arrival_burstiness``; null: Poisson) draws the gaps from a gamma of that shape instead, as
    vLLM's benchmark does (core/serving/scheduler_state.py ``_gap``), each prefill replica taking
    the stated process (exact for one replica; a round-robin proxy over k replicas makes each
    one's gaps more regular still, shape k x burstiness). ``shared``
    (``serving.disaggregated.prefill_queue: "shared"``): the whole stream waits in one queue
    that every replica pulls one request at a time from (core/serving/disagg_pull.py)."""
    from .scheduler import simulate

    if users <= replicas or shared:
        alone = replace(wl, output=1, load="steady", users=1, requests=1, time_boxed=False)
        first = float(simulate(pre_step, eng, alone).ttft)
        return first if users <= replicas else _pulled(first, wl, users, replicas, rest, burstiness)
    e2e, transfer = rest

    def queued(t: float) -> float:  # the pool's first token when the users' cycle has it at t
        rate = users / max(1e-9, e2e + t + transfer) / replicas
        pre_wl = replace(wl, output=1, load="rate", rate=rate, requests=PREFILL_REQUESTS, time_boxed=False)
        if burstiness is not None:
            pre_wl = replace(pre_wl, burstiness=burstiness)
        return float(simulate(pre_step, eng, pre_wl).ttft)

    return fixed_point(queued)


def _pulled(
    alone: float, wl: Workload, users: int, replicas: int, rest: tuple[float, float], burstiness: float | None
) -> float:
    """The pool's first token at the users' fixed point when every replica pulls from one
    queue, each holding a request ``alone`` seconds (core/serving/disagg_pull.py), and at
    least the closed loop's bound: ``users`` cycles cannot complete faster than the busy pool's
    ``replicas / alone`` requests/s, so the first token is at least ``users x alone / replicas``
    less the rest of the cycle (Little's law; Lazowska et al. 1984, *Quantitative System
    Performance* ch. 5, asymptotic bounds). The seeded Poisson run of ``PREFILL_REQUESTS`` cannot
    grow its queue to the users' own once the pool saturates; the bound holds it there."""
    from .disagg_pull import pulled_ttft
    from .scheduler_state import arrival_times

    e2e, transfer = rest

    def queued(t: float) -> float:
        rate = users / max(1e-9, e2e + t + transfer)  # the whole pool's: one queue
        pool = replace(wl, load="rate", rate=rate, requests=PREFILL_REQUESTS, time_boxed=False)
        if burstiness is not None:
            pool = replace(pool, burstiness=burstiness)
        return pulled_ttft(alone, arrival_times(pool), replicas)

    return max(fixed_point(queued), users * alone / replicas - e2e - transfer)


def fixed_point(f: Callable[[float], float]) -> float:
    """The t with f(t) = t for f falling in t (a later first token slows the users' cycle,
    so fewer requests queue): bracketed by 0 and f(0) and closed in by regula falsi (the
    Illinois rule) to a 1 % step; a plain iteration of f swings around it, undamped."""
    lo, g_lo = 0.0, f(0.0)
    hi = g_lo
    g_hi = f(hi) - hi
    if g_hi >= 0 or g_lo <= 0:
        return hi
    t, side = hi, 0
    for _ in range(ROUNDS):
        t = (lo * g_hi - hi * g_lo) / (g_hi - g_lo)
        g = f(t) - t
        if abs(g) <= 0.01 * max(t, 1e-9):
            return t
        if g > 0:
            lo, g_lo = t, g
            g_hi = g_hi / 2 if side > 0 else g_hi
            side = 1
        else:
            hi, g_hi = t, g
            g_lo = g_lo / 2 if side < 0 else g_lo
            side = -1
    return t
