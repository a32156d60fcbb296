"""A first look at a run of layouts for the layout search (core/sizing/layout_search.py): by the
model-states bound alone (:meth:`layout_bounds.Bounds.cheap`, without the activations seen),
which could still beat some GPU's standing. Most layouts of a long search fail it for every
GPU; it tells them apart in a few microseconds each, where the search's own look, GPU group by
GPU group, takes tens. The board's groups whose counts give a layout the same largest DP share
one bound (their largest GPU's), computed once per run for each (model-parallel GPUs, DP
limit, TP).

Plain Python, not numpy: the numpy version it replaces was as fast in a process that had
numpy loaded (Kimi K2's ``compare`` 0.91 s both, paired runs) but cost numpy's import, 0.06-0.1 s,
in one that had not (``gpusizer-cli compare``, ``plan`` from a script); the answers are the
same (plan and compare of Kimi K2 and Qwen3-Coder 480B pre-training at 16k, whose searches
end on the work budget, byte-identical JSON).

Exact: a layout turned away here would have been turned away by the search. Its standings
(:class:`layout_board.Board`) are taken when a run of layouts starts and only tighten during
it (each GPU's count to beat falls), so every GPU's largest useful DP is at most the one
used here, where the bound, which never rises with DP, is at least as high; its GPU's
capacity is at most its group's largest. The same float operations as
:meth:`Bounds.cheap`, in the same order, give the same bound.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from ..model.specs import Scenario
from .layout_board import Board
from .layout_bounds import Bounds
from .layout_space import Row, dp_candidates, dp_rule

RUN = 256  # layouts looked at together
# Below this many layouts the search does without it (its lists would cost more than they save).
MIN_LAYOUTS = 1024

_Key = tuple[int, Sequence[int], float, float]  # DP limit, DP degrees, states sharded, kept


class Prefilter:
    """Per layout of the search (in its order): model-parallel GPUs, CP, TP x PP, TP (as an
    index), and its (DP limit, DP degrees, states ZeRO shards, states it keeps), shared by the
    layouts of one (EP, CP, ZeRO, model-parallel GPUs)."""

    def __init__(self, s: Scenario, order: Sequence[Row], bounds: Bounds, max_gpus: int) -> None:
        self.tps = sorted({r[0] for r in order})
        at = {tp: i for i, tp in enumerate(self.tps)}
        per_key: dict[tuple[int, int, int, int], _Key] = {}
        tables: dict[tuple[int, int], Sequence[int]] = {}
        self.rows: list[tuple[int, int, int, int, _Key]] = []
        for tp, pp, cp, ep, zero, *_ in order:
            m = tp * pp * cp
            key = per_key.get((ep, cp, zero, m))
            if key is None:
                step, least, lim = dp_rule(s, ep, cp, zero, m, max_gpus)
                table = tables.get((step, least))
                if table is None:
                    table = tables[(step, least)] = dp_candidates(s, step, least, max_gpus)
                key = per_key[(ep, cp, zero, m)] = (lim, table, *bounds.split(zero, ep))
            self.rows.append((m, cp, tp * pp, at[tp], key))

    def keep(self, lo: int, hi: int, board: Board) -> list[bool]:
        """Of layouts ``lo:hi``, which could beat some GPU group of ``board``."""
        # per group: its count and, per TP, the most memory of a GPU of the group taking it
        groups = [
            (count, [max((r[0] for r in rows if r[1] >= tp), default=-1.0) for tp in self.tps])
            for count, _, rows in board.groups
        ]
        tops: dict[tuple[int, int, int], list[tuple[int, float]]] = {}
        out = []
        for m, cp, split, tp, (lim, table, sharded, kept) in self.rows[lo:hi]:
            pairs = tops.get((m, lim, tp))
            if pairs is None:
                pairs = tops[(m, lim, tp)] = _tops(groups, m, lim, tp)
            ok = False
            for top, most in pairs:
                at = bisect.bisect_right(table, top) - 1
                if at >= 0 and (sharded / (table[at] * cp) + kept) / split <= most:
                    ok = True
                    break
            out.append(ok)
        return out


def _tops(groups: list[tuple[int, list[float]]], m: int, lim: int, tp: int) -> list[tuple[int, float]]:
    """(largest DP, the most memory of a GPU taking TP ``tp``) per distinct largest DP over the
    groups: groups whose counts give the same DP share one bound (the largest GPU of them)."""
    most: dict[int, float] = {}
    for count, by_tp in groups:
        top = min(count // m, lim)
        most[top] = max(most.get(top, -1.0), by_tp[tp])
    return list(most.items())
