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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from .architecture import Arch, ceil_div, resolve
from .errors import ScenarioError
from .estimate import sizing_memory
from .fit_search import smallest_fitting
from .frameworks import FrameworkProfile
from .params import count_parameters
from .specs import GPUSpec, HardwareSpec, Scenario
from .validate import check_scenario

MAX_GPUS = 4096
# Share of usable memory a sizing keeps spare (``plan``, ``compare_gpus``, the window): the
# estimate is a model, allocators fragment, and engines grow buffers at run time (issue 13:
# layouts at 98-100% of memory are not a recommendation).
DEFAULT_MARGIN = 0.10
MAX_CP, MIN_CP_TOKENS = 64, 4096  # context parallelism is for long sequences
# Pipeline stages tried: Megatron-LM's 1T-parameter run used 64 (arXiv 2104.04473, Table 1),
# Llama 3 405B 16 (arXiv 2407.21783, Table 4). A bound, so that the search's cost does not grow
# with the layer count (every preset has at most 128 layers: for them nothing is cut).
MAX_PP = 128
# Layouts tried per search, the most preferred first (the fewest model-parallel GPUs). Real
# models need at most about 40,000 (DeepSeek-V3 at 64k tokens); only divisor-rich heads and
# experts (e.g. 55,440 of each) reach millions. Beyond it the search stops, with a note.
MAX_LAYOUTS = 100_000
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
    margin: float = 0.0  # share of usable memory to keep spare

    @property
    def capacity(self) -> int:
        """Bytes the peak may use: usable memory less the margin (so that at least
        ``margin`` of it stays spare)."""
        cap = self.spec.capacity_bytes
        return cap - math.ceil(cap * self.margin)


def check_margin(margin: float) -> float:
    """The margin if it is a share in [0, 1); ScenarioError naming ``margin`` otherwise."""
    if not isinstance(margin, (int, float)) or not 0.0 <= margin < 1.0:
        raise ScenarioError("margin", f"must be a share of memory from 0 to below 1 "
                            f"(0.10 = 10%); got {margin!r}")
    return float(margin)


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


def _shapes(tps: list[int], pps: list[int], cps: list[int], eps: list[int], max_gpus: int
            ) -> list[tuple[int, int, int, int]]:
    """(TP, PP, CP, EP) needing at most ``max_gpus`` GPUs (EP divides DP x CP, so DP is at least
    EP / gcd(EP, CP)); the lists are ascending, so each loop stops at the first too large."""
    out = []
    for t in tps:
        for q in (q for q in pps if t * q <= max_gpus):
            for c in (c for c in cps if t * q * c <= max_gpus):
                for e in eps:
                    if t * q * e > max_gpus * c:  # e / c <= e / gcd(e, c): none further fits
                        break
                    if t * q * c * (e // math.gcd(e, c)) <= max_gpus:
                        out.append((t, q, c, e))
    return out


def _combos(s: Scenario, arch: Arch, tp_max: int, levels: Sequence[str], max_gpus: int
            ) -> tuple[list[Layout], int]:
    """The (TP, PP, CP, EP, ZeRO, recompute) to try, in order of preference: all that need at
    most ``max_gpus`` GPUs, or the :data:`MAX_LAYOUTS` with the fewest model-parallel GPUs;
    and how many there were in all."""
    w, p = s.workload, s.parallelism
    tps = [t for t in divisors(arch.heads) if t <= min(tp_max, max_gpus)]
    eps = [e for e in divisors(s.model.moe.experts) if e <= max_gpus] if s.model.moe else [1]
    cps, zeros = [1], [p.zero_stage]
    if w.is_training:
        seq = w.sequence_length
        cps += [c for c in divisors(max(1, seq // 2)) if 1 < c <= MAX_CP
                and seq % (2 * c) == 0 and seq // c >= MIN_CP_TOKENS]
        zeros = [0, 1, 2, 3]
    else:
        levels = (p.recompute,)
    shapes = _shapes(tps, pp_degrees(arch.layers), cps, eps, max_gpus)
    per_shape = len(zeros) * len(levels)
    if len(shapes) * per_shape > MAX_LAYOUTS:
        shapes = sorted(shapes, key=lambda x: (x[0] * x[1] * x[2], x[1], x[2], x[3], x[0]))
    out = [Layout(t, q, c, e, z, r) for t, q, c, e in shapes[:MAX_LAYOUTS // per_shape]
           for z in zeros for r in levels]
    return sorted(out, key=lambda lay: _pref(lay, s.profile)), len(shapes) * per_shape


def pp_degrees(layers: int) -> list[int]:
    """The smallest PP degree of each stage size ⌈layers/PP⌉, up to :data:`MAX_PP` (a larger
    PP with the stage size of a smaller one only adds GPUs)."""
    out, size = [], 0
    for pp in range(1, min(layers, MAX_PP) + 1):
        if ceil_div(layers, pp) != size:
            out.append(pp)
            size = ceil_div(layers, pp)
    return out


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
        fits = smallest_fitting(ev.by_dp(lay), vals, caps, floor1) if caps else {}
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
    combos, tried = _combos(s, arch, tp_max, levels, max_gpus)
    found = _search(ev, combos, gpus, keep, max_gpus)
    cut = f"only the {len(combos):,} simplest of {tried:,} layouts were tried"
    notes: dict[str, str] = dict.fromkeys(found, cut) if tried > len(combos) else {}
    missing = [g for g in gpus if not found[g.id]]
    if missing and heavier and not allow_recompute:
        more = _search(ev, _combos(s, arch, tp_max, heavier, max_gpus)[0], missing, keep,
                       max_gpus)
        for gid in (gid for gid, lst in more.items() if lst):
            found[gid] = more[gid]
            notes[gid] = f"recompute raised from {user!r}: nothing fits with it up to {max_gpus} GPUs"
    return found, notes


