"""One rollout replica's KV pool and requests under vLLM V1's scheduler, moved event by event
(an end, a preemption, an admission), each step priced by the serving step model
(core/speed/step.py); core/pipeline/rl_preempt.py runs it over a step's responses.

The rules, from vLLM V1's ``v1/core/sched/scheduler.py`` ``schedule()`` and
``v1/core/kv_cache_manager.py`` ``allocate_slots`` (the V1 engine of the vLLM releases NeMo RL
pins: 0.9.0 at its v0.3, 0.10.0 at v0.4, 0.11.2 at v0.5, 0.17.1 at v0.6):

- A request is admitted when the free blocks hold the tokens it is scheduled with now (its
  prompt, or a resumed request's prompt + output so far): ``allocate_slots`` refuses only when
  ``num_blocks_to_allocate > block_pool.get_num_free_blocks()`` (no watermark in V1), so the
  engine does not reserve a response's final length; at most ``max_num_seqs`` run.
- Running requests are scheduled first, each needing the block of its next token; when none is
  free the last request of the running list (the newest admitted) is preempted
  (``self.running.pop()``, FCFS policy): its blocks are freed, its computed tokens reset to 0,
  and it goes back to the head of the waiting queue (``prepend_request``) with its output kept.
- Waiting requests are admitted only in a step that preempted none (``if not
  preempted_reqs``), in queue order, a resumed one recomputing prompt + output in chunks of the
  step's token budget beside the decodes (chunked prefill). With prefix caching on, its freed
  blocks that no other request has taken since are found again (``get_computed_blocks``): the
  free queue hands out the least recently freed block first (``FreeKVCacheBlockQueue``), so the
  others' growth eats a victim's blocks before the blocks freed after it.

Lengths: :func:`lengths` draws the replica's responses from rl_time's law (the longest at the
cap), in an order unrelated to length (the prompts' order in the step). Not modelled: V0's
1 % watermark (``BlockSpaceManager(watermark=0.01)``, vLLM before V1) and its prompt-only steps
(a resumed request's recompute is priced as a chunk beside the decodes, as V1 runs it).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

from ..speed.step import StepModel
from .rl_time import law_rate

MAX_EVENTS = 50_000  # bounds any scenario's run (a preemption, admission or finish each)
GOLDEN = (math.sqrt(5) - 1) / 2  # low-discrepancy order: any prefix spans the law


@dataclass(frozen=True)
class Pool:
    """The replica's engine as its scheduler sees it: KV pool (tokens), ``max_num_seqs``,
    tokens per step (``max_num_batched_tokens``), block size, prefix caching of freed blocks."""

    tokens: float
    running: int
    budget: int
    block: int
    cached: bool


def quantile(u: float, rate: float, cap: float) -> float:
    """Tokens below which a share ``u`` of responses end under the law exp(rate x) on [0, cap]."""
    x = rate * cap
    if abs(x) < 1e-9:
        return u * cap
    if x > 0:  # cap + ln(u + (1 - u) e^{-x}) / rate, finite for large x
        return cap + math.log(u + (1 - u) * math.exp(-x)) / rate
    return math.log1p(u * math.expm1(x)) / rate


def lengths(n: int, mean: float, cap: int) -> list[int]:
    """``n`` response lengths at the law's quantiles, the longest at ``cap`` (rl_time: one of a
    replica's samples at least is cut by ``max_new_tokens``), in golden-ratio order."""
    rate = law_rate(mean, cap)
    out = [max(1, round(quantile(((i + 0.5) * GOLDEN) % 1.0, rate, cap))) for i in range(n)]
    out[max(range(n), key=lambda i: ((i + 0.5) * GOLDEN) % 1.0)] = cap
    return out


class Replica:
    """The run (module docstring). Units are requests, or bundles of ``weight`` requests that
    move together; token counts are one request's, the pool and the step see ``weight`` each."""

    def __init__(self, step: StepModel, pool: Pool, prompt: int, outs: list[int], weight: float) -> None:
        self.step, self.pool, self.prompt, self.w = step, pool, prompt, weight
        self.length, self.made = outs, [0] * len(outs)
        self.base = [0.0] * len(outs)  # context - decode counter, while running
        self.k, self.t = 0, 0.0  # decode counter, seconds
        self.run: list[int] = []  # running, in admission order (finished ones dropped lazily)
        self.live: set[int] = set()
        self.ends: list[tuple[int, int]] = []  # (decode counter at its end, unit)
        self.sum_base = 0.0
        self.waiting: deque[int] = deque(range(len(outs)))
        # free KV in the order it is handed out: [owner (-1: none), tokens]
        self.free: deque[list[float]] = deque([[-1, pool.tokens / weight]])
        self.kept: dict[int, list[float]] = {}  # a victim's entry in ``free``
        self.events = self.peak = self.preempted = 0  # peak running and preemptions: units

    # -- state ------------------------------------------------------------------------------
    def _used(self) -> float:
        n = len(self.live)
        return self.sum_base + n * (self.k + self.pool.block / 2)

    def _room(self) -> float:
        return self.pool.tokens / self.w - self._used()

    def _ctx(self) -> float:
        return self.sum_base / len(self.live) + self.k if self.live else 0.0

    def _take(self, tokens: float) -> None:
        """Blocks handed out, least recently freed first (a victim's cache goes with them)."""
        while tokens > 0 and self.free:
            e = self.free[0]
            used = min(e[1], tokens)
            e[1] -= used
            tokens -= used
            if e[1] <= 0:
                self.free.popleft()

    def _decode_seconds(self, ctx: float) -> float:
        n = len(self.live) * self.w
        return self.step.decode_seconds(max(1, round(n)), ctx)

    # -- the scheduler's moves --------------------------------------------------------------
    def _admit(self) -> None:
        """Waiting units in queue order while ``max_num_seqs`` and the free blocks allow; their
        prompts (or recomputed prompt + output, less the blocks still cached) in steps of the
        token budget beside the running decodes, which advance a token each step; an admitted
        unit's first token comes with its last chunk."""
        p, w = self.pool, self.w
        tokens = attn = read = held = 0.0
        took: list[tuple[int, float]] = []
        while self.waiting and (len(self.live) + len(took) + 1) * w <= max(p.running, w):
            u = self.waiting[0]
            need = self.prompt + self.made[u]
            if (self.live or took) and self._room() - held < need + p.block / 2:
                break
            self.waiting.popleft()
            entry = self.kept.pop(u, None)
            kept = min(need, entry[1]) // p.block * p.block if entry and p.cached else 0.0
            if entry:
                entry[1] = 0.0  # its cached blocks are hits (taken back), the rest were reused
            self._take(need + p.block / 2 - kept)
            a, r = self.step.chunk(kept, need - kept)
            tokens, attn, read, held = tokens + need - kept, attn + a, read + r, held + need + p.block / 2
            took.append((u, float(need)))
        if not took:
            return
        steps = max(1, math.ceil(tokens * w / p.budget))
        n, seqs = len(self.live) * w, len(took) * w / steps
        pos = n * self.step.positions(self._ctx())
        f = w / steps
        self.t += steps * self.step.seconds(n, pos, tokens * f, seqs, attn * f, read * f, n + seqs)
        self._grow(steps)
        for u, ctx in took:
            self._start(u, ctx + 1)

    def _start(self, u: int, context: float) -> None:
        """``u`` decodes from ``context`` tokens (its prompt and output so far) on."""
        self.made[u] = round(context) - self.prompt
        self.base[u] = context - self.k
        self.sum_base += self.base[u]
        self.live.add(u)
        self.peak = max(self.peak, len(self.live))
        self.run.append(u)
        heapq.heappush(self.ends, (self.k + self.length[u] - self.made[u], u))

    def _preempt(self) -> None:
        """The newest running units go back to the head of the queue until every running unit
        has room for its next token; their blocks go to the end of the free queue."""
        while self._room() < len(self.live) and len(self.live) > 1:
            v = self.run.pop()
            if v not in self.live:
                continue
            ctx = self.base[v] + self.k
            self.made[v] = round(ctx) - self.prompt
            self.sum_base -= self.base[v]
            self.live.remove(v)
            self.preempted += 1
            self.waiting.appendleft(v)
            entry = [float(v), ctx + self.pool.block / 2]
            self.free.append(entry)
            self.kept[v] = entry

    def _grow(self, steps: int) -> None:
        """``steps`` decode steps: each running unit one token further, the ended ones freed."""
        if steps <= 0:
            return
        self.k += steps
        self._take(len(self.live) * steps)
        while self.ends and self.ends[0][0] <= self.k:
            _, u = heapq.heappop(self.ends)
            if u in self.live and self.base[u] + self.k >= self.prompt + self.length[u] - 1e-9:
                self.live.remove(u)
                self.sum_base -= self.base[u]
                self.made[u] = self.length[u]
                self.free.append([-1.0, self.prompt + self.length[u] + self.pool.block / 2])

    def _advance(self) -> None:
        """Decode steps up to the next end or the pool's last free token, summed at once (the
        step's time grows linearly with the context)."""
        live = len(self.live)
        while self.ends and self.ends[0][1] not in self.live:
            heapq.heappop(self.ends)
        to_end = self.ends[0][0] - self.k if self.ends else 1
        steps = max(1, min(to_end, int(self._room() // live)))
        ctx = self._ctx()
        self.t += steps * (self._decode_seconds(ctx) + self._decode_seconds(ctx + steps - 1)) / 2
        self._grow(steps)

    def seconds(self) -> float:
        """The replica's generation, seconds: first prefill to the last response's end."""
        preempted = False
        while self.live or self.waiting:
            self.events += 1
            if self.events > MAX_EVENTS:
                return self.t + self._rest()
            if not preempted and self.waiting:
                self._admit()
            if self._room() < len(self.live) and len(self.live) > 1:
                self._preempt()
                preempted = True
                continue
            preempted = False
            if self.live:
                self._advance()
        return self.t

    def _rest(self) -> float:
        """Past ``MAX_EVENTS``: the tokens left at the current batch and context."""
        left: float = sum(self.length[u] - self.made[u] for u in self.waiting)
        left += sum(self.prompt + self.length[u] - self.base[u] - self.k for u in self.live)
        live = max(1, len(self.live))
        return left / live * self._decode_seconds(self._ctx() or self.prompt)
