"""The layouts a practitioner would run on a given count of one GPU type, fastest first
(core/sizing/advise.py asks for the count it decided).

- Serving: core/sizing/fill_serving.py (replicas of TP x PP GPUs).
- Training: every shape of the search space (TP within the node, PP, CP, EP, ZeRO) with the
  widest data parallelism the count and the global batch allow, ranked by trained tokens
  per second; the first of them whose peak fits is the answer. A technique (the ladder of
  core/sizing/savings.py) is used only when nothing fits this count without it.
- With a deadline: per shape the smallest DP fast enough, on the fewest whole units
  (core/sizing/fill_deadline.py).

Speed is core/sizing/pace.py's; memory the search's evaluator (its memo shared by every GPU
of the catalog: a training peak does not depend on the GPU; core/sizing/widest.py). Neither
is worked out for every shape: the memory's lower bounds and the speed's ceilings
(pace.TrainingClock.ceiling) leave out what cannot be the answer, and the answer is the one
weighing every shape gives (tests/core/test_fill_bounds.py). Compare of Kimi K2 pre-trained
at 16k tokens priced 27,378 layouts on the catalog, 1,558 now.
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Callable, Sequence

from ..cancel import CancelToken
from ..model.architecture import resolve
from ..model.result import Estimate
from ..model.specs import Scenario
from ..model.unified import pool_bytes
from ..pipeline.estimate import estimate
from .fill_deadline import DeadlineFill, first_true
from .fill_serving import Choice, ServingFill
from .layout_search import Evaluator, GpuTarget
from .layout_space import (
    Layout,
    layout_preference,
    shape_degrees,
)
from .pace import TrainingClock
from .savings import Variant
from .search import holds
from .unit_host import host_short, offloads
from .widest import Widest, widest, with_dp

__all__ = ["Filler"]

# Shapes checked for memory before a lighter rung of techniques counts as not fitting on a
# count (the bisection over the rungs, Filler._any_fits; MoE models at long
# sequences have thousands of shapes, Kimi K2: 16 EP x 4 TP x 15 PP x 3 CP x 4 ZeRO degrees).
# A heavier rung then holds the work: slower, never a layout that does not fit.
MAX_CHECKED = 512


class Filler(ServingFill, DeadlineFill):
    """The fastest layouts of one GPU type on up to ``n`` GPUs."""

    def __init__(
        self,
        g: GpuTarget,
        variants: list[Variant],
        evaluator: Callable[[int], Evaluator],
        token: CancelToken,
        searched: dict[int, int | None] | None = None,
    ) -> None:
        self.g, self.variants, self.evaluator, self.token = g, variants, evaluator, token
        self.searched = searched or {}
        self.base = variants[0].scenario
        self.arch = resolve(self.base.model)
        self._clocks: dict[int, TrainingClock] = {}
        self._bases: dict[int, tuple[Evaluator, Scenario]] = {}
        self._estimates: dict[tuple[Layout, int | None], Estimate] = {}
        self._weights: tuple[float, float] | None = None  # (one GPU's weights, expert share)
        self._best: dict[tuple[int, int], list[Choice]] = {}
        self._replicas: dict[tuple[int, int, int, int], Choice | None] = {}
        self.pooled = pool_bytes(g.spec) is not None  # unified memory: check the machine too

    def _pref(self, lay: Layout) -> tuple[int, ...]:
        return layout_preference(lay, self.base.profile)

    def _check(self) -> None:
        """Stop when asked: raise, never return a partial answer (answers are kept)."""
        self.token.check()

    def scenario(self, v: int, lay: Layout, batch: int | None) -> Scenario:
        """Variant ``v``'s scenario laid out as ``lay`` on this GPU (``batch``: serving's
        requests per replica)."""
        ev = self.evaluator(v)
        if batch is not None:
            return ev.scenario(lay, batch_size=batch).model_copy(update={"hardware": self.g.hardware})
        base = self._bases.get(v)
        if base is None or base[0] is not ev:  # the base on this GPU, once per evaluator
            base = self._bases[v] = (ev, ev.base.model_copy(update={"hardware": self.g.hardware}))
        return base[1].model_copy(update={"parallelism": ev.parallelism(lay)})

    def clock(self, v: int) -> TrainingClock:
        if v not in self._clocks:
            # Through a weak proxy: a clock holding its filler would close a reference cycle, and
            # everything the two keep (a priced step per shape, a pace per layout: ~77,000
            # objects for Kimi K2) would wait for the cyclic collector, which then traced and
            # freed them in one pause at the end of the call (0.16-0.26 s of a 1.1 s
            # ``compare``, gc.callbacks). Reference counting frees them as the call returns:
            # the freeing remains, the tracing goes (the cold call ~5 % faster, paired runs).
            me = weakref.proxy(self)
            self._clocks[v] = TrainingClock(lambda lay: me.scenario(v, lay, None), self.g.spec)
        return self._clocks[v]

    def best(self, n: int, keep: int = 1) -> list[Choice]:
        """Up to ``keep`` layouts on at most ``n`` GPUs, fastest first (empty: none fits)."""
        key = (n, keep)
        if key not in self._best:
            self._best[key] = self._training(n, keep) if self.base.workload.trains else self._serving(n, keep)
        return self._best[key]

    # -- training ---------------------------------------------------------------------------
    def _lightest(self, n: int) -> int:
        """The lightest rung that may fit ``n`` GPUs: each rung saves memory over the ones
        before it, so a rung the search found needs more than ``n`` rules out the lighter
        ones (``searched``: the fewest found per rung searched, None when none fit)."""
        out = 0
        for v, fewest in self.searched.items():
            if n > self.variants[v].counts_up_to:
                continue  # searched only up to fewer GPUs: it says nothing of n
            if fewest is None or fewest > n:
                out = max(out, v + 1)
        # rungs are not always monotone: a heaviest rung that held nothing must not rule out a
        # lighter one the search found on n (Llama 3.1 70B fully fine-tuned on 4 Apple M3 Ultra
        # 512GB: the plain rung held on 4, the heaviest on none, and no layout was offered)
        found = [v for v, fewest in self.searched.items() if fewest is not None and fewest <= n]
        return min([out, *found])

    def _training(self, n: int, keep: int) -> list[Choice]:
        """The lightest rung with a layout on ``n`` GPUs (rungs only add savings: a bisection
        over them), its fastest layouts."""
        rungs = [v for v in range(self._lightest(n), len(self.variants)) if n <= self.variants[v].max_gpus]
        # whole-model copies (Unsloth's DDP) save no memory per GPU over a sharding rung before
        # them: tried only where none of those holds n, so the bisection stays monotone
        copies = rungs[-1:] if n > 1 and rungs and self.variants[rungs[-1]].whole_copies else []
        return self._bisect(rungs[: len(rungs) - len(copies)], n, keep) or self._bisect(copies, n, keep)

    def _bisect(self, rungs: list[int], n: int, keep: int) -> list[Choice]:
        """The lightest of ``rungs`` with a layout on ``n`` GPUs, its fastest layouts."""
        # a rung the count search found on at most n GPUs ends the bisection: the answer is no
        # heavier. Rungs are not always monotone: in a GRPO compare the heaviest held nothing on
        # a server's 8 GPUs while the lightest held the run on 4, and every server was refused
        known = next((j for j, v in enumerate(rungs) if self._found_on(v, n)), None)
        rungs = rungs if known is None else rungs[: known + 1]
        last = len(rungs) - 1
        i = first_true(lambda j: self._any_fits(rungs[j], n, whole=j == last), len(rungs))
        return [] if i is None else self._train_variant(rungs[i], n, keep)

    def _found_on(self, v: int, n: int) -> bool:
        """Whether the count search found a layout of rung ``v`` on at most ``n`` GPUs."""
        fewest = self.searched.get(v)
        return fewest is not None and fewest <= n and not self.pooled

    def _any_fits(self, v: int, n: int, whole: bool) -> bool:
        """Whether some layout of variant ``v`` on up to ``n`` GPUs fits (each shape at its
        widest DP, as :meth:`_train_variant` weighs them): memory only, so that the bisection
        over the rungs times the layouts of one rung, not of each it tries. Past
        :data:`MAX_CHECKED` shapes a lighter rung counts as not fitting (a heavier one then
        holds the work: slower, never a layout that does not fit); the heaviest (``whole``)
        is checked through."""
        if self._found_on(v, n):
            return True  # the count search found one on fewer GPUs (advise_all._ladder_counts)
        first = None if whole else MAX_CHECKED
        table = widest(self.evaluator(v), self._shapes(v, n, first), first)
        return any(self._pooled_fits(v, lay) for lay in table.fitting(self.g.capacity, self._check))

    def _shapes(self, v: int, n: int, first: int | None = None) -> list[tuple[Layout, Sequence[int]]]:
        """Variant ``v``'s shapes with their DP degrees on up to ``n`` GPUs, their first
        ``first`` when given (kept for every GPU of the catalog with the same node size:
        layout_space.shape_degrees)."""
        s = self.variants[v].scenario
        tp_max = (
            self.arch.heads if s.hardware.allow_cross_node_tensor_parallel else self.g.hardware.gpus_per_node
        )
        return shape_degrees(s, self.arch, tp_max, n, first)

    def _train_variant(self, v: int, n: int, keep: int) -> list[Choice]:
        """The fastest layouts of variant ``v`` on up to ``n`` GPUs: each shape with its
        widest DP, the ones whose memory fits, by speed (:meth:`_fastest`)."""
        shapes = self._shapes(v, n)
        table = widest(self.evaluator(v), shapes)
        return self._first_fitting(v, self._fastest(v, table, keep), keep, len(shapes))

    def _fastest(self, v: int, table: Widest, keep: int) -> list[Layout]:
        """The ``keep`` fastest layouts of ``table`` that fit, then by preference (on unified
        memory all that fit: the whole-machine check may turn the fastest away). Weighed in
        order of their ceiling (pace.TrainingClock.ceiling), memory then speed, until the
        ``keep``-th fastest is faster than every ceiling left: the same as weighing them all."""
        clock, cap = self.clock(v), self.g.capacity
        rank = lambda lay: (-(clock.pace(lay).tokens_per_second or 0.0), self._pref(lay))  # noqa: E731
        if self.pooled:
            return sorted(table.fitting(cap, self._check), key=rank)
        rows = [(-clock.ceiling(shape, dp), j, shape, dp) for j, shape, dp in table.candidates(cap)]
        rows.sort()  # fastest ceiling first; rows differ in j, so shapes are never compared
        best: list[tuple[tuple[float, tuple[int, ...]], Layout]] = []
        for top, j, shape, dp in rows:
            self._check()
            if len(best) >= keep and best[keep - 1][0][0] < top:  # both negated
                break
            lay = with_dp(shape, dp)
            if table.fits(j, lay, cap):
                bisect.insort(best, (rank(lay), lay), key=lambda r: r[0])
        return [lay for _, lay in best[:keep]]

    def fits(self, v: int, lay: Layout) -> bool:
        """Whether training layout ``lay`` of variant ``v`` fits (on unified memory, the
        whole machine too: a full estimate)."""
        ev = self.evaluator(v)
        if ev.lower_bound(lay, lay.dp) > self.g.capacity or ev.total(lay) > self.g.capacity:
            return False
        return self._pooled_fits(v, lay)

    def _pooled_fits(self, v: int, lay: Layout) -> bool:
        """Whether a layout whose GPU memory fits leaves the rest of a unified-memory machine
        enough too (always, on a GPU of its own memory), and what it offloads fits the host
        RAM of its purchase unit (core/sizing/unit_host.py; checked where it offloads)."""
        hosted = offloads(self.variants[v].scenario.parallelism)
        if not self.pooled and not hosted:
            return True
        est = estimate(self.scenario(v, lay, None))
        return holds(est, self.g.capacity) and host_short(est, self.g) is None

    def _first_fitting(self, v: int, layouts: list[Layout], keep: int, weighed: int) -> list[Choice]:
        clock, out = self.clock(v), []
        for lay in layouts:
            self._check()
            if not self.fits(v, lay):
                continue
            out.append(Choice(v, lay, None, clock.pace(lay), self.scenario(v, lay, None), True, weighed))
            if len(out) >= keep:
                break
        return out
