"""The opening burst of a closed-loop benchmark in a disaggregated split's first token
(``serving.disaggregated.opening_burst``; core/serving/disaggregated.py).

A concurrency benchmark opens with every user's request at once: aiperf's ``--concurrency``
issues its credits with no gap (``ConcurrencyBurstRateGenerator.next_interval`` returns 0,
ai-dynamo/aiperf ``aiperf/timing/request_rate_strategy.py`` at db4f6397), and its profiling
phase starts only once the warm-up's requests have all returned (``_execute_phases``: "Wait
for the credits to be returned before continuing to the next phase",
``aiperf/timing/credit_issuing_strategy.py``), so the measured requests open with the whole
burst again. Its TTFT is the first response's time less the request's start
(``aiperf/metrics/types/ttft_metric.py``), so it holds each request's wait at the prefill
pool. At a prefill rank that runs one request at a time (aiconfigurator's generated prefill
workers, docs/evidence/serving.md §17) the first wave's k-th prompt waits behind k - 1 others;
the users then come back spread by the pool's own pace. aiconfigurator derives the same
term for its disaggregated first token (ai-dynamo/aiconfigurator
``src/aiconfigurator/sdk/inference_session.py``, the comment on
``_AUTOSCALE_TTFT_CORRECTION_FACTOR``: with local concurrency ``lc`` = concurrency / prefill
workers and ``N x concurrency`` requests, ``(lc (lc + 1) / 2 + lc (N - 1)) / lc / N`` prefill
times a request), and folds it into a fixed factor 1.8; ours prices it from the run.

The run's mean first token is then the burst's mean over its first ``users`` requests and the
steady queue's (core/serving/disagg_queue.py) over the rest: ``serving.requests`` requests in
all (null: the steady run's default, four rounds of the users, core/serving/load.py
``ROUNDS``). The
burst is simulated by the engine's own scheduler at one prefill rank with its share of the
users (their requests at once, each to its first token), so a rank that batches prompts
(``prefill_max_sequences`` above 1 or unset) drains it in fewer steps.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the step model and the scheduler load on the first split's figures
    from ..speed.step import StepModel
    from .scheduler_types import Engine, Workload


def opening_burst(
    pre_step: StepModel,
    eng: Engine,
    wl: Workload,
    users: int,
    replicas: int,
    steady: float,
    rounds: float,
) -> float:
    """Seconds from arrival to first token at the prefill pool, the run's mean, when the run
    opens with every user's request at once (module docstring): ``steady`` is the pool's
    queue once the users are spread, ``rounds`` the run's requests per user (at least one:
    the burst alone). With no more users than prefill replicas the burst waits behind none
    and ``steady`` is returned."""
    if users <= replicas:
        return steady
    burst = _burst_mean(pre_step, eng, wl, users, replicas)
    n = max(1.0, rounds)
    return (burst + (n - 1.0) * steady) / n


def _burst_mean(pre_step: StepModel, eng: Engine, wl: Workload, users: int, replicas: int) -> float:
    """The burst's mean first token over all its requests: the router spreads them evenly,
    ``users % replicas`` ranks taking one more than the rest, each rank's share simulated as
    a burst of that many (seconds). A share past the work budget's users is simulated with
    that many and its waits scaled, as every burst is (core/serving/budget.py)."""
    from .budget import bounded, extrapolated
    from .scheduler import simulate

    low, extra = divmod(users, replicas)
    total = 0.0
    for share, ranks in ((low, replicas - extra), (low + 1, extra)):
        if share and ranks:
            one = replace(wl, output=1, load="burst", users=share, requests=share, time_boxed=False)
            ran, scale = bounded(one)
            total += float(extrapolated(simulate(pre_step, eng, ran), scale).ttft) * share * ranks
    return total / users
