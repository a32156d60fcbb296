"""The advisor's search space (core/sizing/layout_search.py): the layouts it tries and the DP
degrees valid for each. A layout, its preference and the order the search takes a space's
layouts in are core/sizing/layout_order.py, whose names stay importable from here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache, lru_cache

from ..memo import Memo
from ..model.architecture import Arch, ceil_div
from ..model.redundant import stated_physical
from ..model.specs import Scenario
from ..pipeline.validate_context import head_split_refusal
from .layer_split import tensor_widths
from .layout_etp import ETP_TRIED, etp_shapes
from .layout_order import Layout as Layout  # the "as" names: importable from here
from .layout_order import Row as Row
from .layout_order import Space as Space
from .layout_order import layout_preference as layout_preference
from .layout_order import search_order as search_order

MAX_CP, MIN_CP_TOKENS = 64, 4096  # context parallelism is for long sequences
# Pipeline stages tried: Megatron-LM's 1T-parameter run used 64 (arXiv 2104.04473, Table 1),
# Llama 3 405B 16 (arXiv 2407.21783, Table 4). A bound, so that the search's cost does not grow
# with the layer count (every preset has at most 128 layers: for them nothing is cut).
MAX_PP = 128
# Layouts tried per search, the most preferred first (the fewest model-parallel GPUs). Real
# models need at most about 40,000 (DeepSeek-V3 at 64k tokens); only divisor-rich heads and
# experts (e.g. 55,440 of each) reach millions. Beyond it the search stops, with a note.
MAX_LAYOUTS = 100_000


@cache
def divisors(n: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    return sorted({*small, *(n // d for d in small)})


def _shapes(
    tps: list[int], pps: list[int], cps: list[int], eps: list[int], max_gpus: int
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


def layout_space(s: Scenario, arch: Arch, tp_max: int, levels: Sequence[str], max_gpus: int) -> Space:
    """All layouts that need at most ``max_gpus`` GPUs, or the :data:`MAX_LAYOUTS` with the
    fewest model-parallel GPUs."""
    w, p = s.workload, s.parallelism
    tps = tensor_widths(s, arch.heads, min(tp_max, max_gpus))  # any width under llama.cpp
    # the experts' ranks divide the routed experts plus any stated replicas (EP 72 of 256 + 32)
    eps = [e for e in divisors(stated_physical(s)) if e <= max_gpus] if s.model.moe else [1]
    cps, zeros = [1], [p.zero_stage]
    if w.trains:
        seq = w.sequence_length
        cps += [
            c
            for c in divisors(max(1, seq // 2))
            if 1 < c <= MAX_CP
            and seq % (2 * c) == 0
            and seq // c >= MIN_CP_TOKENS
            # Ulysses (DeepSpeed's, verl's FSDP workers') needs heads the degree divides
            # (core/pipeline/validate_context.py)
            and head_split_refusal(s, arch, s.model.mla is not None, c) is None
        ]
        zeros = [0, 1, 2, 3]
    else:
        levels = (p.recompute,)
    if w.trains and s.profile.data_parallel_only:  # DDP only: whole model per GPU (Unsloth)
        tps, eps, cps, zeros = [1], [1], [1], [0]
    shapes = _shapes(tps, stage_counts(s, arch), cps, eps, max_gpus)
    per_shape = len(zeros) * len(levels)
    if len(shapes) * per_shape > MAX_LAYOUTS:
        shapes = sorted(shapes, key=lambda x: (x[0] * x[1] * x[2], x[1], x[2], x[3], x[0]))
    return Space(shapes[: MAX_LAYOUTS // per_shape], zeros, tuple(levels), len(shapes) * per_shape)


def ordered_layouts(
    s: Scenario, arch: Arch, tp_max: int, levels: Sequence[str], max_gpus: int
) -> tuple[list[Layout], int]:
    """The layouts of :func:`layout_space`, in order of preference, and how many there were
    in all."""
    space = layout_space(s, arch, tp_max, levels, max_gpus)
    out = [Layout(t, q, c, e, z, r) for t, q, c, e in space.shapes for z in space.zeros for r in space.levels]
    return sorted(out, key=lambda lay: layout_preference(lay, s.profile)), space.tried


def stage_counts(s: Scenario, arch: Arch) -> list[int]:
    """The PP degrees the search tries: :func:`pp_degrees`, or only 1 where the scenario's
    framework has no pipeline parallelism for its kind of work (FrameworkProfile.pipelines:
    FSDP and the HF Trainer have no pipeline schedule; estimate refuses PP there)."""
    return pp_degrees(arch.layers) if s.profile.pipelines(s.workload.info) else [1]


def pp_degrees(layers: int) -> list[int]:
    """The smallest PP degree of each stage size ⌈layers/PP⌉, up to :data:`MAX_PP` (a larger
    PP with the stage size of a smaller one only adds GPUs)."""
    out, size = [], 0
    for pp in range(1, min(layers, MAX_PP) + 1):
        if ceil_div(layers, pp) != size:
            out.append(pp)
            size = ceil_div(layers, pp)
    return out


def dp_rule(
    s: Scenario, ep: int, cp: int, zero: int, model_parallel: int, max_gpus: int
) -> tuple[int, int, int]:
    """(step, least, limit): DP is a multiple of ``step`` (EP must divide DP x CP), at least
    ``least`` (ZeRO needs DP x CP > 1 to shard anything, else it is ZeRO 0 under another
    name) and at most ``limit`` (the GPU budget); inference keeps DP = step."""
    least = 2 if s.workload.trains and zero and cp == 1 else 1
    return ep // math.gcd(ep, cp), least, max_gpus // model_parallel


def dp_candidates(s: Scenario, step: int, least: int, limit: int) -> Sequence[int]:
    """The DP degrees of a :func:`dp_rule` up to ``limit`` (ascending); training: DP must
    divide global/micro when the global batch is set."""
    w = s.workload
    if w.serves and not w.trains:  # a kind that also trains (RL) varies its training pool's DP
        return [step] if step <= limit else []
    if w.global_batch_size is None:
        return range(step * ceil_div(least, step), limit + 1, step)
    return [
        d
        for d in divisors(w.global_batch_size // w.micro_batch_size)
        if d % step == 0 and least <= d <= limit
    ]


# The same DP-1 layouts for every count and GPU (a Layout's init costs about 0.6 us; lists of
# thousands are built per count).
_layout = lru_cache(maxsize=1 << 16)(Layout)
_SHAPE_DEGREES: Memo[list[tuple[Layout, Sequence[int]]]] = Memo(256)


def shape_degrees(
    s: Scenario, arch: Arch, tp_max: int, n: int, first: int | None = None
) -> list[tuple[Layout, Sequence[int]]]:
    """Each training shape of :func:`layout_space` (DP 1) with every ZeRO stage, and its valid
    DP degrees up to ``n`` GPUs (those without any left out), in layout_space's order (TP,
    then PP, CP and EP from the smallest); only the first ``first`` when given. Kept per
    scenario, node size and count: every GPU of a catalog with them asks for the same (Kimi
    K2 at 16k tokens: thousands of shapes)."""
    key = (id(s), id(arch), tp_max, n)
    whole = _SHAPE_DEGREES.peek(key)
    if first is not None and whole is not None:
        return _SHAPE_DEGREES.get((*key, first), lambda: whole[:first], (s, arch))

    def build() -> list[tuple[Layout, Sequence[int]]]:
        rc = s.parallelism.recompute
        space = layout_space(s, arch, tp_max, (rc,), n)
        out = []
        dps: dict[tuple[int, ...], Sequence[int]] = {}
        for tp, pp, cp, ep in space.shapes:
            rules = [dp_rule(s, ep, cp, z, tp * pp * cp, n) for z in (0, 1)]  # ZeRO off or on
            for zero in space.zeros:
                rule = rules[zero > 0]
                vals = dps.get(rule)
                if vals is None:
                    vals = dps[rule] = dp_candidates(s, *rule)
                if vals:
                    out.append((_layout(tp, pp, cp, ep, zero, rc), vals))
                    if len(out) == first:
                        return out
        return [*out, *etp_twins(s, space.shapes, space.zeros, n)][:first]

    return _SHAPE_DEGREES.get(key if first is None else (*key, first), build, (s, arch))


def etp_twins(
    s: Scenario,
    shapes: Sequence[tuple[int, int, int, int]],
    zeros: Sequence[int],
    n: int,
    most: int = MAX_LAYOUTS,
) -> list[tuple[Layout, Sequence[int]]]:
    """Expert TP 1's layouts beside the default's (core/sizing/layout_etp.py ``etp_shapes``) with
    their valid DP degrees, the EPs the space tries (divisors of the physical experts)."""
    eps = [e for e in divisors(stated_physical(s)) if e <= n]
    rc, out = s.parallelism.recompute, []
    dps: dict[tuple[int, int, int], Sequence[int]] = {}
    for (t, q, c, e), zero, rule in etp_shapes(s, shapes, zeros, eps, n, most):
        vals = dps.get(rule)
        if vals is None:
            vals = dps[rule] = dp_candidates(s, *rule)
        if vals:
            out.append((Layout(t, q, c, e, zero, rc, et=ETP_TRIED), vals))
    return out


def dp_values(s: Scenario, lay: Layout, max_gpus: int) -> Sequence[int]:
    """Valid DP degrees (:func:`dp_rule`)."""
    return dp_candidates(s, *dp_rule(s, lay.ep, lay.cp, lay.zero, lay.model_parallel, max_gpus))


def virtual_stages(virtual: int, pp: int, layers: int) -> int:
    """The scenario's interleaving (``virtual_stages``) where PP x it fits the layers, else 1."""
    return virtual if pp * virtual <= layers else 1


def shape(lay: Layout) -> tuple[int, int, int, int, str, int, int]:
    """What activations depend on (not ZeRO; DP only through micro-batches in flight; attention
    DP splits the requests over the ranks)."""
    return lay.tp, lay.pp, lay.cp, lay.ep, lay.recompute, lay.ad, lay.et
