"""A first, vectorised look at a run of layouts for the layout search (core/sizing/layout_search.py):
by the model-states bound alone (:meth:`layout_bounds.Bounds.cheap`, without the activations
seen), which could still beat some GPU's standing. Most layouts of a long search fail it for
every GPU; numpy tells them apart in about a microsecond each, where the search's own look,
GPU group by GPU group, takes ten.

Exact: a layout turned away here would have been turned away by the search. Its standings
(:class:`layout_board.Board`) are taken when a run of layouts starts and only tighten during
it (each GPU's count to beat falls), so every GPU's largest useful DP is at most the one
used here, where the bound, which never rises with DP, is at least as high; its GPU's
capacity is at most its group's largest. The same float operations as
:meth:`Bounds.cheap`, in the same order, give the same bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model.specs import Scenario
from .layout_board import Board
from .layout_bounds import Bounds
from .layout_space import Row, dp_candidates, dp_rule

RUN = 256  # layouts looked at together
# Below this many layouts the search does without it (and the app without importing numpy).
MIN_LAYOUTS = 1024


class Prefilter:
    """The search's layouts (in its order) as arrays: model-parallel GPUs, CP, TP x PP, TP,
    DP limit and rule, and the states ZeRO shards or keeps."""

    def __init__(self, s: Scenario, order: Sequence[Row], bounds: Bounds, max_gpus: int) -> None:
        import numpy as np  # here: numpy stays out of the app's start (core/memory/inference.py)

        self.np = np
        tp, pp, cp, ep, zero = np.array([r[:5] for r in order], dtype=np.int64).reshape(-1, 5).T
        self.m, self.cp, self.split = tp * pp * cp, cp, tp * pp
        rules: dict[tuple[int, int], int] = {}
        per_key = np.unique(np.stack([ep, cp, zero, self.m], axis=1), axis=0, return_inverse=True)
        limit, rule, sharded, kept = [], [], [], []
        for e, c, z, m in per_key[0].tolist():
            step, least, lim = dp_rule(s, e, c, z, m, max_gpus)
            limit.append(lim)
            rule.append(rules.setdefault((step, least), len(rules)))
            sharded_kept = bounds.split(z, e)
            sharded.append(sharded_kept[0])
            kept.append(sharded_kept[1])
        at = per_key[1].reshape(-1)
        self.limit, self.rule = np.array(limit, dtype=np.int64)[at], np.array(rule)[at]
        self.sharded = np.array(sharded, dtype=np.float64)[at]
        self.kept = np.array(kept, dtype=np.float64)[at]
        self.tps, self.tp = np.unique(tp, return_inverse=True)  # TP as an index into tps
        self.tables = [
            np.array(dp_candidates(s, step, least, max_gpus), dtype=np.int64) for step, least in rules
        ]

    def keep(self, lo: int, hi: int, board: Board) -> Any:
        """Of layouts ``lo:hi``, which could beat some GPU group of ``board`` (bool array)."""
        np = self.np
        counts = np.array([g[0] for g in board.groups], dtype=np.int64)
        # per TP (row) and group (column): the most memory of a GPU of the group taking it
        most = np.array(
            [
                [max((r[0] for r in rows if r[1] >= tp), default=-1.0) for _, _, rows in board.groups]
                for tp in self.tps.tolist()
            ],
            dtype=np.float64,
        )[self.tp[lo:hi]]
        top = np.minimum(counts[None, :] // self.m[lo:hi, None], self.limit[lo:hi, None])
        dp = np.ones_like(top)
        valid = np.zeros(top.shape, dtype=bool)
        rule = self.rule[lo:hi]
        # not np.unique: without return_inverse it asks np.ma.is_masked, importing numpy.ma (~17 ms)
        for r in range(len(self.tables)):
            rows = rule == r
            if not rows.any():
                continue
            table = self.tables[r]
            at = np.searchsorted(table, top[rows], side="right") - 1
            valid[rows] = at >= 0
            dp[rows] = table[np.maximum(at, 0)] if len(table) else 1
        low = (self.sharded[lo:hi, None] / (dp * self.cp[lo:hi, None]) + self.kept[lo:hi, None]) / self.split[
            lo:hi, None
        ]
        return (valid & (low <= most)).any(axis=1)
