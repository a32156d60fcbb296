"""Standings of one layout search (core/sizing/layout_search.py): per GPU the best layouts so far,
and for a new layout the GPUs on which it could still beat them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from .layout_space import Layout

Found = dict[str, list[tuple[tuple[int, ...], Layout]]]


@dataclass(frozen=True)
class Entry:
    """One GPU of the search: its id, the bytes the peak may use, the widest TP it takes."""

    id: str
    capacity: int
    node: float  # gpus_per_node, or infinity when TP may cross nodes


class Board:
    """The ``keep`` best layouts per GPU by (GPU count, preference) found so far.

    GPUs are grouped by the count a layout must stay under (with their preference to break
    a tie) and sorted by capacity, so that one lower bound per group turns most of a group
    away at once."""

    def __init__(self, gpus: Sequence[Entry], keep: int, max_gpus: int) -> None:
        self.gpus, self.keep, self.open = list(gpus), keep, max_gpus + 1
        self.found: Found = {g.id: [] for g in gpus}
        # per GPU the keep-th best (count, preference), once there are keep
        self.worst: dict[str, tuple[int, tuple[int, ...]]] = {}
        self.ceiling = self.open  # no layout of this many GPUs beats any GPU's
        self.biggest = max(g.capacity for g in gpus)
        self._group()

    def _group(self) -> None:
        groups: dict[int, list[tuple[int, float, str, tuple[int, ...] | None]]] = {}
        for g in self.gpus:
            w = self.worst.get(g.id)
            count, pref = (w[0], w[1]) if w is not None else (self.open, None)
            groups.setdefault(count, []).append((g.capacity, g.node, g.id, pref))
        # by count, largest first; in each, the GPUs by capacity, largest first
        self.groups = [
            (count, max(r[0] for r in rows), sorted(rows, key=lambda r: -r[0]))
            for count, rows in sorted(groups.items(), reverse=True)
        ]

    def limit(self, gid: str, pref: tuple[int, ...]) -> int:
        """The GPU count a layout of preference ``pref`` must stay under on this GPU."""
        w = self.worst.get(gid)
        return w[0] + (pref < w[1]) if w is not None else self.open

    def caps(
        self, m: int, tp: int, pref: tuple[int, ...], least: int, bound: Callable[[int], float]
    ) -> dict[str, tuple[int, int]]:
        """Per GPU on which a layout (TP x PP x CP = ``m``, at least ``least`` DP) could still
        beat the standings: (capacity, largest DP that would), unless ``bound(that DP)``, a
        lower bound of the peak at every DP up to it (so never rising with it), exceeds the
        capacity."""
        caps: dict[str, tuple[int, int]] = {}
        floors: dict[int, float] = {}
        for count, most, rows in self.groups:
            hi = count // m  # the largest DP under count + 1 (a preferred layout ties)
            if hi < least:
                break  # the groups after this one have smaller counts
            low = floors.get(hi)
            if low is None:
                low = floors[hi] = bound(hi)
            if low > most:
                continue  # no DP up to hi fits any of them
            lo = (count - 1) // m
            for cap, node, gid, worst in rows:
                top = hi if worst is not None and pref < worst else lo
                low = floors.get(top)
                if low is None:
                    low = floors[top] = bound(top) if top >= least else math.inf
                if low <= cap and tp <= node:
                    caps[gid] = (cap, top)
        return caps

    def record(self, lay: Layout, pref: tuple[int, ...], fits: dict[str, int]) -> None:
        """The smallest DP that fits each GPU (``fits``): kept where it beats the standings."""
        m, changed = lay.model_parallel, False
        for gid, dp in fits.items():
            if m * dp < self.limit(gid, pref):
                best = sorted([*self.found[gid], ((m * dp, *pref), replace(lay, dp=dp))])
                self.found[gid] = best[: self.keep]
                if len(best) >= self.keep:
                    key = self.found[gid][-1][0]
                    self.worst[gid], changed = (key[0], key[1:]), True
        if changed:
            self.ceiling = max(self.limit(g.id, ()) for g in self.gpus)
            self._group()


def entries(gpus: Sequence[tuple[str, int, int]], cross: bool) -> list[Entry]:
    """(id, capacity, gpus_per_node) as board entries."""
    return [Entry(gid, cap, math.inf if cross else node) for gid, cap, node in gpus]
