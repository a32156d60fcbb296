"""Admission and prompt-chunk selection of a simulated serving run (core/serving/scheduler_run.py
``Run``): which waiting requests a step admits (``max_running``, the KV pool and its
watermark, SGLang's ``max_prefill_tokens``), which prompt chunks fill the step's token budget,
the engine's prompt holds, and vLLM/SGLang's preemption when the pool runs out.

Units: tokens and requests; the engine's settings and their sources are
core/serving/scheduler_types.py ``Engine`` and core/registry/engines.py.
"""

from __future__ import annotations

import math
from functools import cached_property

from .prefill_cap import prompts_taken
from .scheduler_state import Group, RunState


class Admission(RunState):
    """What the next step runs: its prompt chunks and admissions, and preemption."""

    def _room(self) -> int:
        """Requests that may still be admitted (max_running and the pool)."""
        eng = self.eng
        room = eng.max_running - self._running()
        if eng.admission == "static" and self._running():
            return 0
        free = eng.kv_tokens - eng.watermark - self._kv_used()
        return max(0, min(room, int(free // self._per_request)))

    @cached_property
    def _per_request(self) -> float:
        """Pool tokens one admission takes, at least 1 (the run's engine and workload are fixed):
        its whole context where the engine reserves it, else the blocks of the first chunk it
        is scheduled with."""
        eng, w = self.eng, self.w
        if eng.admission == "reserve":
            per = (w.prompt + w.output) * (1 + w.spread)
        else:
            first = w.prompt * (1 + w.spread)
            per = (min(first, eng.budget) if eng.chunked else first) + eng.block
        return max(1.0, per)

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
        # nothing waits and no hold reads it: no room is asked (the pool's sums are skipped)
        room = self._room() if self.waiting or not self.holds.none else 0
        want = bool(self.prefill) or (bool(self.waiting) and room > 0 and not self._unready())
        if not self.holds.none and self._held(want, room):
            return plan, self.d_n > 0
        decodes = eng.mixed or not want
        if eng.mixed or not decodes:
            budget = float(eng.budget - (self.d_n if eng.mixed else 0))
            left = self._take(budget, plan) if self.prefill else budget
            cap = None  # SGLang's max_prefill_tokens, less the decodes mixed in and the chunks taken
            if eng.max_prefill:
                cap = eng.max_prefill - (self.d_n if eng.mixed else 0) - (budget - left)
            self._admit(left, room, plan, decodes, cap)
        return plan, decodes and self.d_n > 0

    def _held(self, want: bool, room: int) -> int:
        """Decode steps the engine's prompt holds keep the waiting prompts out (0: none)."""
        sent = self.st.done if self.w.closed_loop else self.issued  # after the first round
        rate = sent / self.now if self.now > 0 else 0.0
        admit = room if want and not self.prefill else None
        return self.holds.plan(self.now, self.waiting, self.d_n, admit, rate, lambda: self._decode_time(0))

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
                out = g.split_tail(n)
            self.d_n -= out.n
            self.d_base -= out.n * out.base
            made = int(out.base - out.prompt + self.k)  # tokens generated so far
            need = out.prompt + made
            kept = need // eng.block * eng.block if eng.cached_preemption else 0
            back = Group(out.n, out.arrivals, need, out.prompt, out.output, kept, made, out.first)
            self.waiting.appendleft(back)
