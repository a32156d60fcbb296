"""A disaggregated split under an open-loop request rate (``serving.load: "rate"``;
core/serving/disaggregated.py): the stated ``request_rate`` reaches the prefill pool as it is
sent, not as a closed loop of users sends it, so no fixed point of the users' cycle
(core/serving/disagg_queue.py) is sought.

The client sends ``requests`` requests (null: 1,000, vllm bench serve's default
``--num-prompts``, as the aggregated rate load) whatever the service's pace, the gap before
each drawn as ``vllm bench serve --request-rate R --burstiness B`` draws it
(vllm-project/vllm ``vllm/benchmarks/serve.py`` ``get_request``: exponential gaps for
burstiness 1, Poisson arrivals; else gamma of shape B and mean 1 / R; the seeded draw of
core/serving/scheduler_state.py ``_gap``), B the split's ``arrival_burstiness`` (null:
Poisson). A router spreads them over the pools' replicas, each taking ``rate / replicas``
requests/s and its share of the run's requests in the stated process (exact for one replica;
a random split of a Poisson stream is Poisson, Kingman 1993, *Poisson Processes* §5.1).

- Prefill: each replica's run is the engine's scheduler over those arrivals, each to its first
  token (core/serving/scheduler.py ``simulate``), from an idle pool: a short run holds its
  transient (the first requests find the pool empty), a pool past its capacity a queue that
  grows through the run, its mean first token the mean over the run's requests, as the
  aggregated rate load reports an overloaded engine (core/serving/budget.py: no steady state
  is assumed).
- Decode: its arrivals are the prefill pool's departures (core/serving/disagg_flow.py: a
  request reaches a decode engine once its prompt is computed, so an overloaded prefill pool
  passes requests on at its own rate, not the client's). A replica holds, by Little's law
  (L = lambda W, Little 1961), its arrival rate times a request's decode time, that time
  taken at that occupancy (the replica's run of that many steady users, core/serving/
  disagg_decode_run.py ``decode_run``: a fixed point on whole requests, found from one request
  up, the decode time growing with the batch); at most its slots (its engine's running cap
  and the requests its KV pool holds at once: core/serving/decode_slots.py,
  disagg_decode_run.py ``held``). A request waits for a slot when all are taken: the
  slots as the c servers of a G/D/c queue, each held a decode time, fed by the replica's
  arrivals from the prefill pool and served first come first served (Kiefer and Wolfowitz
  1955's recursion for the c-server queue's waits, run over the run's own arrivals, so a short
  run's transient and an overloaded pool's growing queue are both in the mean). The wait is in
  the first token (the client's first token is the decode engine's: core/serving/
  decode_queue.py), as the closed loop's slot wait is.

Not modelled: a request's slot time is the mean decode time at the replica's occupancy, not
each one's own.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the step model and the scheduler load on the first split's figures
    from ..model.serving_features import DisaggregatedSpec
    from ..model.specs import Scenario
    from ..speed.step import StepModel
    from .disagg_flow import PrefillFlow
    from .scheduler_types import Engine, LoadResult, Workload

ROUNDS = 12  # Little's-law steps to the decode replica's occupancy (whole requests)


@dataclass(frozen=True)
class OpenArrivals:
    """The client's arrivals: ``rate`` requests/s over the whole service, ``requests`` in the
    run, gaps of gamma shape ``burstiness`` (1.0: exponential, Poisson arrivals)."""

    rate: float
    requests: int
    burstiness: float = 1.0

    def per(self, replicas: int) -> OpenArrivals:
        """One replica's share of the arrivals (module docstring)."""
        n = max(1, replicas)
        return replace(self, rate=self.rate / n, requests=max(1, math.ceil(self.requests / n)))

    def times(self) -> list[float]:
        """The arrival times, seconds from the run's start (the aggregated rate load's seeded
        draw: core/serving/scheduler_state.py ``_gap``)."""
        from .scheduler_state import arrival_times
        from .scheduler_types import Workload

        w = Workload(1, 1, "rate", 1, self.rate, self.requests, False, burstiness=self.burstiness)
        return arrival_times(w)


def prefill_open(
    pre_step: StepModel, eng: Engine, wl: Workload, arrivals: OpenArrivals, replicas: int
) -> PrefillFlow:
    """One prefill replica's run over its share of the arrivals (module docstring): its mean
    seconds from a request's arrival to its first token and each request's departure
    (core/serving/disagg_flow.py), the run cut to the work budget as every rate run is
    (core/serving/budget.py)."""
    from .budget import bounded
    from .disagg_flow import prefill_flow

    one = arrivals.per(replicas)
    pre_wl = replace(
        wl,
        output=1,
        load="rate",
        rate=one.rate,
        requests=one.requests,
        time_boxed=False,
        burstiness=one.burstiness,
    )
    ran, _ = bounded(pre_wl)  # a rate load's users are not scaled: only its requests cut
    return prefill_flow(pre_step, eng, ran, replicas)


def decode_occupancy(run: Callable[[int], LoadResult], times: list[float], cap: int) -> int:
    """Requests a decode replica holds at once (module docstring): the whole n that
    :func:`overlap` of the replica's arrival ``times`` gives at the decode time of n at once,
    at least one and at most ``cap``; ``run(n)`` is the replica's run of n. From one up, each
    step the next n (the decode time grows with the batch), until it stands."""
    n = 1
    for _ in range(ROUNDS):
        nxt = min(cap, max(1, round(overlap(times, run(n).e2e))))
        if nxt == n:
            break
        n = nxt
    return n


def overlap(times: list[float], hold: float) -> float:
    """The batch a request decodes in, the run's mean: each request held ``hold`` seconds from
    its arrival, the time-average count of requests held during a request's own hold (itself
    included), ``sum_j max(0, hold - |t_j - t_k|) / hold`` over the run's arrivals
    (``times``, sorted). A long run at rate lambda gives lambda x hold, Little's law; a run of N
    requests never more than N, and its first and last requests fewer."""
    if hold <= 0.0 or not times:
        return 1.0
    pre = [0.0, *itertools.accumulate(times)]
    total = 0.0
    for k, t in enumerate(times):
        lo, hi = bisect.bisect_right(times, t - hold), bisect.bisect_left(times, t + hold)
        before = t * (k - lo) - (pre[k] - pre[lo])  # sum of t - t_j over the earlier ones
        after = (pre[hi] - pre[k + 1]) - t * (hi - k - 1)  # sum of t_j - t over the later ones
        total += (hold * (hi - lo) - before - after) / hold
    return total / len(times)


def arrival_busy(times: list[float], hold: float) -> float:
    """The share of a decode replica's arrivals (``times``, seconds) that find it stepping
    another request: one whose previous arrival came less than ``hold`` seconds before (each
    request held ``hold``, the last to arrive the last to leave). PASTA (Poisson arrivals see
    time averages, Wolff 1982) gives the time average, 1 - exp(-lambda x hold), only for Poisson
    arrivals; other gaps see the decode replica as their own gaps do: regular gaps longer than a
    request never find it busy, bursts nearly always do. For Poisson arrivals the two agree in
    expectation (the gap before an arrival is exponential: P(gap < hold) = 1 - exp(-lambda x
    hold)), so the run's own draw is read only where the stated gaps are not exponential
    (``serving.disaggregated.arrival_burstiness`` other than 1)."""
    if len(times) < 2 or hold <= 0.0:
        return 0.0
    ordered = sorted(times)
    return sum(b - a < hold for a, b in itertools.pairwise(ordered)) / len(ordered)


def slot_wait(times: list[float], slots: int, hold: float) -> float:
    """Mean seconds a request waits for one of ``slots`` decode slots, each held ``hold``
    seconds, over one replica's arrival ``times``: the first-come-first-served c-server
    queue's recursion (Kiefer and Wolfowitz 1955) over the run's own arrivals, from idle."""
    if not times or hold <= 0.0:
        return 0.0
    free = [0.0] * max(1, slots)  # when each slot is next free
    total = 0.0
    for t in times:
        start = max(t, heapq.heappop(free))
        total += start - t
        heapq.heappush(free, start + hold)
    return total / len(times)


@dataclass(frozen=True)
class Split:
    """What both loads read of a split: the scenario and its split, the decode pool's step,
    engine (its slots) and workload, the prefill pool's step and engine, each pool's replicas
    and one request's KV transfer (seconds)."""

    s: Scenario
    spec: DisaggregatedSpec
    step: StepModel
    slots: Engine
    wl: Workload
    pre_step: StepModel
    pre_eng: Engine
    prefill_r: int
    decode_r: int
    transfer: float


def check_open_load(s: Scenario, spec: DisaggregatedSpec) -> None:
    """``opening_burst`` is a concurrency benchmark's (core/serving/disagg_burst.py): every
    user's request at once; under ``serving.load: "rate"`` the client sends at the stated rate
    and has no users to burst, so the pair is refused rather than one of them ignored."""
    from ..errors import ScenarioError

    if spec.opening_burst and s.serving.load == "rate":
        raise ScenarioError(
            "serving.disaggregated.opening_burst",
            'a concurrency run\'s burst; with serving.load "rate" the arrivals are the stated '
            'rate\'s: set it null or false, or serving.load "steady"',
        )


def open_arrivals(s: Scenario, spec: DisaggregatedSpec) -> OpenArrivals | None:
    """The client's open-loop arrivals under ``serving.load: "rate"`` (core/serving/
    disagg_rate.py), null under a closed loop."""
    from .load import RATE_REQUESTS

    sv = s.serving
    if sv.load != "rate" or sv.request_rate is None:
        return None
    b = spec.arrival_burstiness
    return OpenArrivals(sv.request_rate, sv.requests or RATE_REQUESTS, 1.0 if b is None else b)


def open_split(
    sp: Split, arrivals: OpenArrivals, decode: Callable[[int], tuple[LoadResult, int, float]], cap: int
) -> tuple[LoadResult, float, float, float, float, float]:
    """The open loop of ``arrivals`` (module docstring), as core/serving/disaggregated.py
    ``_closed`` returns it: a decode replica at its occupancy by Little's law over the prefill
    pool's departures (core/serving/disagg_flow.py), the wait of those it holds in its queue,
    their wait for a slot, the prefill pool's queue, and the chance one arrives to a replica
    stepping others (Poisson arrivals see the time average, PASTA, Wolff 1982: an
    M/G/infinity count of the others decoding, 1 - exp(-lambda W)); then the requests/s the
    prefill pool passes on to the whole decode pool. ``decode(n)``: a decode replica's run of
    n (core/serving/disagg_decode_run.py ``decode_run``); ``cap``: the requests it holds at
    most."""
    from .budget import caps
    from .disagg_flow import delivered

    flow = prefill_open(sp.pre_step, sp.pre_eng, sp.wl, arrivals, sp.prefill_r)
    one = arrivals.per(sp.decode_r)
    # cut to the work budget's requests, as the prefill pool's run is (core/serving/budget.py)
    one = replace(one, requests=min(one.requests, caps().requests))
    sent = one.times()
    times = flow.departures(sent, sp.decode_r)
    rate = delivered(one.rate, sent, times)
    n = decode_occupancy(lambda k: decode(k)[0], times, cap)
    dec, _, queued = decode(n)
    wait = slot_wait(times, cap, dec.e2e)
    busy = 1.0 - math.exp(-rate * dec.e2e) if one.burstiness == 1.0 else arrival_busy(times, dec.e2e)
    return dec, queued, wait, flow.ttft, busy, arrivals.rate * (rate / one.rate)
