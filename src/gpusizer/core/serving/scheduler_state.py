"""The state of one simulated serving run (core/serving/scheduler_run.py ``Run``): groups of
identical requests (:class:`Group`), the metrics' running sums (:class:`Stats`), and
:class:`RunState`, which holds the queues and counters and does their bookkeeping: arrivals
(a length spread's levels, TensorRT-LLM's overlap skip) and the KV pool in use.

Units: times in seconds, the pool in tokens (``Engine.block`` tokens a block). The admission
and prompt-chunk selection built on it are core/serving/scheduler_admit.py.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..memo import Memo
from ..speed.step import StepModel
from .scheduler_holds import Holds
from .scheduler_types import SEED, Engine, Workload, levels


@dataclass(eq=False)  # groups are told apart by identity (list.remove, index)
class Group:
    """Requests in the same state. Prefill: ``done`` of ``need`` tokens computed. Decode: they
    finish when the decode counter reaches ``finish``. ``arrivals`` (seconds, oldest first) is
    a deque: a step takes its requests off either end in time proportional to those taken, so
    a burst of a million requests drained a few at a time stays linear, not quadratic."""

    n: int
    arrivals: deque[float]
    need: int
    prompt: int = 0
    output: int = 0
    done: int = 0
    generated: int = 0  # tokens generated (kept through a preemption)
    first: float = -1.0  # time of the first token
    finish: int = 0  # decode: the decode counter at which the group is done
    base: float = 0.0  # decode: context - decode counter (context grows with the counter)
    ready: int = 0  # waiting: the steps run before it may be scheduled (Engine.overlap_skip)

    def split(self, n: int) -> Group:
        """Detach the first ``n`` requests as a new group."""
        take = self.arrivals.popleft
        head = self.copy(n, [take() for _ in range(n)])
        self.n -= n
        return head

    def split_tail(self, n: int) -> Group:
        """Detach the last (newest) ``n`` requests as a new group."""
        take = self.arrivals.pop
        tail = [take() for _ in range(n)]
        tail.reverse()
        self.n -= n
        return self.copy(n, tail)

    def copy(self, n: int, arrivals: Iterable[float]) -> Group:
        g = Group(
            n, deque(arrivals), self.need, self.prompt, self.output, self.done, self.generated, self.first
        )
        g.finish, g.base, g.ready = self.finish, self.base, self.ready
        return g


@dataclass
class Stats:
    ttft_at: list[float] = field(default_factory=list)
    ttft_sum: float = 0.0
    tpot: float = 0.0
    tpot_n: int = 0
    e2e: float = 0.0
    done: int = 0
    tokens: int = 0
    last: float = 0.0
    decode_steps: int = 0
    decode_seqs: float = 0.0
    decode_time: float = 0.0


class RunState:
    """The queues and counters of one run (core/serving/scheduler_run.py ``Run``), with the
    bookkeeping of arrivals and of the pool."""

    def __init__(self, step: StepModel, eng: Engine, w: Workload) -> None:
        self.step, self.eng, self.w = step, eng, w
        self.now, self.k = 0.0, 0  # time, decode steps so far
        self.waiting: deque[Group] = deque()
        self.prefill: list[Group] = []
        self.p_n, self.p_done = 0, 0.0  # requests prefilling; their prompt tokens computed
        self.decode: deque[Group] = deque()  # by finish
        self.d_n, self.d_base = 0, 0.0  # decoding requests; sum of (prompt + generated - k)
        self.issued, self.evals = 0, 0
        self.steps, self.mixed_steps = 0, 0  # steps so far; of them with prompt tokens
        self.prompts = [0.0, 0.0, 0.0, 0.0]  # the prompt steps' tokens, sequences, attn, read
        self.refills = w.arrives_at_rate  # requests take the slots of finished ones (_decode_step)
        self.stopped = False
        self.holds = Holds(eng)  # the engine's prompt holds (core/serving/scheduler_holds.py)
        self.st = Stats()
        # the run's prompt chunks and prompt-step times by their work (Run._chunk, _prompt_step):
        # a run's own memo, so none outlives it or leaks into another scenario's
        self._chunks: dict[tuple[int, int], tuple[float, float]] = {}
        self._times: dict[tuple[float, ...], float] = {}
        self.arrivals: deque[float] = deque()
        if w.arrives_at_rate:
            self.arrivals.extend(arrival_times(w))
        else:
            self._arrive(0.0, w.users)

    # -- bookkeeping -------------------------------------------------------------------------
    def _arrive(self, t: float, n: int, skip: int = 0) -> None:
        """``n`` requests at ``t``; with a length spread they take the levels in turn. While the
        engine runs, they wait ``skip`` steps before they may be scheduled (:meth:`_skip`)."""
        n = min(n, self.w.requests - self.issued)
        if n <= 0:
            return
        w, ready = self.w, self.steps + skip if self._running() else 0
        if not w.spread:
            self.issued += n
            self.waiting.append(Group(n, deque([t] * n), w.prompt, w.prompt, w.output, ready=ready))
            return
        a, b, k = self.issued, self.issued + n, levels(w.users)

        def upto(x: int, i: int) -> int:  # requests before number x that take level i
            return max(0, (x - i + k - 1) // k)

        self.issued = b
        # fewer requests than levels take levels a % k .. (b - 1) % k, one each: the same groups
        # in the same order as the loop over every level, without 64 steps per arrival
        hit = sorted({x % k for x in range(a, b)}) if n < k else range(k)
        for i in hit:
            c = upto(b, i) - upto(a, i)
            if c > 0:
                f = 1.0 + w.spread * (2 * i / (k - 1) - 1)
                p, o = max(1, round(w.prompt * f)), max(0, round(w.output * f))
                self.waiting.append(Group(c, deque([t] * c), p, p, o, ready=ready))

    def _running(self) -> int:
        return self.d_n + self.p_n

    def _skip(self, closed: bool) -> int:
        """Steps an arrival misses under TensorRT-LLM's overlap scheduler (``Engine.overlap_skip``):
        a request that arrives while step s runs is fetched after step s + 1 was scheduled and
        runs in step s + 2; a closed-loop user's next request leaves with the last token of
        step n, sent once step n + 1 was launched, so it arrives during step n + 1."""
        skip = self.eng.overlap_skip
        return skip if closed or not skip else skip - 1

    def _unready(self) -> bool:
        """The head of the queue may not be scheduled yet (an idle engine takes it at once)."""
        if not self.waiting or self.waiting[0].ready <= self.steps:
            return False
        if self._running():
            return True
        for g in self.waiting:
            g.ready = min(g.ready, self.steps)
        return False

    def _kv_used(self) -> float:
        eng, w, half = self.eng, self.w, self.eng.block / 2
        if eng.admission == "reserve":
            per = math.ceil((w.prompt + w.output) * (1 + w.spread) / eng.block) * eng.block
            return self._running() * per
        ctx = self.d_base + self.d_n * self.k
        return ctx + self.d_n * half + self.p_done + self.p_n * half

    def _decode_time(self, ahead: int) -> float:
        """Seconds of one pure decode step ``ahead`` steps from now (Run's, which knows the
        step model's ranks; admission reads it for the engine's prompt holds)."""
        raise NotImplementedError


def _gap(rng: random.Random, w: Workload) -> float:
    """Seconds to the next arrival of a "rate" load: exponential (Poisson arrivals), or, with
    ``w.burstiness`` set, gamma of that shape and mean ``1 / rate`` as vLLM's benchmark draws
    them (``vllm/benchmarks/serve.py`` ``get_request``: ``theta = 1.0 / (request_rate * burstiness)``,
    ``np.random.gamma(shape=burstiness, scale=theta)``; squared coefficient of variation
    ``1 / burstiness``). Burstiness 1 keeps the exponential draw, so its answers are as before.

    A shape so small that the scale ``1 / (rate x burstiness)`` overflows (5e-324) made the gap
    0 x inf, NaN, and the run never ended; such a gap is 0, the gamma's limit as its shape falls
    to 0 at a fixed mean (every draw 0 in probability: the requests arrive at once)."""
    if w.burstiness == 1.0:
        return rng.expovariate(w.rate)
    # gammavariate(shape, theta) returns its unit draw times theta: the same gaps as before
    x = rng.gammavariate(w.burstiness, 1.0)
    per = w.rate * w.burstiness
    gap = x * (1.0 / per) if per > 0.0 else math.inf
    return gap if math.isfinite(gap) else 0.0


_ARRIVALS: Memo[tuple[float, ...]] = Memo(64)  # a plan's splits draw the same arrivals again


def arrival_times(w: Workload, seed: int = SEED) -> list[float]:
    """Seconds from the run's start of each of ``w.requests`` arrivals of a "rate" load, the
    seeded :func:`_gap` (what :class:`RunState` runs): core/serving/disagg_rate.py reads the
    same arrivals for a disaggregated decode pool; core/serving/disagg_flow.py draws another
    prefill replica's with another ``seed``. Kept by what the draw reads (a pure function)."""
    key = (w.rate, w.requests, w.burstiness, seed)
    return list(_ARRIVALS.get(key, lambda: _drawn(w, seed)))


_UNITS: Memo[tuple[float, ...]] = Memo(16)  # the unit exponential draws by count and seed


def _units(requests: int, seed: int) -> tuple[float, ...]:
    """The seeded unit exponential draws of :func:`_gap` at burstiness 1: CPython's
    ``Random.expovariate(rate)`` is ``-log(1.0 - random()) / rate`` (Lib/random.py, 3.11 and
    3.12), so a gap is this draw over the rate, the same float operations whatever the rate.
    The P/D prefill queue (core/serving/disagg_queue.py) redraws 200 arrivals at each rate of
    its fixed point: a catalog compare of DeepSeek-V3's split drew 903,200 gaps (cProfile,
    docs/evidence/rl.md, the catalog compare's CPU time). tests/core/test_compare_cpu.py holds
    the draws equal to ``expovariate``'s."""
    rng = random.Random(seed)
    return tuple(-math.log(1.0 - rng.random()) for _ in range(requests))


def _drawn(w: Workload, seed: int) -> tuple[float, ...]:
    if w.burstiness == 1.0:
        units = _UNITS.get((w.requests, seed), lambda: _units(w.requests, seed))
        t, times = 0.0, []
        for u in units:
            times.append(t)
            t += u / w.rate
        return tuple(times)
    rng, t, out = random.Random(seed), 0.0, []
    for _ in range(w.requests):
        out.append(t)
        t += _gap(rng, w)
    return tuple(out)
