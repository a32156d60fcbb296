"""Growing a sizing option past the fewest GPUs that hold the model (core/compare.py).

- **Serving targets** (scenario block ``targets``): ``users`` requests at once, at least
  ``min_tokens_per_second_per_user`` each, a first token within ``max_ttft_seconds``. Users
  are spread over data-parallel replicas (``workload.batch_size`` is per replica, as in
  core/compute.py: ``batch x data`` requests in flight), so each replica serves
  ⌈users / DP⌉; fewer per replica means a smaller KV cache and faster steps. The search tries
  every tensor-parallel width (wider TP splits each step's weights over more GPUs: faster per
  user) and expert-parallel degree, each with the fewest replicas that meet the targets and
  the fewest pipeline stages that hold the memory, and keeps the fewest GPUs (ties: the
  layout the solver prefers, core/sizing/layout_space.layout_preference). Pipeline stages add
  no speed (core/roofline.py: stages run one after another).
  This is how serving deployments are sized: replicas for users, TP for latency (vLLM
  docs, "Parallelism and Scaling": TP within a node, data parallel replicas for throughput).
- **Whole nodes**: the count rounded up to ``gpus_per_node`` (a B200 comes 8 to an HGX
  server, a GB200 72 to an NVL72 rack); the spare GPUs become replicas (serving) or a wider
  data-parallel degree (training), when the memory still fits.

Speed is checked through ``compare_costs.speed`` (the seam for the engines' serving block).
Memory does not depend on the GPU, so the evaluator's memo serves every GPU of the catalog.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..model.architecture import ceil_div, resolve
from ..model.result import Estimate
from ..model.specs import Scenario, TargetsSpec
from ..pipeline.estimate import estimate
from .compare_costs import speed
from .layout_search import Evaluator, GpuTarget, Layout, divisors
from .layout_space import dp_values, layout_preference, pp_degrees

Pace = dict[str, float | None]


def speed_bound(t: TargetsSpec) -> bool:
    """Whether the targets ask anything of the speed (a first-token or tokens/s bound): without
    one, every layout that holds the users meets them and none needs its load simulated."""
    return t.max_ttft_seconds is not None or t.min_tokens_per_second_per_user is not None


def meets(pace: Pace, t: TargetsSpec) -> bool:
    """Whether a speed meets the per-user targets (``users`` is met by construction)."""
    ttft, per_user = pace.get("ttft_seconds"), pace.get("tokens_per_second_per_user")
    if t.max_ttft_seconds is not None and (ttft is None or ttft > t.max_ttft_seconds):
        return False
    floor = t.min_tokens_per_second_per_user
    return floor is None or (per_user is not None and per_user >= floor)


def _first(ok: Callable[[int], bool], n: int) -> int | None:
    """The first index in range(n) where a monotone ``ok`` holds (None when none does)."""
    if n == 0 or not ok(n - 1):
        return None
    return bisect.bisect_left(range(n - 1), True, key=ok)


def replica_counts(users: int | None, ep: int, most: int) -> list[int]:
    """Replica multiples r (DP = EP x r) worth trying: the fewest for each distinct batch
    per replica ⌈users / (EP x r)⌉, up to ``most``; ``[1]`` without a users target."""
    if users is None:
        return [1] if most >= 1 else []
    out, r = [], 1
    while r <= most:
        out.append(r)
        b = ceil_div(users, ep * r)
        if b == 1:
            break
        r = ceil_div(users, ep * (b - 1))
    return out


class Scaler:
    """Targets and whole nodes for one GPU of the catalog (its evaluator's memo shared)."""

    def __init__(self, s: Scenario, ev: Evaluator, g: GpuTarget, max_gpus: int) -> None:
        self.s, self.ev, self.g, self.max_gpus = s, ev, g, max_gpus
        self.arch = resolve(s.model)
        self._pace: dict[tuple[Layout, int | None], Pace] = {}

    def batch_for(self, dp: int, batch: int | None) -> int | None:
        """Requests per replica: the users spread over DP, else ``batch`` (None: the
        scenario's own)."""
        users = self.s.targets.users
        return batch if users is None or self.s.workload.is_training else ceil_div(users, dp)

    def final(self, lay: Layout, batch: int | None) -> tuple[Scenario, Estimate]:
        """The layout (and batch per replica) on this GPU, estimated in full."""
        extra = {} if batch is None else {"batch_size": batch}
        sc = self.ev.scenario(lay, **extra).model_copy(update={"hardware": self.g.hardware})
        return sc, estimate(sc)

    def fits(self, lay: Layout, batch: int | None) -> bool:
        extra = {} if batch is None else {"batch_size": batch}
        return self.ev.total(lay, **extra) <= self.g.capacity

    def pace(self, lay: Layout, batch: int | None) -> Pace:
        key = (lay, batch)
        if key not in self._pace:
            self._pace[key] = speed(self.final(lay, batch)[1])
        return self._pace[key]

    def _stages(self, lay: Layout, batch: int | None) -> int | None:
        """The fewest pipeline stages (of the solver's candidates, layout_space.pp_degrees:
        up to MAX_PP) that hold the memory."""
        pps = [q for q in pp_degrees(self.arch.layers) if q * lay.tp * lay.dp <= self.max_gpus]
        i = _first(lambda j: self.fits(replace(lay, pp=pps[j]), batch), len(pps))
        return None if i is None else pps[i]

    def _candidate(self, base: Layout, tp: int, ep: int, r: int) -> tuple[Layout, int] | None:
        """TP x EP with EP x r replicas: the layout (fewest stages) and batch, if it holds
        the memory and meets the targets."""
        lay = replace(base, tp=tp, pp=1, cp=1, ep=ep, dp=ep * r)
        batch = self.batch_for(lay.dp, None)
        pp = self._stages(lay, batch)
        if pp is None:
            return None
        lay = replace(lay, pp=pp)
        t = self.s.targets
        ok = not speed_bound(t) or meets(self.pace(lay, batch), t)
        return (lay, batch or self.s.workload.batch_size) if ok else None

    def to_targets(self, base: Layout) -> tuple[Layout, int] | None:
        """The fewest GPUs (then the preferred layout) meeting the serving targets, with
        the batch per replica; None when no layout of up to ``max_gpus`` does."""
        hw, s = self.g.hardware, self.s
        tp_max = self.arch.heads if hw.allow_cross_node_tensor_parallel else hw.gpus_per_node
        eps = divisors(s.model.moe.experts) if s.model.moe else [1]
        pairs = sorted(
            ((t, e) for t in divisors(self.arch.heads) if t <= tp_max for e in eps),
            key=lambda te: (te[0] * te[1], te[0]),
        )
        best: tuple[int, tuple[int, ...], Layout, int] | None = None
        for tp, ep in pairs:
            if best is not None and tp * ep >= best[0]:
                break  # at least TP x EP GPUs: nothing further can beat it
            for lay, batch in self._pair(base, tp, ep, self.max_gpus if best is None else best[0] - 1):
                key = (lay.gpus, layout_preference(lay, s.profile))
                if best is None or key < best[:2]:
                    best = (*key, lay, batch)
        return None if best is None else (best[2], best[3])

    def _pair(self, base: Layout, tp: int, ep: int, most: int) -> list[tuple[Layout, int]]:
        """Layouts of this TP x EP meeting the targets with at most ``most`` GPUs: from the
        fewest replicas that do (a bisection: more replicas only help) upward, while the
        replicas alone stay under ``most``."""
        rs = replica_counts(self.s.targets.users, ep, most // (tp * ep))
        i = _first(lambda j: self._candidate(base, tp, ep, rs[j]) is not None, len(rs))
        if i is None:
            return []
        found = [self._candidate(base, tp, ep, r) for r in rs[i:]]
        return [got for got in found if got is not None and got[0].gpus <= most]

    def whole_nodes(self, lay: Layout, batch: int | None) -> tuple[Layout, int | None, int]:
        """(layout, batch per replica, GPUs bought): the count rounded up to whole nodes,
        the spare GPUs used as replicas or data parallelism where the memory allows."""
        node = self.g.hardware.gpus_per_node
        bought = ceil_div(lay.gpus, node) * node
        if self.s.workload.is_training:
            m = lay.model_parallel
            wider: Sequence[int] = [
                d for d in dp_values(self.s, lay, bought) if lay.dp < d and d * m <= bought
            ]
            for dp in reversed(wider):
                if self.fits(replace(lay, dp=dp), batch):
                    return replace(lay, dp=dp), batch, bought
            return lay, batch, bought
        more = replace(lay, dp=lay.ep * (bought // (lay.tp * lay.pp * lay.ep)))
        mine = self.batch_for(more.dp, batch)
        if more.dp > lay.dp and self.fits(more, mine):
            return more, mine, bought
        return lay, batch, bought
