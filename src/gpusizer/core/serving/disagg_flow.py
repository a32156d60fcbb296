"""The decode pool's arrivals under a request rate (``serving.load: "rate"``; core/serving/
disagg_rate.py): the prefill pool's departures, not the client's sends.

A request reaches a decode engine only once the prefill pool has computed its prompt: vLLM's
proxies send the prefill request with ``max_tokens`` 1, read its whole response and only then
send the request to the decode instance (vllm-project/vllm ``tests/v1/kv_connector/
nixl_integration/toy_proxy_server.py`` ``_handle_completions``; llm-d's routing sidecar
``pkg/sidecar/proxy/connector_nixlv2.go``, the same order; core/registry/pd_connectors.py);
SGLang's decode server moves a request from its transfer queue to its waiting queue only when
its KV has arrived (sgl-project/sglang ``python/sglang/srt/disaggregation/decode.py``, "Life
cycle of a request in the decode server": PreallocQueue, TransferQueue, WaitingQueue,
RunningBatch). So the decode pool's arrival process is the prefill queue's departure process:
a request leaves the prefill pool at its arrival plus its wait plus its service (the
departure epoch of a first-come-first-served queue, Kleinrock, *Queueing Systems* vol. 1,
1975, ch. 1), a constant transfer later, which shifts every arrival alike and so moves neither
the decode batch nor its slot wait.

- A prefill pool under its capacity passes its arrivals on at their rate, each a little later
  (the departures of a stable queue have the arrivals' rate; Burke 1956, "The output of a
  queuing system", *Operations Research* 4(6), for M/M/c: Poisson in, Poisson out).
- A prefill pool past its capacity passes them on at its own rate, whatever the client sends:
  its queue grows through the run, the first token with the run's length (the mean over the
  run's requests, core/serving/disagg_rate.py ``prefill_open``), and the decode pool sees at
  most the prefill pool's throughput.

Each prefill replica's run is the engine's scheduler (core/serving/scheduler.py) over its share
of the client's arrivals: replica 0's is the run ``prefill_open`` prices (the first token's
mean is its), the others' their own draws of the same process (another seed), each offset by
its place in the client's round robin (replica r's first request is the client's r-th: r / rate
seconds in, on average), at most :data:`REPLICAS` of them. A decode replica's request sent at t
through prefill replica r leaves it at ``t + V_r(t)``, V_r the sojourn (wait and service) of
the latest request that replica's run took at or before t: first come, first served, it queues
behind what that one queued behind (Takacs' virtual waiting time, the wait of a request
arriving at t, read at the run's own arrivals; Takacs 1955, Acta Math. Acad. Sci. Hungar. 6).
The client's i-th request to a decode replica of D is its (i D)-th overall, so it went through
prefill replica i D mod P (round robin), read at replica (i D mod P) mod REPLICAS. A replica's
backlog thus delays only its own requests, not the other replicas' (their queues are apart).
One replica of each pool over the same arrivals (1P1D): every request's own departure. Past a
run's last completed request (a run stopped at the work budget, core/serving/budget.py) the
last one's sojourn stands, as the run's completed requests stand for the whole run.

Not modelled: SGLang's decode server takes a request's KV blocks when it arrives at the
prealloc queue, before its prefill ends (here a request holds decode slots and KV from its
departure on); a router that sends a request to the least loaded prefill replica (llm-d's
scorers) rather than in turn; past :data:`REPLICAS` prefill replicas, several share one run.
"""

from __future__ import annotations

import bisect
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..memo import Memo
from .scheduler_run import Run
from .scheduler_types import SEED

if TYPE_CHECKING:
    from ..speed.step import StepModel
    from .scheduler_state import Group
    from .scheduler_types import Engine, Workload

REPLICAS = 8  # prefill replicas run apart; past it several share a run (module docstring)


class _FlowRun(Run):
    """The scheduler's run, keeping each request's arrival and engine seconds to its first
    token; replica ``r`` > 0 draws its arrivals with seed ``SEED + r``, ``offset`` s later."""

    def __init__(self, step: StepModel, eng: Engine, w: Workload, r: int = 0, offset: float = 0.0) -> None:
        super().__init__(step, eng, w)
        self.taken: list[float] = []  # arrivals, in the order ``st.ttft_at`` has their sojourns
        if r:
            from .scheduler_state import arrival_times

            self.arrivals = deque(offset + t for t in arrival_times(w, SEED + r))

    def _prefilled(self, g: Group) -> None:
        if g.generated == 0:  # its first token, whose sojourn the run keeps in ``ttft_at``
            self.taken.extend(g.arrivals)
        super()._prefilled(g)

    def sojourns(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """The completed requests' arrivals (sorted) and each one's sojourn, seconds."""
        flow = sorted(zip(self.taken, self.st.ttft_at, strict=True))
        return tuple(a for a, _ in flow), tuple(w for _, w in flow)


@dataclass(frozen=True)
class PrefillFlow:
    """The prefill pool's runs (module docstring): ``ttft`` replica 0's mean first token as the
    client sees it (seconds, core/serving/scheduler.py ``simulate``); ``runs`` each simulated
    replica's completed arrivals (seconds from the run's start, sorted) and their sojourns;
    ``replicas`` the pool's."""

    ttft: float
    runs: tuple[tuple[tuple[float, ...], tuple[float, ...]], ...]
    replicas: int

    def departures(self, times: list[float], decode_replicas: int) -> list[float]:
        """When a decode replica's requests, sent at ``times`` (seconds, sorted), leave the
        prefill pool, in the order they leave (module docstring)."""
        p, d, out = max(1, self.replicas), max(1, decode_replicas), []
        for i, t in enumerate(times):
            a, s = self.runs[(i * d) % p % len(self.runs)]
            out.append(t + s[max(0, bisect.bisect_right(a, t) - 1)] if a else t)
        out.sort()
        return out


def delivered(rate: float, times: list[float], left: list[float]) -> float:
    """Requests/s the prefill pool passes on of ``rate`` sent at ``times``, leaving at ``left``
    (both sorted): the rate as sent unless its departures span longer than its sends (a pool
    past its capacity passes them on at its own rate: module docstring)."""
    sent, out = times[-1] - times[0], left[-1] - left[0]
    return rate * sent / out if out > sent > 0 else rate


_FLOWS: Memo[PrefillFlow] = Memo(1024)


def prefill_flow(step: StepModel, eng: Engine, wl: Workload, replicas: int) -> PrefillFlow:
    """The runs of ``wl`` (one prefill replica's share, a "rate" load of one-token requests)
    on the pool's first :data:`REPLICAS` replicas; replica 0's as ``simulate`` runs it (the
    same steps, so the same mean first token). Kept by its inputs and the work budget (pure:
    a plan's splits with one prefill pool and several decode pools run it once)."""
    from .budget import caps

    key = (id(step), eng, wl.run_key, replicas, caps())
    return _FLOWS.get(key, lambda: _flow(step, eng, wl, replicas), (step,))


def _flow(step: StepModel, eng: Engine, wl: Workload, replicas: int) -> PrefillFlow:
    from .scheduler import client_view

    first = _FlowRun(step, eng, wl)
    result = client_view(first.run(), wl, eng.front_end)
    runs = [first.sojourns()]
    client = wl.rate * max(1, replicas)  # the client's rate: replica r starts r / rate s in
    for r in range(1, min(replicas, REPLICAS)):
        other = _FlowRun(step, eng, wl, r, r / client if client > 0 else 0.0)
        other.run()
        runs.append(other.sojourns())
    return PrefillFlow(float(result.ttft), tuple(runs), max(1, replicas))
