"""Training shapes at their widest data parallelism on a count, by memory, for every GPU of a
catalog (core/sizing/fill.py weighs them).

A training peak does not depend on the GPU, only the capacity it is held against does, so
each (evaluator, shape list) is looked at once: every shape at the widest DP the count allows,
its lower bound (layout_search.Evaluator.lower_bound) worked out once and the shapes sorted by
it. A GPU then takes the shapes whose bound is within its capacity with one bisection, and
each of those has its peak estimated once for the whole catalog, when the fill asks for it
(in order of speed: core/sizing/fill.Filler._fastest). Kimi K2 trained at 16k tokens on the
catalog: 93,761 bounds and 27,302 peak lookups per GPU became 57 tables of 60,000 bounds in
all and 5,849 peak lookups.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence

from ..memo import Memo
from .layout_search import Evaluator
from .layout_space import Layout

Shapes = list[tuple[Layout, Sequence[int]]]


def with_dp(lay: Layout, dp: int) -> Layout:
    """``lay`` at another DP (dataclasses.replace costs five times as much)."""
    return Layout(lay.tp, lay.pp, lay.cp, lay.ep, lay.zero, lay.recompute, dp, et=lay.et)


class Widest:
    """The first ``first`` shapes of one list at their widest DP, sorted by lower bound, with
    their peaks as they are asked for (bytes per GPU)."""

    def __init__(self, ev: Evaluator, shapes: Shapes, first: int) -> None:
        self.ev, self.shapes = ev, shapes
        bound = ev.bounds.at_dp
        rows = sorted((bound(shape, vals[-1]), i) for i, (shape, vals) in enumerate(shapes[:first]))
        self.bounds = [b for b, _ in rows]
        self.index = [i for _, i in rows]  # the shape's place in the list
        self.peaks: list[float | None] = [None] * len(rows)

    def candidates(self, capacity: int) -> Iterator[tuple[int, Layout, int]]:
        """(row, shape at DP 1, its widest DP) of the shapes whose bound is within
        ``capacity``, the lowest bound first (the likeliest to fit)."""
        for j in range(bisect.bisect_right(self.bounds, capacity)):
            shape, vals = self.shapes[self.index[j]]
            yield j, shape, vals[-1]

    def fits(self, j: int, lay: Layout, capacity: int) -> bool:
        """Whether row ``j`` (``lay``) has its peak within ``capacity`` (estimated once)."""
        got = self.peaks[j]
        if got is None:
            got = self.peaks[j] = self.ev.total(lay)
        return got <= capacity

    def fitting(self, capacity: int, check: Callable[[], None]) -> Iterator[Layout]:
        """The layouts whose peak is within ``capacity``, the lowest bound first (``check``
        raises when the caller is cancelled)."""
        for j, shape, dp in self.candidates(capacity):
            check()
            lay = with_dp(shape, dp)
            if self.fits(j, lay, capacity):
                yield lay


_TABLES: Memo[Widest] = Memo(256)


def widest(ev: Evaluator, shapes: Shapes, first: int | None = None) -> Widest:
    """The :class:`Widest` table of ``shapes`` (their first ``first``) under ``ev``, kept
    while both are (the shape lists are kept per scenario, node size and count:
    layout_space.shape_degrees)."""
    k = len(shapes) if first is None else min(first, len(shapes))
    return _TABLES.get((id(ev), id(shapes), k), lambda: Widest(ev, shapes, k), (ev, shapes))
