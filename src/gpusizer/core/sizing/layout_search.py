"""Layout search for the sizing advisor (solver.py): every valid layout, the fewest GPUs.

Speed: the peak does not depend on the GPU, only the capacity does, so one evaluation serves
the whole catalog. Per layout the smallest DP is searched for all capacities at once
(interpolating in 1/DP: ZeRO shards states over DP) after one estimate at each GPU's largest
useful DP. A layout is skipped unevaluated when it cannot beat what a GPU has (TP x PP x CP x
smallest DP) or when a lower bound (model states at the optimizer step, activations already
seen for its shape) exceeds the capacity. The result equals an exhaustive search (tested)
of the layouts tried: all of them up to MAX_LAYOUTS. The value searches are in fit_search.py;
the per-layout peak, memoised, and its lower bounds are core/sizing/layout_evaluator.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..model.architecture import resolve
from ..model.specs import GPUSpec, HardwareSpec, Scenario
from .fit_search import smallest_fitting
from .layout_adp import adp_layout, adp_widths
from .layout_board import Board, Found, entries
from .layout_bounds import Bound
from .layout_evaluator import Evaluator
from .layout_order import RECOMPUTE
from .layout_prefilter import MIN_LAYOUTS, RUN, Prefilter
from .layout_space import Layout, Space, dp_values, layout_preference, layout_space, search_order
from .layout_tpep import one_engine_layouts
from .work import LAYOUT

__all__ = [
    "MAX_GPUS",
    "Evaluator",
    "GiB",
    "GpuTarget",
    "solve",
]

MAX_GPUS = 4096
GiB = 2**30


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
    _one_engines(ev, board, space)
    return board.found


def _one_engines(ev: Evaluator, board: Board, space: Space) -> None:
    """The engines with the experts whole inside TP (core/sizing/layout_tpep.py
    ``one_engine_layouts``), after the rest, each losing a tie in GPU count. Outside the work
    budget: at most TP widths x PP degrees a search (Kimi K2.5: 33); charged, they moved the
    budget's cut in a long search and left the catalog's last GPUs no search at all (Kimi K2.5
    on V100 and T4 read "nothing fits" where 24 and 192 held)."""
    for lay in one_engine_layouts(ev.base, space.shapes):
        if ev.work.over:
            break
        spent = ev.work.spent
        _try(ev, board, lay, (1,), last=True)
        ev.work.spent = spent


def _try(ev: Evaluator, board: Board, lay: Layout, vals: Sequence[int], last: bool = False) -> None:
    """One layout: the GPUs it could beat, their smallest DP that fits, recorded. ``last``: it
    loses every tie in GPU count (the one-engine layouts of core/sizing/layout_tpep.py, weighed
    after the rest: where the plain layouts hold on as few GPUs, their answer stands)."""
    m = lay.model_parallel
    ev.work.spent += LAYOUT
    bound = ev.bounds.cheap(lay, vals) if vals else None
    if bound is None or m * vals[0] >= board.ceiling or bound((board.ceiling - 1) // m) > board.biggest:
        return
    pref = layout_preference(lay, ev.base.profile)
    pref = (len(RECOMPUTE), *pref) if last else pref  # after every recompute level's
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
