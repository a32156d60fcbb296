"""Layout search for the sizing advisor (solver.py): every valid layout, the fewest GPUs.

Speed: the peak does not depend on the GPU, only the capacity does, so one evaluation serves
the whole catalog. Per layout the smallest DP is searched for all capacities at once
(interpolating in 1/DP: ZeRO shards states over DP) after one estimate at each GPU's largest
useful DP. A layout is skipped unevaluated when it cannot beat what a GPU has (TP x PP x CP x
smallest DP) or when a lower bound (model states at the optimizer step, activations already
seen for its shape) exceeds the capacity. The result equals an exhaustive search (tested).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from .architecture import Arch, ceil_div, resolve
from .errors import ScenarioError
from .estimate import sizing_memory
from .frameworks import FrameworkProfile
from .params import count_parameters
from .specs import GPUSpec, HardwareSpec, Scenario
from .validate import check_scenario

MAX_GPUS = 4096
MAX_CP, MIN_CP_TOKENS = 64, 4096  # context parallelism is for long sequences
RECOMPUTE = ("none", "selective", "full")
GiB = 2**30
_memory = sizing_memory  # the estimator's memory path (a seam for tests)


@dataclass(frozen=True)
class Layout:
    """One parallel layout (recompute included: it trades compute for memory)."""

    tp: int = 1
    pp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 0
    recompute: str = "none"
    dp: int = 1

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp * self.cp

    @property
    def gpus(self) -> int:
        return self.model_parallel * self.dp


@dataclass(frozen=True)
class GpuTarget:
    id: str
    spec: GPUSpec
    hardware: HardwareSpec  # what an option puts back into the scenario

    @property
    def capacity(self) -> int:
        return self.spec.capacity_bytes


@cache
def divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


class Evaluator:
    """Per-GPU peak bytes (``inf`` if invalid) of the scenario under a layout, memoised."""

    def __init__(self, base: Scenario, hardware: HardwareSpec) -> None:
        self.base = base.model_copy(update={"hardware": hardware})
        self.layers = resolve(base.model).layers
        self.memo: dict[tuple[Any, ...], float] = {}
        self.acts: dict[tuple[Any, ...], tuple[int, float]] = {}  # shape -> (DP, activations)
        self.states = (0.0, 0.0, 0.0)
        self._splits: dict[tuple[int, int], tuple[float, float]] = {}
        # Share of the states that are experts (sharded by EP, and by ZeRO only over DP x CP
        # / EP): parameters, an upper bound of the byte share, so the bound stays a bound.
        counts = count_parameters(base.model)
        experts = counts.expert_params / counts.total if counts.total else 0.0
        lora = base.workload.is_adapter
        self.expert_share = (experts, 0.0 if lora else experts, 0.0 if lora else experts)
        if base.workload.is_training:  # the whole model's states, on one GPU
            one = _memory(self.scenario(Layout(recompute=base.parallelism.recompute)))
            self.states = (one.weights, one.gradients, one.optimizer)

    def lower_bound(self, lay: Layout, dp: int) -> float:
        """Bytes no GPU of the layout goes below: weights, gradients and optimizer states live
        together at the optimizer step, at best split evenly over TP x PP (experts also over
        EP) and, from ZeRO 3, 2, 1 on, over DP x CP (experts included); activations seen for
        the shape at a DP at least this large (ZeRO does not touch them, they do not grow with
        DP)."""
        sharded, kept = self._split(lay)
        states = (sharded / (dp * lay.cp) + kept) / (lay.tp * lay.pp)
        seen = self.acts.get(_shape(lay))
        return max(states, seen[1]) if seen and dp <= seen[0] else states

    def _split(self, lay: Layout) -> tuple[float, float]:
        """(states ZeRO shards over DP x CP, states it keeps, experts already over EP)."""
        key = (lay.zero, lay.ep)
        hit = self._splits.get(key)
        if hit is None:
            sharded = kept = 0.0
            for x, k, f in zip(self.states, (3, 2, 1), self.expert_share, strict=True):
                if lay.zero >= k:
                    sharded += x
                else:
                    kept += x * (1 - f + f / lay.ep)
            hit = self._splits[key] = (sharded, kept)
        return hit

    def scenario(self, lay: Layout, **workload: int) -> Scenario:
        p = self.base.parallelism
        par = p.model_copy(update={
            "tensor": lay.tp, "pipeline": lay.pp, "data": lay.dp, "context": lay.cp,
            "expert": lay.ep, "zero_stage": lay.zero, "recompute": lay.recompute,
            "virtual_stages": p.virtual_stages if lay.pp * p.virtual_stages <= self.layers else 1})
        update: dict[str, Any] = {"parallelism": par}
        if workload:
            update["workload"] = self.base.workload.model_copy(update=workload)
        return self.base.model_copy(update=update)

    def by_dp(self, lay: Layout) -> Callable[[int], float]:
        return lambda dp: self.total(replace(lay, dp=dp))

    def total(self, lay: Layout, **workload: int) -> float:
        key = (lay, *sorted(workload.items()))
        if key not in self.memo:
            s = self.scenario(lay, **workload)
            try:
                check_scenario(s)
                mem = _memory(s)
            except ScenarioError:
                self.memo[key] = math.inf
                return math.inf
            self.memo[key] = float(mem.total)
            if not workload and (lay.dp, mem.activations) > self.acts.get(_shape(lay), (0, 0)):
                self.acts[_shape(lay)] = (lay.dp, mem.activations)
        return self.memo[key]


def _shape(lay: Layout) -> tuple[Any, ...]:
    """What activations depend on (not ZeRO; DP only through micro-batches in flight)."""
    return lay.tp, lay.pp, lay.cp, lay.ep, lay.recompute


def _pref(lay: Layout, profile: FrameworkProfile) -> tuple[int, ...]:
    """Preference among layouts of the same GPU count (smaller is better)."""
    rc, mp = RECOMPUTE.index(lay.recompute), lay.model_parallel
    if profile.prefers_model_parallel:
        return (rc, lay.zero > 1, mp, lay.pp, lay.cp, lay.zero, lay.ep, lay.tp)
    return (rc, mp, lay.pp, lay.cp, lay.zero, lay.ep, lay.tp)


def _combos(s: Scenario, arch: Arch, tp_max: int, levels: Sequence[str]) -> list[Layout]:
    """Every (TP, PP, CP, EP, ZeRO, recompute) to try, in order of preference."""
    w, p = s.workload, s.parallelism
    tps = [t for t in divisors(arch.heads) if t <= tp_max]
    pps = sorted({ceil_div(arch.layers, k) for k in range(1, arch.layers + 1)})
    eps = divisors(s.model.moe.experts) if s.model.moe else [1]
    cps, zeros = [1], [p.zero_stage]
    if w.is_training:
        seq = w.sequence_length
        cps += [c for c in divisors(max(1, seq // 2)) if 1 < c <= MAX_CP
                and seq % (2 * c) == 0 and seq // c >= MIN_CP_TOKENS]
        zeros = [0, 1, 2, 3]
    else:
        levels = (p.recompute,)
    out = [Layout(t, q, c, e, z, r) for t in tps for q in pps for c in cps for e in eps
           for z in zeros for r in levels]
    return sorted(out, key=lambda lay: _pref(lay, s.profile))


def _dp_values(s: Scenario, lay: Layout, max_gpus: int) -> Sequence[int]:
    """Valid DP degrees: EP must divide DP x CP; DP must divide global/micro when set; ZeRO
    needs DP x CP > 1 to shard anything (else it is ZeRO 0 under another name)."""
    step, limit, w = lay.ep // math.gcd(lay.ep, lay.cp), max_gpus // lay.model_parallel, s.workload
    if not w.is_training:
        return [step] if step <= limit else []
    least = 2 if lay.zero and lay.cp == 1 else 1
    if w.global_batch_size is None:
        return range(step * ceil_div(least, step), limit + 1, step)
    return [d for d in divisors(w.global_batch_size // w.micro_batch_size)
            if d % step == 0 and least <= d <= limit]


def _split(values: Sequence[int], t: dict[int, float], lo: int, hi: int, cap: float) -> int:
    """Next probe in ``values[lo..hi]``: the peak is near A + B/DP, so interpolate in 1/DP
    between the known neighbours (bisect when that is not possible)."""
    tl, tr = t[lo - 1], t[hi]
    if not (math.isfinite(tl) and tl > tr):
        return (lo + hi) // 2
    x = 1 / values[hi] + (cap - tr) * (1 / values[lo - 1] - 1 / values[hi]) / (tl - tr)
    return min(hi - 1, max(lo, bisect.bisect_left(values, 1 / x) if x > 0 else hi))


def _smallest_fitting(f: Callable[[int], float], values: Sequence[int],
                      caps: dict[str, tuple[int, int]], floor1: float | None = None
                      ) -> dict[str, int]:
    """Per GPU (capacity, largest value allowed), the smallest value whose peak fits. The peak
    must not grow along ``values``, except from 1 to 2 if ``floor1`` (a lower bound of the peak
    at 1) is given. Each GPU is checked at its largest value first (one estimate refutes every
    GPU it does not fit), then all are searched at once; a poor probe is followed by bisection."""
    out: dict[str, int] = {}
    if floor1 is not None and values and values[0] == 1:
        if any(floor1 <= c for c, _ in caps.values()):
            t1 = f(1)
            out = {g: 1 for g, (c, _) in caps.items() if t1 <= c}
        values = values[1:]
    t: dict[int, float] = {}
    live: dict[str, int] = {}
    for g, (c, top) in sorted(caps.items(), key=lambda kv: -kv[1][1]):
        i = bisect.bisect_right(values, top) - 1
        if g in out or i < 0 or max((v for j, v in t.items() if j >= i), default=0) > c:
            continue
        t[i] = t[i] if i in t else f(values[i])
        if t[i] <= c:
            live[g] = c
    if not live:
        return out
    t[0] = f(values[0])
    out.update({g: values[0] for g, c in live.items() if t[0] <= c})
    top = max(j for j, v in t.items() if v <= min(live.values()))
    stack = [(1, top, {g: c for g, c in live.items() if t[0] > c}, True)]
    while stack:
        lo, hi, cs, interpolate = stack.pop()
        if cs and lo == hi:
            out.update(dict.fromkeys(cs, values[lo]))
        elif cs:
            mid = _split(values, t, lo, hi, sorted(cs.values())[len(cs) // 2]) if interpolate \
                else (lo + hi) // 2
            t[mid], half = f(values[mid]), (hi - lo + 1) / 2
            stack.append((lo, mid, {g: c for g, c in cs.items() if t[mid] <= c}, mid - lo < half))
            stack.append((mid + 1, hi, {g: c for g, c in cs.items() if t[mid] > c},
                          hi - mid < half))
    return out


def largest_fitting(f: Callable[[int], float], values: Sequence[int], start: int,
                     cap: float) -> int:
    """Largest of sorted ``values`` whose peak fits ``cap`` (``values[start]`` fits). Memory is
    near-affine in batch and tokens: a secant guess usually lands it in ~4 estimates."""
    if f(values[-1]) <= cap:
        return values[-1]
    lo, hi = start, len(values) - 1
    j = min(hi, max(lo + 1, bisect.bisect_left(values, 2 * values[lo])))
    t0, tj = f(values[lo]), f(values[j])
    lo, hi = (j, hi) if tj <= cap else (lo, j)
    if math.isfinite(tj) and tj > t0:
        at = bisect.bisect_right(values, values[start] + (cap - t0) * (values[j] - values[start])
                                 / (tj - t0))
        for i in (at - 1, at):
            if lo < i < hi:
                lo, hi = (i, hi) if f(values[i]) <= cap else (lo, i)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if f(values[mid]) <= cap else (lo, mid)
    return values[lo]


_Found = dict[str, list[tuple[tuple[int, ...], Layout]]]


def _seeds(combos: Sequence[Layout], nodes: set[int]) -> list[Layout]:
    """Tried first, for early bounds: the most sharded without PP (per node size the largest TP
    and half of it, the top ZeRO stage, the widest EP, CP 1 and 2)."""
    zero, ep = max((c.zero, c.ep) for c in combos)
    tps = {tp for n in nodes for tp in sorted({c.tp for c in combos if c.tp <= n})[-2:]}
    return [c for c in combos if c.pp == 1 and c.cp <= 2 and c.tp in tps and c.zero == zero
            and c.ep == ep and c.recompute == combos[0].recompute]


def _search(ev: Evaluator, combos: Sequence[Layout], gpus: Sequence[GpuTarget], keep: int,
            max_gpus: int) -> _Found:
    """The ``keep`` best layouts per GPU by (GPU count, preference): for each layout the
    smallest DP that fits each GPU on which it could still beat the ``keep``-th best."""
    found: _Found = {g.id: [] for g in gpus}
    cross, fw = ev.base.hardware.allow_cross_node_tensor_parallel, ev.base.profile
    worst: dict[str, tuple[int, ...]] = {}  # per GPU, the keep-th best key once there are keep

    def limit(gid: str, pref: tuple[int, ...]) -> int:  # the count to beat
        w = worst.get(gid)
        return w[0] + (pref < w[1:]) if w is not None else max_gpus + 1

    seeds = _seeds(combos, {g.hardware.gpus_per_node for g in gpus}) if combos else []
    rest = sorted(set(combos) - set(seeds), key=lambda c: (
        RECOMPUTE.index(c.recompute), c.model_parallel, c.pp, c.cp, c.ep, c.tp, -c.zero))
    ceiling, biggest = max_gpus + 1, max(g.capacity for g in gpus)
    for lay in [*seeds, *rest]:
        m, vals, pref = lay.model_parallel, _dp_values(ev.base, lay, max_gpus), _pref(lay, fw)
        if not vals or m * vals[0] >= ceiling or ev.lower_bound(lay, (ceiling - 1) // m) > biggest:
            continue
        caps: dict[str, tuple[int, int]] = {}
        floors: dict[int, float] = {}
        for g in gpus:
            top = (limit(g.id, pref) - 1) // m
            if top >= vals[0] and (cross or lay.tp <= g.hardware.gpus_per_node):
                floors[top] = floors.get(top) or ev.lower_bound(lay, top)
                if floors[top] <= g.capacity:
                    caps[g.id] = (g.capacity, top)
        # DP 1 -> 2 adds DDP buckets (ZeRO 0) or, alone, communication buffers
        floor1 = ev.lower_bound(lay, 1) if lay.zero == 0 or m == 1 else None
        fits = _smallest_fitting(ev.by_dp(lay), vals, caps, floor1) if caps else {}
        changed = False
        for gid, dp in fits.items():
            if m * dp < limit(gid, pref):
                found[gid] = sorted([*found[gid], ((m * dp, *pref), replace(lay, dp=dp))])[:keep]
                if len(found[gid]) >= keep:
                    worst[gid], changed = found[gid][-1][0], True
        if changed:
            ceiling = max(limit(g.id, ()) for g in gpus)
    return found


def solve(s: Scenario, gpus: Sequence[GpuTarget], ev: Evaluator, keep: int, max_gpus: int,
           allow_recompute: bool) -> tuple[_Found, dict[str, str]]:
    """Search with the user's recompute (heavier too if allowed); GPUs on which nothing fits
    are searched again with heavier recompute, with a note."""
    arch, user = resolve(s.model), s.parallelism.recompute
    heavier = RECOMPUTE[RECOMPUTE.index(user) + 1:] if s.workload.is_training else ()
    tp_max = arch.heads if s.hardware.allow_cross_node_tensor_parallel else \
        max(g.hardware.gpus_per_node for g in gpus)
    levels = (user, *heavier) if allow_recompute else (user,)
    found = _search(ev, _combos(s, arch, tp_max, levels), gpus, keep, max_gpus)
    notes: dict[str, str] = {}
    missing = [g for g in gpus if not found[g.id]]
    if missing and heavier and not allow_recompute:
        more = _search(ev, _combos(s, arch, tp_max, heavier), missing, keep, max_gpus)
        for gid in (gid for gid, lst in more.items() if lst):
            found[gid] = more[gid]
            notes[gid] = f"recompute raised from {user!r}: nothing fits with it up to {max_gpus} GPUs"
    return found, notes


