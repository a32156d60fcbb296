"""A parallel layout the advisor weighs (core/sizing/layout_search.py), its preference among
layouts of the same GPU count, and the order the search takes a space's layouts in (the space
itself and the DP degrees valid for each layout: core/sizing/layout_space.py, which imports
these names). Split from core/sizing/layout_space.py for size; the rules are as they were
there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..registry.frameworks import FrameworkProfile

RECOMPUTE = ("none", "selective", "full")


@dataclass(frozen=True)
class Layout:
    """One parallel layout (recompute included: it trades compute for memory). ``ad``: attention
    data-parallel ranks inside the TP group (serving; 1 but in core/sizing/layout_adp.py's
    layouts, where it is ``tp``: every GPU its own attention replica). ``et``: the experts' own
    TP (``parallelism.expert_tensor``) where the search sets it (core/sizing/layout_etp.py); 0
    keeps the scenario's. ``er``: ``ep`` splits the experts inside each replica only
    (``parallelism.expert_per_replica``; core/sizing/layout_tpep.py's EP_ENGINES)."""

    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 0
    recompute: str = "none"
    dp: int = 1
    ad: int = 1
    et: int = 0
    er: bool = False

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp * self.cp

    @property
    def gpus(self) -> int:
        return self.model_parallel * self.dp


def layout_preference(lay: Layout, profile: FrameworkProfile) -> tuple[int, ...]:
    """Preference among layouts of the same GPU count (smaller is better)."""
    rc, mp = RECOMPUTE.index(lay.recompute), lay.model_parallel
    if profile.prefers_model_parallel:
        return (rc, lay.zero > 1, mp, lay.pp, lay.cp, lay.zero, lay.ep, lay.tp)
    return (rc, mp, lay.pp, lay.cp, lay.zero, lay.ep, lay.tp)


class Space(NamedTuple):
    """The layouts one search tries: every shape (TP, PP, CP, EP) with every ZeRO stage and
    recompute level; ``tried`` of them there were in all (before
    core/sizing/layout_space.py's ``MAX_LAYOUTS``)."""

    shapes: list[tuple[int, int, int, int]]
    zeros: list[int]
    levels: tuple[str, ...]
    tried: int

    @property
    def size(self) -> int:
        return len(self.shapes) * len(self.zeros) * len(self.levels)


Row = tuple[int, int, int, int, int, str]  # a Layout's fields but DP, as the search orders them


def _seeds(space: Space, nodes: set[int], profile: FrameworkProfile) -> list[Row]:
    """Tried first, for early bounds: per pipeline depth the largest TP of each node size with
    the top ZeRO stage, an EP a third of the way up its choices and CP 1 and 2 (one of them
    is near the best for most GPUs of a catalog, so the rest must beat a count close to it),
    with the lightest recompute; in order of preference."""
    if not space.shapes:
        return []
    eps = sorted({e for *_, e in space.shapes})
    tps = {max((t for t, *_ in space.shapes if t <= n), default=0) for n in nodes}
    zero, level = max(space.zeros), min(space.levels, key=RECOMPUTE.index)
    rows = [
        (t, q, c, e, zero, level)
        for t, q, c, e in space.shapes
        if c <= 2 and t in tps and e == eps[len(eps) // 3]
    ]
    return sorted(rows, key=lambda r: layout_preference(Layout(*r), profile))


def search_order(space: Space, nodes: set[int], profile: FrameworkProfile) -> list[Row]:
    """The seeds, then the rest from the most model-parallel GPUs down: those fit with a small
    DP (few estimates), and each GPU's best count falls early, so that layouts of fewer
    model-parallel GPUs (which need a large DP) are mostly turned away by it."""
    seeds = _seeds(space, nodes, profile)
    chosen = set(seeds)
    shapes = sorted(space.shapes, key=lambda x: (-x[0] * x[1] * x[2], x[1], x[2], x[3], x[0]))
    zeros = sorted(space.zeros, reverse=True)
    return [
        *seeds,
        *(
            row
            for r in sorted(space.levels, key=RECOMPUTE.index)
            for t, q, c, e in shapes
            for z in zeros
            if (row := (t, q, c, e, z, r)) not in chosen
        ),
    ]
