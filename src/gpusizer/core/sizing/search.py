"""The catalog the advice sizes, and the fewest GPUs of each that hold the work.

Per GPU of the catalog (user GPUs and the scenario's inline GPU included): its node shape,
the memory margin kept spare, and the fewest GPUs whose per-GPU peak fits with that margin
(the layout search, core/sizing/layout_search.py, re-estimated in full on the GPU). One search
serves the whole catalog (a training peak does not depend on the GPU); a GPU whose full
estimate disagrees, and every GPU of a served model (an engine sizes itself to its GPU), is
searched again alone, from the layouts the shared search found for it: a GPU's answer is the
same compared alone or in the catalog.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence

from ..model.presets import gpu_presets, gpu_spec, resolve_gpu_id
from ..model.result import Estimate
from ..model.specs import GPUSpec, HardwareSpec, Scenario
from ..model.unified import effective_gpu
from ..pipeline.estimate import estimate
from ..pipeline.runs_on import scenario_runs_on
from ..pipeline.work import builder_of
from ..serving.rules import memory_rule
from .compare_options import DEFAULT_MARGIN
from .layout_search import Evaluator, GpuTarget, solve
from .layout_space import Layout, dp_values
from .unit_host import host_short
from .widest import with_dp

Fitted = tuple[Layout, Scenario, Estimate]
EvaluatorFactory = Callable[[Scenario, HardwareSpec], Evaluator]


def catalog_specs(hw: HardwareSpec | None = None) -> dict[str, GPUSpec]:
    """Catalog and user GPUs by id (bad user GPUs are already left out by core/model/presets.py),
    plus the inline GPU of ``hw``."""
    specs = {gid: gpu_spec(gid) for gid in gpu_presets()}
    if hw is not None and isinstance(hw.gpu, GPUSpec) and hw.gpu.id not in specs:
        specs[hw.gpu.id] = hw.gpu
    return specs


def catalog_targets(
    s: Scenario, only: Sequence[str] | None, margin: float = DEFAULT_MARGIN, own_node_only: bool = False
) -> list[GpuTarget]:
    """Catalog and user GPUs (and the scenario's inline GPU), each with its node shape and
    the memory ``margin`` to keep spare. The scenario's ``gpus_per_node``, when set, applies
    to every GPU, or with ``own_node_only`` to the scenario's GPU only (the others come as
    their catalog entry says: a comparison across GPU types); so does its
    ``network_gb_per_s``. A serving engine that takes a
    share of each GPU up front (its memory rule's ``reserves_memory``) keeps the rest free
    itself: that share is its margin, so no second one is taken from what it needs. Only the
    GPUs the framework runs on (core/pipeline/runs_on.py; compare.left_out_gpus names the rest)."""
    hw, specs = s.hardware, catalog_specs(s.hardware)
    if s.workload.serves and memory_rule(s.profile).reserves_memory:
        margin = 0.0
    explicit = "gpus_per_node" in hw.model_fields_set
    own = hw.gpu.id if isinstance(hw.gpu, GPUSpec) else resolve_gpu_id(hw.gpu)
    wanted = None if only is None else {resolve_gpu_id(g) for g in only}

    def mine(gid: str) -> bool:
        return gid == own or not own_node_only

    def node(gid: str, spec: GPUSpec) -> int:
        return hw.gpus_per_node if explicit and mine(gid) else spec.gpus_per_node

    return [
        GpuTarget(
            gid,
            effective_gpu(spec, hw.gpu_memory_fraction),
            HardwareSpec(
                gpu=spec if spec is hw.gpu else gid,
                gpus_per_node=node(gid, spec),
                allow_cross_node_tensor_parallel=hw.allow_cross_node_tensor_parallel,
                gpu_memory_fraction=hw.gpu_memory_fraction,
                host_memory_bytes=hw.host_memory_bytes,
                network_gb_per_s=hw.network_gb_per_s if mine(gid) else None,
            ),
            margin,
        )
        for gid, spec in specs.items()
        if (wanted is None or gid in wanted) and scenario_runs_on(s, spec)
    ]


def holds(est: Estimate, capacity: int) -> bool:
    """Whether the estimated work runs within ``capacity`` bytes of the GPU: what it needs
    there fits, a serving engine starts and holds a request, and on unified memory the
    rest fits the machine too (core/result.Estimate.fits, with the margin kept)."""
    if est.required_bytes > capacity or not est.runs or est.pool_shortfall is not None:
        return False
    return est.serving is None or bool(est.requests_held)


def fitted(ev: Evaluator, g: GpuTarget, lay: Layout) -> Fitted | None:
    """The layout re-estimated in full on its own GPU; None if it does not hold there
    (:func:`holds`, the margin kept), or if what it offloads needs more host RAM than its
    purchase unit has (core/sizing/unit_host.py; the scenario's stated RAM wins)."""
    s = ev.scenario(lay).model_copy(update={"hardware": g.hardware})
    est = estimate(s)
    return (lay, s, est) if holds(est, g.capacity) and host_short(est, g) is None else None


def _holds(ev: Evaluator, g: GpuTarget, lay: Layout) -> bool:
    return fitted(ev, g, lay) is not None


def _short(ev: Evaluator, g: GpuTarget, lay: Layout) -> str | None:
    return host_short(estimate(ev.scenario(lay).model_copy(update={"hardware": g.hardware})), g)


def host_widened(
    ev: Evaluator, g: GpuTarget, lays: Sequence[Layout], max_gpus: int
) -> tuple[list[Fitted], str | None]:
    """Where the fewest layouts hold the GPU but their offloads not the unit's host RAM
    (core/sizing/unit_host.py): each at the next wider data-parallel degrees, since ZeRO
    partitions the offloaded optimizer states and weights over the DP ranks (Rajbhandari et
    al. 2021, arXiv 2104.07857 §5: each rank offloads its own partition), so the host RAM a GPU
    needs falls about as 1/DP; the first that holds both, and the note of why the fewest did
    not (None where none was turned away for host RAM)."""
    why = _short(ev, g, lays[0]) if lays else None
    if why is None:
        return [], None
    lay = lays[0]
    note = f"{lay.gpus} GPU{'s' if lay.gpus != 1 else ''} would hold it, but {why}"
    for base in lays:
        got = _wider(ev, g, base, max_gpus)
        if got is not None:
            return [got], note
    return [], note


def _wider(ev: Evaluator, g: GpuTarget, base: Layout, max_gpus: int) -> Fitted | None:
    """``base`` at ZeRO-3 (which partitions the offloaded weights too; the training search
    weighs every stage, core/sizing/layout_space.py) or its own stage, at the fewest wider DP
    that holds GPU and host RAM (bisected: both fall as DP grows)."""
    for zero in dict.fromkeys((3, base.zero)):
        lay = Layout(base.tp, base.pp, base.cp, base.ep, zero, base.recompute, base.dp, base.ad, base.et)
        dps = [d for d in dp_values(ev.base, lay, max_gpus) if d > base.dp]
        if not dps or ev.checked(with_dp(lay, dps[0])) is None:
            continue
        at = [with_dp(lay, d) for d in dps]
        if fitted(ev, g, at[-1]) is not None:
            first = bisect.bisect_left(
                range(len(at) - 1), True, key=lambda j: fitted(ev, g, at[j]) is not None
            )
            return fitted(ev, g, at[first])
    return None


def search_catalog(
    s: Scenario, catalog: Sequence[GpuTarget], keep: int, max_gpus: int, factory: EvaluatorFactory = Evaluator
) -> dict[str, tuple[Evaluator, list[Fitted], str | None]]:
    """Per GPU: the evaluator used, the ``keep`` best layouts (re-estimated in full on it)
    and a note. A served model is searched again on each GPU with its own evaluator: an
    engine sizes itself to its GPU (the format its kernels keep the weights in, the share of
    memory it reserves), so the probe GPU's peaks could turn away a layout another GPU holds
    (DeepSeek-R1 FP8 under SGLang read 6 B200s in the catalog, 5 compared alone). The shared
    search's layouts that hold there stand from the start (layout_search.solve's ``seed``):
    the answer is the GPU's own search's, only fewer layouts are weighed to reach it."""
    probe = catalog[0].hardware.model_copy(
        update={"gpus_per_node": max(g.hardware.gpus_per_node for g in catalog)}
    )
    # a kind whose peak is a share of the GPU (RL's colocated engine) is searched per GPU: the
    # probe's share says nothing of another GPU's (WorkBuilder.memory_per_gpu)
    alone = builder_of(s.workload.info).memory_per_gpu
    shared = factory(s, probe)
    found, notes = solve(s, catalog, shared, keep, max_gpus) if not alone else ({}, {})
    out: dict[str, tuple[Evaluator, list[Fitted], str | None]] = {}
    for g in catalog:
        ev, note = shared, notes.get(g.id)
        own = s.workload.serves and probe != g.hardware  # the probe's peaks are not this GPU's
        got = [None if own else fitted(ev, g, lay) for _, lay in found.get(g.id, ())]
        if alone or own or None in got:
            ev, held = factory(ev.base, g.hardware), [lay for _, lay in found.get(g.id, ())]
            seed = [lay for lay in held if ev.total(lay) <= g.capacity]  # as its own search weighs
            one, again = solve(ev.base, [g], ev, keep, max_gpus, seed)
            got, note = [fitted(ev, g, lay) for _, lay in one[g.id]], again.get(g.id)
            if not any(got):  # turned away for the unit's host RAM: wider DP, and why
                wider, why = host_widened(ev, g, [lay for _, lay in one[g.id]], max_gpus)
                got, note = (list[Fitted | None](wider), why) if why is not None else (got, note)
        out[g.id] = (ev, [f for f in got if f is not None], note)
    return out
