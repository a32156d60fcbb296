"""Lower bounds of a layout's per-GPU peak for the layout search (core/sizing/layout_search.py): a
layout whose bound exceeds a GPU's capacity is not estimated for that GPU.

Each bound holds at every DP up to the one it is asked at (the search asks at the largest
valid DP it would try), because no term of the peak grows with DP there: ZeRO shards states
over DP x CP, and fewer micro-batches per rank never put more of them in flight
(core/phases.in_flight). So skipping on a bound drops only layouts and GPUs on which no DP
the search would try fits: the answers are those of the search without it.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..memory.overhead import overhead_bytes
from ..memory.phases import in_flight
from ..memory.stage_activations import stage_activations
from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.sharding import stage_params
from ..model.specs import Scenario
from .layout_space import Layout, shape, virtual_stages

Bound = Callable[[int], float]  # of the largest valid DP up to the one given


def at(vals: Sequence[int], top: int) -> int:
    """The largest of ascending ``vals`` up to ``top`` (``vals[0]`` is)."""
    return vals[bisect.bisect_right(vals, top) - 1]


def _low(parts: tuple[float, float, int, int, int, float], dp: int) -> float:
    """:meth:`Bounds.cheap` of its parts at ``dp``."""
    sharded, kept, cp, split, seen_dp, seen = parts
    low = (sharded / (dp * cp) + kept) / split
    return seen if dp <= seen_dp and seen > low else low


class Bounds:
    """The bounds of one search's scenario (``base``), kept per layout shape."""

    def __init__(
        self, base: Scenario, states: tuple[float, float, float], checked: Callable[[Layout], Scenario | None]
    ) -> None:
        self.base, self.states, self.checked = base, states, checked
        self.arch, self.counts = resolve(base.model), count_parameters(base.model)
        # Share of the states that are experts (sharded by EP, and by ZeRO only over DP x CP
        # / EP): parameters, an upper bound of the byte share, so the bound stays a bound.
        c = self.counts
        experts = c.expert_params / c.total if c.total else 0.0
        lora = base.workload.is_adapter
        self.expert_share = (experts, 0.0 if lora else experts, 0.0 if lora else experts)
        self.seen: dict[tuple[Any, ...], tuple[int, float]] = {}  # shape -> (DP, activations)
        self._splits: dict[tuple[int, float], tuple[float, float]] = {}
        self._acts: dict[tuple[Any, ...], float] = {}

    def cheap(self, lay: Layout, vals: Sequence[int]) -> Bound:
        """Weights, gradients and optimizer states live together at the optimizer step, at
        best split evenly over TP x PP (experts also over EP) and, from ZeRO 3, 2, 1 on, over
        DP x CP (experts included); or the activations an estimate saw for the shape at a DP
        at least this large (ZeRO does not touch them, they do not grow with DP)."""
        parts = self._parts(lay)
        return lambda top: _low(parts, vals[bisect.bisect_right(vals, top) - 1])

    def at_dp(self, lay: Layout, dp: int) -> float:
        """:meth:`cheap` at exactly ``dp`` (a valid DP), without building the bound (the
        sizing fill asks it of thousands of layouts)."""
        return _low(self._parts(lay), dp)

    def _parts(self, lay: Layout) -> tuple[float, float, int, int, int, float]:
        """What :meth:`cheap` weighs: (states sharded, states kept, CP, TP x PP, the DP and
        activations an estimate saw for the shape, with their overhead)."""
        # under the fill's expert TP (core/sizing/layout_etp.py) a GPU keeps experts / (expert
        # TP x EP), not / (TP x EP): EP in units of TP (core/model/expert_tensor.expert_shards)
        sharded, kept = self.split(lay.zero, lay.ep * lay.et / lay.tp if lay.et else lay.ep)
        seen_dp, seen = self.seen.get(shape(lay), (0, 0.0))
        if seen and self.base.workload.trains:  # and the overhead on them (activations)
            seen += overhead_bytes(self.base.profile, self.base.overhead, seen, lay.model_parallel)
        return sharded, kept, lay.cp, lay.tp * lay.pp, seen_dp, seen

    def split(self, zero: int, ep: float) -> tuple[float, float]:
        """(states ZeRO shards over DP x CP, states it keeps, experts already over EP)."""
        key = (zero, ep)
        hit = self._splits.get(key)
        if hit is None:
            sharded = kept = 0.0
            for x, k, f in zip(self.states, (3, 2, 1), self.expert_share, strict=True):
                if zero >= k:
                    sharded += x
                else:
                    kept += x * (1 - f + f / ep)
            hit = self._splits[key] = (sharded, kept)
        return hit

    def activations(self, lay: Layout, vals: Sequence[int]) -> Bound:
        """Training: the activations of the first and last stage with the micro-batches in
        flight at ``dp``, plus the overhead on that peak (0 when the shape is invalid).

        Proof that it is a bound, from the estimator (core/estimate._training, training.py):
        the peak is the heavier stage's, each stage's forward phase holds its activations
        beside other bytes that are never negative (weights, optimizer states, gradients,
        temporaries), so the tensor peak (whole bytes) is at least ⌊activations⌋ of either
        stage; the overhead (core/overhead.overhead_bytes) does not fall as the peak or the
        GPU count grows, and every GPU count of the layout is at least TP x PP x CP. The
        stages' activations depend on DP only through the micro-batches in flight, which
        do not grow with DP (core/phases.in_flight), and they grow with them
        (core/stage_activations: a stage keeps its layers' activations once per micro-batch
        in flight)."""
        p, w = self.base.parallelism, self.base.workload
        v = virtual_stages(p.virtual_stages, lay.pp, self.arch.layers)
        mb, gb, pp, memo = w.micro_batch_size, w.global_batch_size, lay.pp, self._acts
        key = (lay.tp, lay.pp, lay.cp, lay.ep, lay.recompute, lay.et)

        def bound(top: int) -> float:
            held = in_flight(pp, at(vals, top), v, mb, gb)
            flight = (held.held, held.last)
            hit = memo.get((key, flight))
            if hit is None:
                hit = memo[key, flight] = self._activations(replace(lay, dp=vals[0]), flight)
            return hit

        return bound

    def _activations(self, lay: Layout, flight: tuple[float, float]) -> float:
        # Activations depend on neither ZeRO nor DP (but through ``flight``; their memo key in
        # core/stage_activations has neither): this layout's scenario stands for its shape.
        s = self.checked(lay)
        if s is None:  # invalid (as ZeRO 3 with a quantised base can be): no bound
            return 0.0
        acts = 0.0
        for first in (True, False) if lay.pp > 1 else (True,):
            sp = stage_params(self.counts, self.arch, lay.tp, lay.pp, lay.ep, first)
            held = flight[0] if first else flight[1]  # the first's, the last's
            acts = max(acts, stage_activations(s, self.arch, sp, held, self.counts).gpu)
        low = math.floor(acts)
        return low + overhead_bytes(s.profile, s.overhead, low, lay.model_parallel)
