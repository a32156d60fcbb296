"""Training layouts of one GPU type fast enough for a deadline (core/sizing/fill.Filler's
deadline half): per shape the smallest DP fast enough (time falls as DP grows) and, if that does
not fit, the smallest that fits (memory falls as DP grows), on the fewest whole units, then the
fastest; with the lightest rung of techniques that needs no more units than any other.

Each shape is first queued at its fewest units by its speed ceiling
(pace.TrainingClock.ceiling: never slower than the step), priced by the step only when it
reaches the head of the queue; the work is charged to the GPU's deadline budget
(core/sizing/work.py DeadlineLedger).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable, Sequence

from ..model.specs import Scenario
from ..speed.goodput import effective_time_share
from .fill_serving import Choice
from .layout_search import Evaluator, GpuTarget
from .layout_space import Layout, layout_preference
from .pace import TrainingClock
from .savings import Variant
from .units import Unit
from .widest import with_dp
from .work import CEILING, MEMORY, PACE, DeadlineLedger

# a shape's first DP fast enough by a time function, charged to the work budget at a cost
Fast = Callable[[Layout, Sequence[int], Callable[[Layout], float], int], "int | None"]


def first_true(ok: Callable[[int], bool], n: int) -> int | None:
    """The first index in range(n) where a monotone ``ok`` holds (None when none does)."""
    if n == 0 or not ok(n - 1):
        return None
    return bisect.bisect_left(range(n - 1), True, key=ok)


class _Queue:
    """One variant's deadline queue on one GPU: entries by (whole units, -tokens/s,
    preference), and the bisection for a shape's first DP fast enough."""

    def __init__(
        self,
        clock: TrainingClock,
        ev: Evaluator,
        cap: float,
        base: Scenario,
        span: tuple[float, Unit],
        ledger: DeadlineLedger,
    ) -> None:
        self.clock, self.ev, self.cap, self.base = clock, ev, cap, base
        self.seconds, self.unit = span
        self.tokens = base.workload.training_tokens or 0.0
        self.heap: list[tuple[int, float, tuple[int, ...], int, Layout, Sequence[int], bool]] = []
        self.work = ledger  # this GPU's deadline budget (core/sizing/work.py DeadlineLedger)

    def push(self, lay: Layout, vals: Sequence[int], exact: bool = True) -> None:
        """An entry by (whole units, -tokens/s, preference): a layout priced (``exact``)
        or, before pricing, a shape's fewest units by its ceiling at no speed (no more
        than the layout it stands for: it is priced before any of those)."""
        rate = -(self.clock.pace(lay).tokens_per_second or 0.0) if exact else -math.inf
        pref = layout_preference(lay, self.base.profile)
        heapq.heappush(self.heap, (self.unit.count(lay.gpus), rate, pref, len(self.heap), lay, vals, exact))

    def first_fast(
        self, lay: Layout, vals: Sequence[int], time: Callable[[Layout], float], cost: int
    ) -> int | None:
        self.work.deadline_spent += cost * len(vals).bit_length()  # the bisection's steps

        # wall time: the step model's over the effective share (core/speed/goodput.py)
        def fast(j: int) -> bool:
            x = with_dp(lay, vals[j])
            return time(x) <= self.seconds * effective_time_share(self.base, x.gpus)

        return first_true(fast, len(vals))

    def price(self, lay: Layout, vals: Sequence[int]) -> None:
        """A shape queued by its ceiling, queued again at its smallest DP fast enough by the
        step (nothing once the deadline budget is spent)."""
        if self.work.deadline_over:
            return
        i = self.first_fast(lay, vals, lambda x: self.clock.pace(x).time_seconds or math.inf, PACE)
        if i is not None:
            self.push(with_dp(lay, vals[i]), vals[i:])

    def refit(self, lay: Layout, vals: Sequence[int]) -> None:
        """A layout fast enough whose memory does not fit, queued again at the smallest DP that
        fits (memory falls as DP grows), weighed again."""
        ev, cap = self.ev, self.cap
        self.work.deadline_spent += MEMORY * len(vals).bit_length()
        j = first_true(lambda k: ev.total(with_dp(lay, vals[k])) <= cap, len(vals))
        if j is not None and j > 0:  # the smallest DP that fits, weighed again
            self.push(with_dp(lay, vals[j]), vals[j:])


class DeadlineFill:
    """The deadline half of core/sizing/fill.Filler (which sets these attributes)."""

    g: GpuTarget
    base: Scenario
    variants: list[Variant]
    evaluator: Callable[[int], Evaluator]
    _ledger: DeadlineLedger | None = None

    def _check(self) -> None:
        raise NotImplementedError

    def scenario(self, v: int, lay: Layout, batch: int | None) -> Scenario:
        raise NotImplementedError

    def clock(self, v: int) -> TrainingClock:
        raise NotImplementedError

    def fits(self, v: int, lay: Layout) -> bool:
        raise NotImplementedError

    def _lightest(self, n: int) -> int:
        raise NotImplementedError

    def _shapes(self, v: int, n: int, first: int | None = None) -> list[tuple[Layout, Sequence[int]]]:
        raise NotImplementedError

    def deadline(self, seconds: float, unit: Unit, most: int, keep: int) -> list[Choice]:
        """The layouts that train ``workload.training_tokens`` within ``seconds`` on the
        fewest whole units (then the fastest), up to ``most`` GPUs, with the lightest
        technique that needs no more units than any other."""
        best: list[Choice] = []
        for v, variant in enumerate(self.variants):
            if v < self._lightest(most):
                continue
            found, memory_bound = self._timed(v, seconds, unit, min(most, variant.max_gpus), keep)
            if found and (not best or unit.count(found[0].layout.gpus) < unit.count(best[0].layout.gpus)):
                best = found
            if best and not memory_bound:
                break  # speed, not memory, set the count: a technique only slows it
        return best

    def ledger(self) -> DeadlineLedger:
        """This GPU's deadline budget, opened at its first deadline search."""
        if self._ledger is None:
            self._ledger = DeadlineLedger(self.evaluator(0).work)
        return self._ledger

    def deadline_cut(self) -> str | None:
        """The note when this GPU's deadline search ran out of its work budget (else None)."""
        work = self.ledger()
        return work.deadline_note() if work.deadline_over else None

    def _timed(self, v: int, seconds: float, unit: Unit, most: int, keep: int) -> tuple[list[Choice], bool]:
        """Variant ``v``'s layouts fast enough on the fewest whole units: per shape the
        smallest DP fast enough (time falls as DP grows) and, if that does not fit, the
        smallest that fits (memory falls as DP grows); and whether a layout of fewer units
        was turned away for memory."""
        q = _Queue(
            self.clock(v), self.evaluator(v), self.g.capacity, self.base, (seconds, unit), self.ledger()
        )
        shapes = self._shapes(v, most)
        held = self._queue_shapes(q, shapes)
        out, least = self._drain(v, q, keep, len(shapes))
        return out, self._memory_bound(v, q, out, least, held)

    def _queue_shapes(
        self, q: _Queue, shapes: list[tuple[Layout, Sequence[int]]]
    ) -> list[tuple[Layout, Sequence[int]]]:
        """Queue each shape at its fewest units fast enough by its ceiling; the shapes no DP
        holds are returned, timed only if needed (:meth:`_fast_on_fewer`)."""
        held: list[tuple[Layout, Sequence[int]]] = []
        for shape, vals in shapes:
            self._check()
            if q.work.deadline_over:
                break  # the call's deadline budget (core/sizing/work.py): what was found stands
            if q.ev.lower_bound(shape, vals[-1]) > q.cap:
                held.append((shape, vals))
                continue
            i = q.first_fast(shape, vals, lambda x: q.tokens / q.clock.ceiling(x), CEILING)  # none before is
            if i is not None:
                q.push(with_dp(shape, vals[i]), vals[i:], exact=False)
        return held

    def _drain(self, v: int, q: _Queue, keep: int, weighed: int) -> tuple[list[Choice], int | None]:
        """Up to ``keep`` layouts of the queue that fit, in its order, and the whole units of
        the first priced layout popped (None when none was)."""
        out: list[Choice] = []
        least = None
        while q.heap and len(out) < keep:
            self._check()
            *_, lay, vals, exact = heapq.heappop(q.heap)
            if not exact:
                q.price(lay, vals)
                continue
            least = q.unit.count(lay.gpus) if least is None else least
            if q.ev.lower_bound(lay, vals[-1]) > q.cap:
                continue
            q.work.deadline_spent += MEMORY
            if self.fits(v, lay):
                out.append(
                    Choice(v, lay, None, q.clock.pace(lay), self.scenario(v, lay, None), True, weighed)
                )
                continue
            q.refit(lay, vals)
        return out, least

    def _memory_bound(
        self,
        v: int,
        q: _Queue,
        out: list[Choice],
        least: int | None,
        held: list[tuple[Layout, Sequence[int]]],
    ) -> bool:
        """Whether a layout of fewer units than the answer's was turned away for memory."""
        if not out:
            return True
        fewest = q.unit.count(out[0].layout.gpus)
        if fewest > (least or 0):
            return True
        return any(self._fast_on_fewer(v, sh, vals, q.unit, fewest, q.first_fast) for sh, vals in held)

    def _fast_on_fewer(
        self, v: int, shape: Layout, vals: Sequence[int], unit: Unit, fewest: int, fast: Fast
    ) -> bool:
        """Whether ``shape`` of variant ``v``, which no DP of ``vals`` holds, is fast enough on
        fewer whole units than ``fewest``: then memory, not speed, set the count, and a lighter
        rung of techniques is tried. Decided for every shape, however its memory was turned
        away (the evaluator's bound before the queue, or the full estimate after): that bound
        tightens with the layouts the evaluator has seen, which differ between a GPU compared
        alone and in a catalog, and the answer must not (a 70B QLoRA read 8 A40s at TP 8 in the
        catalog, 2 with checkpointing alone). Only the widest DP on fewer units is timed (time
        falls as DP grows), by its ceiling first (never slower than the step), then the step."""
        k = bisect.bisect_left(
            range(len(vals)), fewest, key=lambda j: unit.count(with_dp(shape, vals[j]).gpus)
        )
        clock, tokens, top = self.clock(v), self.base.workload.training_tokens or 0.0, vals[k - 1 : k]
        if not top or fast(shape, top, lambda x: tokens / clock.ceiling(x), CEILING) is None:
            return False
        return fast(shape, top, lambda x: clock.pace(x).time_seconds or math.inf, PACE) is not None
