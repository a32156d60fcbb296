"""The layouts a practitioner would run on a given count of one GPU type, fastest first
(core/sizing/advise.py asks for the count it decided).

- Serving: one replica is TP x PP GPUs (TP within the node, PP for what TP cannot hold),
  as many replicas as the count takes; a MoE model may also spread its experts over the
  replicas (EP = DP, as vLLM's ``--enable-expert-parallel`` does). Each TP width is tried
  with the fewest stages that hold the memory of its share of the users. The fastest is the
  one that serves the most tokens per second over all its replicas (at a fixed count, the
  cheapest per million tokens), among those meeting the serving targets; then the fastest
  per user.
- Training: every shape of the search space (TP within the node, PP, CP, EP, ZeRO) with the
  widest data parallelism the count and the global batch allow, ranked by trained tokens
  per second; the first of them whose peak fits is the answer. A technique (the ladder of
  core/sizing/savings.py) is used only when nothing fits this count without it.

Speed is core/sizing/pace.py's; memory the search's evaluator (its memo shared by every GPU
of the catalog: a training peak does not depend on the GPU).
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..cancel import CancelToken
from ..model.architecture import ceil_div, resolve
from ..model.params import count_parameters
from ..model.result import Estimate
from ..model.specs import Scenario, TargetsSpec
from ..model.unified import pool_bytes
from ..pipeline.estimate import estimate
from ..serving.rules import memory_rule
from .layout_search import Evaluator, GpuTarget
from .layout_space import (
    Layout,
    divisors,
    dp_candidates,
    dp_rule,
    layout_preference,
    layout_space,
    pp_degrees,
)
from .option import Pace
from .pace import TrainingClock, option_pace
from .savings import Variant
from .search import holds
from .units import Unit

# Shapes checked for memory before a lighter rung of techniques counts as not fitting on a
# count (the bisection over the rungs, Filler._any_fits; issue 24, item 12: MoE models at long
# sequences have thousands of shapes, Kimi K2: 16 EP x 4 TP x 15 PP x 3 CP x 4 ZeRO degrees).
# A heavier rung then holds the work: slower, never a layout that does not fit.
MAX_CHECKED = 512


def _first(ok: Callable[[int], bool], n: int) -> int | None:
    """The first index in range(n) where a monotone ``ok`` holds (None when none does)."""
    if n == 0 or not ok(n - 1):
        return None
    return bisect.bisect_left(range(n - 1), True, key=ok)


def _with_dp(lay: Layout, dp: int) -> Layout:
    """``lay`` at another DP (dataclasses.replace costs five times as much)."""
    return Layout(lay.tp, lay.pp, lay.cp, lay.ep, lay.zero, lay.recompute, dp)


def meets(pace: Pace, t: TargetsSpec) -> bool:
    """Whether a serving speed meets the per-user targets (``users`` is met by spreading
    them over the replicas)."""
    ttft, per_user = pace.ttft_seconds, pace.tokens_per_second_per_user
    if t.max_ttft_seconds is not None and (ttft is None or ttft > t.max_ttft_seconds):
        return False
    floor = t.min_tokens_per_second_per_user
    return floor is None or (per_user is not None and per_user >= floor)


@dataclass(frozen=True)
class Choice:
    """A layout on this GPU: the variant (index into the ladder), the layout, requests per
    replica (serving), its speed, the scenario put back, and how many were weighed."""

    variant: int
    layout: Layout
    batch: int | None
    pace: Pace
    scenario: Scenario
    met: bool = True
    weighed: int = 1


class Filler:
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
        self._shape_lists: dict[tuple[int, int], list[tuple[Layout, Sequence[int]]]] = {}
        self._replicas: dict[tuple[int, bool, int], Choice | None] = {}
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
            self._clocks[v] = TrainingClock(lambda lay: self.scenario(v, lay, None), self.g.spec)
        return self._clocks[v]

    def best(self, n: int, keep: int = 1) -> list[Choice]:
        """Up to ``keep`` layouts on at most ``n`` GPUs, fastest first (empty: none fits)."""
        key = (n, keep)
        if key not in self._best:
            self._best[key] = (
                self._training(n, keep) if self.base.workload.is_training else self._serving(n, keep)
            )
        return self._best[key]

    # -- training ---------------------------------------------------------------------------
    def _lightest(self, n: int) -> int:
        """The lightest rung that may fit ``n`` GPUs: each rung saves memory over the ones
        before it, so a rung the search found needs more than ``n`` rules out the lighter
        ones (``searched``: the fewest found per rung searched, None when none fit)."""
        out = 0
        for v, fewest in self.searched.items():
            if n > self.variants[v].max_gpus:
                continue  # searched only up to fewer GPUs: it says nothing of n
            if fewest is None or fewest > n:
                out = max(out, v + 1)
        return out

    def _training(self, n: int, keep: int) -> list[Choice]:
        """The lightest rung with a layout on ``n`` GPUs (rungs only add savings: a bisection
        over them), its fastest layouts."""
        rungs = [v for v in range(self._lightest(n), len(self.variants)) if n <= self.variants[v].max_gpus]
        last = len(rungs) - 1
        i = _first(lambda j: self._any_fits(rungs[j], n, whole=j == last), len(rungs))
        return [] if i is None else self._train_variant(rungs[i], n, keep)

    def _any_fits(self, v: int, n: int, whole: bool) -> bool:
        """Whether some layout of variant ``v`` on up to ``n`` GPUs fits (each shape at its
        widest DP, as :meth:`_train_variant` weighs them): memory only, so that the bisection
        over the rungs times the layouts of one rung, not of each it tries. Past
        :data:`MAX_CHECKED` shapes a lighter rung counts as not fitting (a heavier one then
        holds the work: slower, never a layout that does not fit); the heaviest (``whole``)
        is checked through."""
        fewest = self.searched.get(v)
        if fewest is not None and fewest <= n and not self.pooled:
            return True  # the count search found one on fewer GPUs (advise_all._ladder_counts)
        shapes = self._shapes(v, n)
        for shape, vals in shapes if whole else shapes[:MAX_CHECKED]:
            self._check()
            if self.fits(v, _with_dp(shape, vals[-1])):
                return True
        return False

    def _shapes(self, v: int, n: int) -> list[tuple[Layout, Sequence[int]]]:
        """Each shape of variant ``v``'s search space (DP 1) with its valid DP degrees up to
        ``n`` GPUs, in layout_space's order (TP, then PP, CP and EP from the smallest)."""
        key = (v, n)
        if key in self._shape_lists:
            return self._shape_lists[key]
        s = self.variants[v].scenario
        node = self.g.hardware.gpus_per_node
        tp_max = self.arch.heads if s.hardware.allow_cross_node_tensor_parallel else node
        space = layout_space(s, self.arch, tp_max, (s.parallelism.recompute,), n)
        out = []
        dps: dict[tuple[int, ...], Sequence[int]] = {}
        for tp, pp, cp, ep in space.shapes:
            for zero in space.zeros:
                rule = dp_rule(s, ep, cp, zero, tp * pp * cp, n)
                vals = dps.get(rule)
                if vals is None:
                    vals = dps[rule] = dp_candidates(s, *rule)
                if vals:
                    out.append((Layout(tp, pp, cp, ep, zero, s.parallelism.recompute), vals))
        self._shape_lists[key] = out
        return out

    def _train_variant(self, v: int, n: int, keep: int) -> list[Choice]:
        """The fastest layouts of variant ``v`` on up to ``n`` GPUs: each shape with its
        widest DP (not below the states' lower bound), by speed; the first that fit."""
        clock, ev, cap = self.clock(v), self.evaluator(v), self.g.capacity
        ranked = []
        shapes = self._shapes(v, n)
        for shape, vals in shapes:
            self._check()
            lay = _with_dp(shape, vals[-1])
            if ev.lower_bound(lay, lay.dp) <= cap:
                ranked.append(
                    (
                        -(clock.pace(lay).tokens_per_second or 0.0),
                        layout_preference(lay, self.base.profile),
                        lay,
                    )
                )
        ranked.sort(key=lambda r: (r[0], r[1]))
        return self._first_fitting(v, [r[2] for r in ranked], keep, len(shapes))

    def fits(self, v: int, lay: Layout) -> bool:
        """Whether training layout ``lay`` of variant ``v`` fits (on unified memory, the
        whole machine too: a full estimate)."""
        ev = self.evaluator(v)
        if ev.lower_bound(lay, lay.dp) > self.g.capacity or ev.total(lay) > self.g.capacity:
            return False
        return not self.pooled or holds(estimate(self.scenario(v, lay, None)), self.g.capacity)

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

    def _timed(self, v: int, seconds: float, unit: Unit, most: int, keep: int) -> tuple[list[Choice], bool]:
        """Variant ``v``'s layouts fast enough on the fewest whole units: per shape the
        smallest DP fast enough (time falls as DP grows) and, if that does not fit, the
        smallest that fits (memory falls as DP grows); and whether a layout of fewer units
        was turned away for memory."""
        clock, ev = self.clock(v), self.evaluator(v)
        heap: list[tuple[int, float, tuple[int, ...], int, Layout, Sequence[int]]] = []

        def push(lay: Layout, vals: Sequence[int]) -> None:
            rate = -(clock.pace(lay).tokens_per_second or 0.0)
            heapq.heappush(
                heap,
                (unit.count(lay.gpus), rate, layout_preference(lay, self.base.profile), len(heap), lay, vals),
            )

        shapes = self._shapes(v, most)
        for shape, vals in shapes:
            self._check()
            if ev.lower_bound(shape, vals[-1]) > self.g.capacity:
                continue  # no DP holds it: not timed
            fast = lambda j: (clock.pace(_with_dp(shape, vals[j])).time_seconds or math.inf) <= seconds  # noqa: B023,E731
            i = _first(fast, len(vals))
            if i is not None:
                push(_with_dp(shape, vals[i]), vals[i:])
        out: list[Choice] = []
        least = heap[0][0] if heap else 0
        while heap and len(out) < keep:
            self._check()
            *_, lay, vals = heapq.heappop(heap)
            if ev.lower_bound(lay, vals[-1]) > self.g.capacity:
                continue
            if self.fits(v, lay):
                out.append(
                    Choice(v, lay, None, clock.pace(lay), self.scenario(v, lay, None), True, len(shapes))
                )
                continue
            j = _first(lambda k: ev.total(_with_dp(lay, vals[k])) <= self.g.capacity, len(vals))  # noqa: B023
            if j is not None and j > 0:  # the smallest DP that fits, weighed again
                push(_with_dp(lay, vals[j]), vals[j:])
        return out, (bool(out) and unit.count(out[0].layout.gpus) > least) or not out

    # -- serving ----------------------------------------------------------------------------
    def _widths(self, n: int) -> list[tuple[int, bool]]:
        """(TP, experts over the replicas) of the replicas weighed on ``n`` GPUs, widest
        first (the likeliest to meet a speed target)."""
        s = self.base
        node = self.g.hardware.gpus_per_node
        tp_max = self.arch.heads if s.hardware.allow_cross_node_tensor_parallel else node
        tps = [t for t in divisors(self.arch.heads) if t <= min(tp_max, n)]
        return [
            (tp, ep_all) for tp in reversed(tps) for ep_all in ((True, False) if s.model.moe else (False,))
        ]

    def serves(self, n: int) -> bool:
        """Whether some layout on up to ``n`` GPUs meets the serving targets (stops at the
        first: the count search asks it many times)."""
        for tp, ep_all in self._widths(n):
            got = self._replica(tp, ep_all, n)
            if got is not None and got.met:
                return True
        return False

    def progress(self, n: int) -> dict[tuple[int, bool], tuple[float, float]]:
        """Per width that holds the users on ``n`` GPUs: (tokens/s per user, -TTFT), the
        speeds more replicas can raise, each only when a target asks for it (the count
        search stops when none rises)."""
        t, out = self.base.targets, {}
        for width in self._widths(n):
            got = self._replica(*width, n)
            if got is not None:
                per_user = got.pace.tokens_per_second_per_user or 0.0
                ttft = -(got.pace.ttft_seconds or 0.0)
                out[width] = (
                    per_user if t.min_tokens_per_second_per_user is not None else 0.0,
                    ttft if t.max_ttft_seconds is not None else 0.0,
                )
        return out

    def _serving(self, n: int, keep: int) -> list[Choice]:
        s = self.base
        found: list[Choice] = []
        for tp, ep_all in self._widths(n):
            got = self._replica(tp, ep_all, n)
            if got is not None:
                found.append(got)
        key = lambda c: (  # noqa: E731
            not c.met,
            -(c.pace.tokens_per_second or 0.0),
            -(c.pace.tokens_per_second_per_user or 0.0),
            c.layout.gpus,
            layout_preference(c.layout, s.profile),
        )
        found.sort(key=key)
        return [replace(c, weighed=len(found)) for c in found[:keep]]

    def _replica(self, tp: int, ep_all: bool, n: int) -> Choice | None:
        """TP ``tp`` with the fewest stages that hold the memory and as many replicas as
        ``n`` takes (their experts spread over them when ``ep_all``)."""
        key = (tp, ep_all, n)
        if key not in self._replicas:
            self._replicas[key] = self._replica_of(tp, ep_all, n)
        return self._replicas[key]

    def _replica_of(self, tp: int, ep_all: bool, n: int) -> Choice | None:
        s = self.base
        users = s.targets.users
        for pp in pp_degrees(self.arch.layers):
            self._check()
            if tp * pp > n:
                return None
            dp = n // (tp * pp)
            ep = dp if ep_all else 1
            if ep_all and (dp < 2 or s.model.moe is None or s.model.moe.experts % dp):
                return None
            if self._weights_bound(tp, pp, ep) > self.g.capacity:
                continue
            batch = ceil_div(users, dp) if users is not None else s.workload.batch_size
            lay = Layout(tp, pp, 1, ep, 0, s.parallelism.recompute, dp)
            if self.evaluator(0).total(lay, batch_size=batch) > self.g.capacity:
                continue
            est = self._estimate(lay, batch)
            if not holds(est, self.g.capacity):
                continue
            pace = option_pace(est)
            return Choice(0, lay, batch, pace, est.scenario, meets(pace, s.targets))
        return None

    def _estimate(self, lay: Layout, batch: int | None) -> Estimate:
        key = (lay, batch)
        if key not in self._estimates:
            self._estimates[key] = estimate(self.scenario(0, lay, batch))
        return self._estimates[key]

    def _weights_bound(self, tp: int, pp: int, ep: int) -> float:
        """Weights no GPU of the replica goes below: the model's, split evenly over TP x PP
        (the routed experts also over EP); 0 for an engine that keeps layers in system RAM."""
        if "gpu_layers" in memory_rule(self.base.profile).serving_fields:
            return 0.0
        if self._weights is None:
            one = estimate(self.scenario(0, Layout(recompute=self.base.parallelism.recompute), 1))
            counts = count_parameters(self.base.model)
            share = counts.expert_params / counts.total if counts.total else 0.0
            self._weights = (float(one.memory.weights), share)
        weights, share = self._weights
        return math.floor(weights * (1 - share + share / ep) / (tp * pp))
