"""The step-by-step run behind core/serving/scheduler.py (its docstring says what is
simulated): groups of identical requests, the engine's step plan (prompt chunks to the budget,
admission by max_running and the KV pool, preemption), stretches of pure decode steps summed in
one go, and the metrics of ``vllm bench serve``.

The run's state and the bookkeeping of arrivals and the pool are core/serving/scheduler_state.py;
admission, prompt-chunk selection and preemption core/serving/scheduler_admit.py; this module
runs the steps, completes requests, and reports the metrics.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from functools import cached_property

from .budget import caps
from .scheduler_admit import Admission
from .scheduler_state import Group, RunState, Stats
from .scheduler_types import MAX_STEPS, TIME_BOXED_STEPS, LoadResult

__all__ = ["Group", "Run", "RunState", "Stats"]


def _finish(g: Group) -> int:
    return g.finish


class Run(Admission):
    """One simulated run (module docstring)."""

    # -- running the step ------------------------------------------------------------------------
    def _advance(self, plan: list[tuple[Group, int]], decodes: bool) -> None:
        d = self.d_n if decodes else 0
        tokens = seqs = attn = read = sampled = 0.0
        chunks = self._chunks
        for g, c in plan:
            n, done = g.n, g.done
            ar = chunks.get((done, c))
            a, r = ar if ar is not None else self._chunk(done, c)
            tokens, seqs, attn, read = tokens + n * c, seqs + n, attn + n * a, read + n * r
            if done + c >= g.need:
                sampled += n
        ctx = d * self.step.positions(self.d_base / d + self.k) if d else self._ctx0
        if tokens:
            work = (d, ctx, tokens, seqs, attn, read, d + sampled)
            dt = self._times.get(work)
            if dt is None:
                dt = self._prompt_step(*work)
            self.mixed_steps += 1
            if not self.holds.none:
                self.holds.prompt_ran()
            # what another rank's prompt step holds, for the ranks that wait on it (in place:
            # the same sums as a new list, without one per step)
            p = self.prompts
            p[0], p[1], p[2], p[3] = p[0] + tokens, p[1] + seqs, p[2] + attn, p[3] + read
        else:
            dt = self._decode_step(d, ctx)
        self.steps += 1
        self.evals += 1
        self.now += dt
        if d:
            self.st.decode_time += dt
            self._decoded(1, d)
        for g, c in plan:
            g.done += c
            self.p_done += g.n * c
            if g.done >= g.need:
                self._prefilled(g)

    @cached_property
    def _ctx0(self) -> float:
        """The decodes' attended positions of a step without decodes (the step model's own 0)."""
        return 0 * self.step.positions(0.0)

    def _chunk(self, done: int, c: int) -> tuple[float, float]:
        """``StepModel.chunk`` of a prompt chunk, remembered for the run: a run's identical
        requests take the same chunks step after step (the P/D prefill pool's 200 Poisson
        arrivals: ~400 steps of ~10 distinct chunks), and the step model is a pure function."""
        key = (done, c)
        hit = self._chunks.get(key)
        if hit is None:
            hit = self._chunks[key] = self.step.chunk(done, c)
        return hit

    def _prompt_step(
        self, d: int, ctx: float, tokens: float, seqs: float, attn: float, read: float, sampled: float
    ) -> float:
        """``StepModel.seconds`` of a step with prompt tokens, remembered for the run (see
        :meth:`_chunk`: the same few step shapes recur; a pure function of its arguments)."""
        work = (d, ctx, tokens, seqs, attn, read, sampled)
        hit = self._times.get(work)
        if hit is None:
            hit = self._times[work] = self.step.seconds(d, ctx, tokens, seqs, attn, read, sampled)
        return hit

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
            if self.d_n and self.eng.admission == "grow":  # nothing decodes: nothing to preempt
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
            if self.decode and self.decode[0].finish <= self.k:
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
