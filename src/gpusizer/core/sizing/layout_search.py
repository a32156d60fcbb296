"""Layout search for the sizing advisor (solver.py): every valid layout, the fewest GPUs.

Speed: the peak does not depend on the GPU, only the capacity does, so one evaluation serves
the whole catalog. Per layout the smallest DP is searched for all capacities at once
(interpolating in 1/DP: ZeRO shards states over DP) after one estimate at each GPU's largest
useful DP. A layout is skipped unevaluated when it cannot beat what a GPU has (TP x PP x CP x
smallest DP) or when a lower bound (model states at the optimizer step, activations already
seen for its shape) exceeds the capacity. The result equals an exhaustive search (tested)
of the layouts tried: all of them up to MAX_LAYOUTS. The value searches are in fit_search.py.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..cancel import CancelToken
from ..errors import ScenarioError
from ..model.architecture import resolve
from ..model.specs import GPUSpec, HardwareSpec, ParallelismSpec, Scenario, ServingSpec, WorkloadSpec
from ..pipeline.estimate import sizing_memory, training_total
from ..pipeline.validate import check_scenario
from ..pipeline.work import builder_of
from .disagg_pools import whole_pools
from .fit_search import smallest_fitting
from .layout_adp import adp_layout, adp_widths
from .layout_board import Board, Found, entries
from .layout_bounds import Bound, Bounds
from .layout_prefilter import MIN_LAYOUTS, RUN, Prefilter
from .layout_space import (
    Layout,
    Space,
    dp_values,
    layout_preference,
    layout_space,
    search_order,
    shape,
    virtual_stages,
)
from .work import ACTIVATIONS, ESTIMATE, LAYOUT, Work

__all__ = [
    "MAX_GPUS",
    "Evaluator",
    "GiB",
    "GpuTarget",
    "solve",
]

MAX_GPUS = 4096
GiB = 2**30
_memory = sizing_memory  # the estimator's memory path (a seam for tests)


@dataclass(frozen=True)
class GpuTarget:
    id: str
    spec: GPUSpec
    hardware: HardwareSpec  # what an option puts back into the scenario
    margin: float = 0.0  # share of usable memory to keep spare

    @property
    def capacity(self) -> int:
        """Bytes the peak may use: usable memory less the margin (so that at least
        ``margin`` of it stays spare)."""
        cap = self.spec.capacity_bytes
        return cap - math.ceil(cap * self.margin)


class Evaluator:
    """Per-GPU peak bytes (``inf`` if invalid) of the scenario under a layout, memoised."""

    def __init__(self, base: Scenario, hardware: HardwareSpec, cancel: CancelToken | None = None) -> None:
        self.cancel = cancel  # checked before every estimate (core/cancel.py)
        self.base = base.model_copy(update={"hardware": hardware})
        self.layers = resolve(base.model).layers
        self.memo: dict[tuple[Any, ...], float] = {}
        self._pools: dict[tuple[int, int], ServingSpec | None] = {}  # core/sizing/disagg_pools.py
        self._workloads: dict[tuple[Any, ...], WorkloadSpec] = {}
        states = (0.0, 0.0, 0.0)
        # the kind's work says whether its memory is a training stage's (WorkBuilder.stage_memory)
        self.stage = base.workload.trains and builder_of(base.workload.info).stage_memory
        if self.stage:  # the whole model's states, on one GPU
            one = _memory(self.scenario(Layout(recompute=base.parallelism.recompute)))
            states = (one.weights, one.gradients, one.optimizer)
        self.work = Work()  # shared by the evaluators of one call (advise_all, search_catalog)
        # Through a weak proxy, as the filler's clocks (core/sizing/fill.py): a bound method
        # would close a cycle, and the scenarios this keeps would wait for the cyclic collector.
        me = weakref.proxy(self)
        self.bounds = Bounds(self.base, states, lambda lay: me._bound_checked(lay))
        self._shapes: dict[tuple[Any, ...], Scenario | None] = {}

    def _bound_checked(self, lay: Layout) -> Scenario | None:
        self.work.spent += ACTIVATIONS  # asked once per activation bound computed
        return self.checked(lay)

    def lower_bound(self, lay: Layout, dp: int) -> float:
        """Bytes no GPU of the layout goes below at any DP up to ``dp``
        (:meth:`Bounds.cheap`)."""
        return self.bounds.at_dp(lay, dp)

    def parallelism(self, lay: Layout) -> ParallelismSpec:
        """The scenario's parallelism block laid out as ``lay``: plain TP/PP/DP/EP layouts
        (``attention_data`` 1) and, for a served MoE model on an engine that runs it, attention-DP
        layouts with ``attention_data`` = ``tensor`` (core/sizing/layout_adp.py; a stated
        attention-DP layout of another shape is said beside the answer where it fits:
        core/sizing/stated.py)."""
        p = self.base.parallelism
        return p.model_copy(
            update={
                "tensor": lay.tp,
                "pipeline": lay.pp,
                "data": lay.dp,
                "context": lay.cp,
                "expert": lay.ep,
                "attention_data": lay.ad,
                "zero_stage": lay.zero,
                "recompute": lay.recompute,
                "virtual_stages": virtual_stages(p.virtual_stages, lay.pp, self.layers),
                # the experts' TP where the fill weighs it (core/sizing/layout_etp.py)
                "expert_tensor": lay.et or p.expert_tensor,
            }
        )

    def scenario(self, lay: Layout, **workload: int) -> Scenario:
        update: dict[str, Any] = {"parallelism": self.parallelism(lay)}
        pools = self._pools.get((lay.tp, lay.pp), False)
        if pools is False:  # one object per width, so that the estimator's memos serve all
            pools = self._pools[(lay.tp, lay.pp)] = whole_pools(self.base, lay.tp, lay.pp)
        if pools is not None:  # the user's P/D pools in whole replicas of this layout
            update["serving"] = pools
        if workload:  # one object per workload, so that the estimator's memos serve all
            key = tuple(sorted(workload.items()))
            if key not in self._workloads:
                self._workloads[key] = self.base.workload.model_copy(update=workload)
            update["workload"] = self._workloads[key]
        return self.base.model_copy(update=update)

    def by_dp(self, lay: Layout) -> Callable[[int], float]:
        return lambda dp: self.total(
            Layout(lay.tp, lay.pp, lay.cp, lay.ep, lay.zero, lay.recompute, dp, lay.ad, lay.et)
        )

    def total(self, lay: Layout, **workload: int) -> float:
        if self.cancel is not None:
            self.cancel.check()
        key = (lay, *sorted(workload.items()))
        if key not in self.memo:
            self.work.spent += ESTIMATE
            if workload or not self._by_data(lay):
                got = self._estimate(lay, workload)
            else:
                s = self.checked(lay)
                got = (math.inf, 0) if s is None else training_total(s, lay.dp)
            self.memo[key] = float(got[0])
            seen = self.bounds.seen
            if not workload and got[0] < math.inf and (lay.dp, got[1]) > seen.get(shape(lay), (0, 0)):
                seen[shape(lay)] = (lay.dp, got[1])
        return self.memo[key]

    def _estimate(self, lay: Layout, workload: dict[str, int]) -> tuple[float, int]:
        """(total, activations) of the layout, estimated from its scenario; inf if invalid."""
        s = self.scenario(lay, **workload)
        try:
            check_scenario(s)
            mem = _memory(s)
        except ScenarioError:
            return math.inf, 0
        return mem.total, mem.activations

    def _by_data(self, lay: Layout) -> bool:
        """Whether the layout's DP may be varied without a scenario (training, the estimator's
        own memory path): check_scenario's rules that read DP hold for it. They are EP
        dividing DP x CP, DP dividing global/micro, and no accumulation with
        optimizer_in_backward (core/pipeline/validate.py); under the search's expert TP
        (core/sizing/layout_etp.py) EP divides TP / expert TP x DP x CP, Megatron's expert grid
        (core/pipeline/validate_expert_tensor.py); the rest hold at every DP or at none."""
        w, p = self.base.workload, self.base.parallelism
        return (
            self.stage
            and _memory is sizing_memory
            and not p.optimizer_in_backward
            and (lay.dp * lay.cp * (lay.tp // lay.et if lay.et else 1)) % lay.ep == 0
            and not (w.global_batch_size and w.global_batch_size % (w.micro_batch_size * lay.dp))
        )

    def checked(self, lay: Layout) -> Scenario | None:
        """The layout's scenario, checked (None when invalid); when :meth:`_by_data`, the one
        of the first DP asked, standing for every such DP."""
        if not self._by_data(lay):
            s = self.scenario(lay)
            try:
                check_scenario(s)
            except ScenarioError:
                return None
            return s
        key = (lay.tp, lay.pp, lay.cp, lay.ep, lay.zero, lay.recompute, lay.et)
        if key not in self._shapes:
            s = self.scenario(lay)
            try:
                check_scenario(s)
                self._shapes[key] = s
            except ScenarioError:
                self._shapes[key] = None
        return self._shapes[key]


def _below(caps: dict[str, tuple[int, int]], bound: Bound) -> dict[str, tuple[int, int]]:
    """The GPUs (capacity, largest DP) of ``caps`` on which ``bound(largest DP)`` fits."""
    low = {top: bound(top) for top in {top for _, top in caps.values()}}
    return {g: (c, top) for g, (c, top) in caps.items() if low[top] <= c}


def _search(
    ev: Evaluator,
    space: Space,
    gpus: Sequence[GpuTarget],
    keep: int,
    max_gpus: int,
    seed: Sequence[Layout] = (),
) -> Found:
    """The ``keep`` best layouts per GPU by (GPU count, preference): for each layout the
    smallest DP that fits each GPU on which it could still beat the ``keep``-th best and its
    lower bounds (at the largest valid DP that could) fit. Long searches look at each run of
    layouts first with :class:`Prefilter`, which turns away only what this would. ``seed``:
    layouts known to fit the (one) GPU, standing from the start, so that only what beats
    them is weighed (the answer is the same: the search keeps the best either way)."""
    cross = ev.base.hardware.allow_cross_node_tensor_parallel
    board = Board(
        entries([(g.id, g.capacity, g.hardware.gpus_per_node) for g in gpus], cross), keep, max_gpus
    )
    for lay in seed:
        board.record(lay, layout_preference(lay, ev.base.profile), {gpus[0].id: lay.dp})
    order = search_order(space, {g.hardware.gpus_per_node for g in gpus}, ev.base.profile)
    pre = Prefilter(ev.base, order, ev.bounds, max_gpus) if len(order) >= MIN_LAYOUTS else None
    dps: dict[tuple[int, ...], Sequence[int]] = {}
    for lo in range(0, len(order), RUN):
        if ev.work.over:  # the call's work budget (core/sizing/work.py): the best so far stand
            break
        run = order[lo : lo + RUN]
        wanted = pre.keep(lo, lo + len(run), board) if pre is not None else [True] * len(run)
        for row, want in zip(run, wanted, strict=True):
            if want:
                lay = Layout(*row)
                key = (lay.ep, lay.cp, lay.zero > 0, lay.model_parallel)
                vals = dps.get(key)
                if vals is None:
                    vals = dps[key] = dp_values(ev.base, lay, max_gpus)
                _try(ev, board, lay, vals)
    for n in adp_widths(ev.base, max_gpus):  # a handful, after the rest have set the standings
        if ev.work.over:
            break
        _try(ev, board, adp_layout(ev.base, n), (1,))
    return board.found


def _try(ev: Evaluator, board: Board, lay: Layout, vals: Sequence[int]) -> None:
    """One layout: the GPUs it could beat, their smallest DP that fits, recorded."""
    m = lay.model_parallel
    ev.work.spent += LAYOUT
    bound = ev.bounds.cheap(lay, vals) if vals else None
    if bound is None or m * vals[0] >= board.ceiling or bound((board.ceiling - 1) // m) > board.biggest:
        return
    pref = layout_preference(lay, ev.base.profile)
    caps = board.caps(m, lay.tp // lay.ad, pref, vals[0], bound)  # attention-DP ranks: attention at TP 1
    if caps and ev.stage:  # dearer: only before an estimate
        caps = _below(caps, ev.bounds.activations(lay, vals))
    if caps:  # DP 1 -> 2 adds DDP buckets (ZeRO 0) or, alone, communication buffers
        floor1 = ev.lower_bound(lay, 1) if lay.zero == 0 or m == 1 else None
        board.record(lay, pref, smallest_fitting(ev.by_dp(lay), vals, caps, floor1))


def solve(
    s: Scenario,
    gpus: Sequence[GpuTarget],
    ev: Evaluator,
    keep: int,
    max_gpus: int,
    seed: Sequence[Layout] = (),
) -> tuple[Found, dict[str, str]]:
    """Search with the scenario's recompute (heavier techniques are the advice's ladder,
    core/sizing/savings.py); a note on each GPU when the search space was cut. ``seed``: see
    :func:`_search`."""
    arch = resolve(s.model)
    tp_max = (
        arch.heads
        if s.hardware.allow_cross_node_tensor_parallel
        else max(g.hardware.gpus_per_node for g in gpus)
    )
    if ev.work.over:  # the call's budget is spent (core/sizing/work.py): no new search
        return {g.id: [] for g in gpus}, {g.id: ev.work.note() for g in gpus}
    space = layout_space(s, arch, tp_max, (s.parallelism.recompute,), max_gpus)
    found = _search(ev, space, gpus, keep, max_gpus, seed)
    cut = f"only the {space.size:,} simplest of {space.tried:,} layouts were tried"
    notes = dict.fromkeys(found, cut) if space.tried > space.size else {}
    if ev.work.over:
        notes = {g.id: "; ".join(n for n in (notes.get(g.id), ev.work.note()) if n) for g in gpus}
    return found, notes
