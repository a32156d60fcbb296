"""The step-by-step run behind core/serving/scheduler.py (its docstring says what is
simulated): groups of identical requests, the engine's step plan (prompt chunks to the budget,
admission by max_running and the KV pool, preemption), stretches of pure decode steps summed in
one go, and the metrics of ``vllm bench serve``."""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field

from ..speed.step import StepModel
from .budget import caps
from .prefill_cap import prompts_taken
from .scheduler_holds import Holds
from .scheduler_types import MAX_STEPS, SEED, TIME_BOXED_STEPS, Engine, LoadResult, Workload, levels


@dataclass(eq=False)  # groups are told apart by identity (list.remove, index)
class Group:
    """Requests in the same state. Prefill: ``done`` of ``need`` tokens computed. Decode: they
    finish when the decode counter reaches ``finish``."""

    n: int
    arrivals: list[float]
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
        head = self.copy(n, self.arrivals[:n])
        self.n, self.arrivals = self.n - n, self.arrivals[n:]
        return head

    def copy(self, n: int, arrivals: list[float]) -> Group:
        g = Group(n, arrivals, self.need, self.prompt, self.output, self.done, self.generated, self.first)
        g.finish, g.base, g.ready = self.finish, self.base, self.ready
        return g


def _finish(g: Group) -> int:
    return g.finish


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


class Run:
    """One simulated run (module docstring)."""

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
        self.arrivals: deque[float] = deque()
        if w.arrives_at_rate:
            rng, t = random.Random(SEED), 0.0
            for _ in range(w.requests):
                self.arrivals.append(t)
                t += rng.expovariate(w.rate)
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
            self.waiting.append(Group(n, [t] * n, w.prompt, w.prompt, w.output, ready=ready))
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
                self.waiting.append(Group(c, [t] * c, p, p, o, ready=ready))

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

    def _room(self) -> int:
        """Requests that may still be admitted (max_running and the pool)."""
        eng, w = self.eng, self.w
        room = eng.max_running - self._running()
        if eng.admission == "static" and self._running():
            return 0
        if eng.admission == "reserve":
            per = (w.prompt + w.output) * (1 + w.spread)
        else:  # the blocks of the first chunk it is scheduled with
            first = w.prompt * (1 + w.spread)
            per = (min(first, eng.budget) if eng.chunked else first) + eng.block
        free = eng.kv_tokens - eng.watermark - self._kv_used()
        return max(0, min(room, int(free // max(1.0, per))))

    # -- a step's prompt chunks ---------------------------------------------------------------
    def _take(self, budget: float, plan: list[tuple[Group, int]]) -> float:
        """Give ``budget`` tokens to the unfinished prompts in order (splitting a group whose
        requests do not all fit); returns what is left."""
        chunked = self.eng.chunked
        for g in list(self.prefill):
            if budget <= 0:
                break
            left = g.need - g.done
            c = min(left, int(budget)) if chunked else left
            if c > budget and (plan or self.d_n):
                break
            fit = max(1, int(budget // c)) if c else g.n
            if fit < g.n:
                head = g.split(fit)
                self.prefill.insert(self.prefill.index(g), head)
                g = head
            plan.append((g, c))
            budget -= g.n * c
        return budget

    def _admit(
        self, budget: float, room: int, plan: list[tuple[Group, int]], decodes: bool, cap: float | None
    ) -> None:
        """Waiting requests into the step while the budget, max_running, the pool and SGLang's
        ``max_prefill_tokens`` (``cap``: what is left of it; core/serving/prefill_cap.py) allow."""
        chunked = self.eng.chunked
        while budget > 0 and self.waiting and room > 0:
            g = self.waiting[0]
            if g.ready > self.steps:
                break
            left = g.need - g.done  # a preempted request's cached blocks are not recomputed
            c = min(left, int(budget)) if chunked else left
            if c > budget and (plan or (decodes and self.d_n)):
                break
            n = min(g.n, room, max(1, int(budget // c)) if c else g.n)
            if cap is not None:
                n = min(n, prompts_taken(cap, left, not plan))
                if n <= 0:
                    break
                cap -= n * c
            g = self.waiting.popleft() if n == g.n else g.split(n)
            self.prefill.append(g)
            self.p_n += g.n
            self.p_done += g.n * g.done
            plan.append((g, c))
            budget -= n * c
            room -= n

    def _plan(self) -> tuple[list[tuple[Group, int]], bool]:
        """The prompt chunks of the next step, and whether its decodes run."""
        eng = self.eng
        plan: list[tuple[Group, int]] = []
        room = self._room()
        want = bool(self.prefill) or (bool(self.waiting) and room > 0 and not self._unready())
        sent = self.st.done if self.w.closed_loop else self.issued  # after the first round
        rate = sent / self.now if self.now > 0 else 0.0
        admit = room if want and not self.prefill else None
        if self.holds.plan(self.now, self.waiting, self.d_n, admit, rate, lambda: self._decode_time(0)):
            return plan, self.d_n > 0
        decodes = eng.mixed or not want
        if eng.mixed or not decodes:
            budget = float(eng.budget - (self.d_n if eng.mixed else 0))
            left = self._take(budget, plan)
            cap = None  # SGLang's max_prefill_tokens, less the decodes mixed in and the chunks taken
            if eng.max_prefill:
                cap = eng.max_prefill - (self.d_n if eng.mixed else 0) - (budget - left)
            self._admit(left, room, plan, decodes, cap)
        return plan, decodes and self.d_n > 0

    # -- running the step ------------------------------------------------------------------------
    def _advance(self, plan: list[tuple[Group, int]], decodes: bool) -> None:
        step, d = self.step, self.d_n if decodes else 0
        tokens = seqs = attn = read = sampled = 0.0
        for g, c in plan:
            a, r = step.chunk(g.done, c)
            tokens, seqs, attn, read = tokens + g.n * c, seqs + g.n, attn + g.n * a, read + g.n * r
            if g.done + c >= g.need:
                sampled += g.n
        mean = (self.d_base / d + self.k) if d else 0.0
        if tokens:
            dt = step.seconds(d, d * step.positions(mean), tokens, seqs, attn, read, d + sampled)
        else:
            dt = self._decode_step(d, d * step.positions(mean))
        self.steps += 1
        self.mixed_steps += tokens > 0
        if tokens:
            self.holds.prompt_ran()
        if tokens:  # what another rank's prompt step holds, for the ranks that wait on it
            self.prompts = [a + b for a, b in zip(self.prompts, (tokens, seqs, attn, read), strict=True)]
        self.evals += 1
        self.now += dt
        self.st.decode_time += dt if d else 0.0
        if d:
            self._decoded(1, d)
        for g, c in plan:
            g.done += c
            self.p_done += g.n * c
            if g.done >= g.need:
                self._prefilled(g)

    def _decoded(self, steps: int, d: int) -> None:
        self.k += steps
        self.st.decode_steps += steps
        self.st.decode_seqs += steps * d

    def _prefilled(self, g: Group) -> None:
        """A group's prompt is in the cache: its first (or next) token comes with this step."""
        self.prefill.remove(g)
        self.p_n -= g.n
        self.p_done -= g.n * g.done
        if g.generated == 0:
            g.first, now = self.now, self.now
            self.st.ttft_sum += g.n * now - sum(g.arrivals)
            self.st.ttft_at.extend([now - a for a in g.arrivals])
        g.generated += 1
        if g.generated >= g.output:
            self._complete(g)
            return
        g.finish = self.k + g.output - g.generated
        g.base = g.prompt + g.generated - self.k
        self.d_n += g.n
        self.d_base += g.n * g.base
        # after every group finishing no later (a binary search: thousands of groups of a
        # spread load made the scan from the end quadratic)
        self.decode.insert(bisect_right(self.decode, g.finish, key=_finish), g)

    def _complete(self, g: Group) -> None:
        st, o = self.st, g.output
        st.done += g.n
        st.tokens += g.n * g.output
        st.last = self.now
        st.e2e += g.n * self.now - sum(g.arrivals)
        if o > 1:
            st.tpot += g.n * (self.now - g.first) / (o - 1)
            st.tpot_n += g.n
        if self.w.closed_loop:
            self._arrive(self.now, g.n, self._skip(True))
        self.refills = self.refills or bool(self.waiting)

    def _finish_decodes(self) -> None:
        while self.decode and self.decode[0].finish <= self.k:
            g = self.decode.popleft()
            self.d_n -= g.n
            self.d_base -= g.n * g.base
            self._complete(g)

    def _preempt(self) -> None:
        """vLLM/SGLang: the pool cannot take the next tokens: the newest requests go back to the
        head of the queue and recompute their prompt and output so far, or with the engine's
        prefix cache (``Engine.cached_preemption``) only what lies past their last full block."""
        eng = self.eng
        while self.d_n and self._kv_used() + self.d_n > eng.kv_tokens and len(self.decode) > 0:
            over = self._kv_used() + self.d_n - eng.kv_tokens
            g = self.decode[-1]
            per = g.base + self.k + eng.block / 2
            n = min(g.n, max(1, math.ceil(over / max(1.0, per))))
            if n == g.n and len(self.decode) == 1 and not self.prefill:
                break  # the last group keeps running
            out = self.decode.pop() if n == g.n else None
            if out is None:
                out = g.copy(n, g.arrivals[-n:])
                g.n, g.arrivals = g.n - n, g.arrivals[:-n]
            self.d_n -= out.n
            self.d_base -= out.n * out.base
            made = int(out.base - out.prompt + self.k)  # tokens generated so far
            need = out.prompt + made
            kept = need // eng.block * eng.block if eng.cached_preemption else 0
            back = Group(out.n, out.arrivals, need, out.prompt, out.output, kept, made, out.first)
            self.waiting.appendleft(back)

    # -- the run ---------------------------------------------------------------------------------
    def _stretch(self) -> None:
        """Pure decode steps until the next event (a group done, an arrival, the pool full),
        summed in one go: the step time grows linearly with the context."""
        steps = self.decode[0].finish - self.k
        if self.waiting and self.waiting[0].ready > self.steps:
            steps = min(steps, self.waiting[0].ready - self.steps)
        t0 = self._decode_time(0)
        if self.arrivals:
            steps = min(steps, max(1, math.ceil((self.arrivals[0] - self.now) / max(t0, 1e-12))))
        if self.eng.admission == "grow":
            free = self.eng.kv_tokens - self._kv_used()
            steps = min(steps, max(1, int(free // max(1, self.d_n))))
        steps = self.holds.stretch(steps)
        t1 = self._decode_time(steps - 1) if steps > 1 else t0
        self.steps += steps
        self.evals += 1 + (steps > 1)
        self.now += steps * (t0 + t1) / 2
        self.holds.stretched(steps, self.now, (t0 + t1) / 2)
        self.st.decode_time += steps * (t0 + t1) / 2
        self._decoded(steps, self.d_n)

    def _decode_time(self, ahead: int) -> float:
        d, step = self.d_n, self.step
        mean = self.d_base / d + self.k + ahead
        return self._decode_step(d, d * step.positions(mean))

    def _decode_step(self, d: int, ctx: float) -> float:
        """A generation-only step of ``d`` decodes at ``ctx`` positions: a CUDA graph's, or an
        eager step's when another rank sharing the MoE layers has prompt tokens. Ranks whose
        waiting requests take the slots of finished ones admit independently, each in this
        rank's share of steps with prompt tokens so far; until then (a burst that fits) the
        ranks admit together and decode together. While another rank has prompt tokens, this
        one also waits for it at every MoE layer the ranks share ("the iteration time is
        dominated by the slowest rank", NVIDIA TensorRT-LLM tech blog 10 "ADP Balance
        Strategy"): its step takes the longer of its eager launches and its own kernels plus
        the other's prompt work (``StepModel.prompt_wait``, the mean of this rank's own prompt
        steps: the ranks are alike), the MoE layers at the other's token count where the engine
        pads every rank to it (``EngineCosts.dp_padding``)."""
        step, a = self.step, self.step.costs.graph_ranks
        t = step.seconds(d, ctx, sampled=d)
        if a <= 1 or not self.mixed_steps or not self.refills:
            return t
        q = (1.0 - self.mixed_steps / self.steps) ** (a - 1)  # no other rank has prompt tokens
        m = self.mixed_steps
        tokens, seqs, attn, read = (x / m for x in self.prompts)
        wait = step.prompt_wait(d, tokens, seqs, attn, read, padded=step.costs.dp_padding)
        other = max(step.seconds(d, ctx, sampled=d, graph=False), t + wait)
        return q * t + (1.0 - q) * other

    def run(self) -> LoadResult:
        cap = TIME_BOXED_STEPS if self.w.time_boxed else min(MAX_STEPS, caps().steps)
        while True:
            if self.evals >= cap:
                self.stopped = True
                break
            while self.arrivals and self.arrivals[0] <= self.now:
                self._arrive(self.arrivals.popleft(), 1, self._skip(False))
            if self.eng.admission == "grow":
                self._preempt()
            plan, decodes = self._plan()
            if plan:
                self._advance(plan, decodes)
            elif decodes:
                self._stretch()
            elif self.arrivals:  # idle until the next request
                self.now = max(self.now, self.arrivals[0])
                continue
            else:
                break
            self._finish_decodes()
        return self._result()

    def _result(self) -> LoadResult:
        """The run's metrics; a run stopped at its time box before a request completed reports
        what its steps show: TPOT = time of the decode steps / their number, tokens/s = tokens
        generated / time, E2E = TTFT + (output - 1) TPOT."""
        st, w = self.st, self.w
        n = len(st.ttft_at)
        ttft = st.ttft_sum / n if n else self.now
        p99 = sorted(st.ttft_at)[min(n - 1, math.ceil(0.99 * n) - 1)] if n else self.now
        if st.tpot_n:
            tpot, e2e, tps = st.tpot / st.tpot_n, st.e2e / st.done, st.tokens / st.last
        else:
            tpot = st.decode_time / st.decode_steps if st.decode_steps else 0.0
            e2e = ttft + max(0, w.output - 1) * tpot
            tps = (st.decode_seqs + n) / self.now if self.now else 0.0
        return LoadResult(
            ttft=ttft,
            ttft_p99=p99,
            tpot=tpot,
            e2e=e2e,
            tokens_per_second=tps,
            completed=st.done,
            running=st.decode_seqs / st.decode_steps if st.decode_steps else 0.0,
            stopped=self.stopped,
        )
