"""Sizing advisor: how many of which GPU, laid out how (``gpusizer.plan``, ``gpusizer-cli plan``).

For each catalog GPU (plus an inline GPU of the scenario), the fewest GPUs and the layout whose
per-GPU peak fits with a margin of usable memory to spare (``DEFAULT_MARGIN``, 10%),
re-estimated in full. Layouts are all the validator accepts: TP over the
divisors of attention_heads up to the node (``hardware.gpus_per_node`` if set, else the GPU's;
beyond it only with ``allow_cross_node_tensor_parallel``), PP over the stage sizes ⌈layers/k⌉
up to 128 stages (a PP with the stage size of a smaller one only adds GPUs), CP over the divisors of
sequence_length/2 up to 64 with at least 4,096 tokens per rank, EP over the divisors of experts,
ZeRO 0-3, and the smallest DP that fits. Inference keeps DP = EP (replicas add throughput, not
memory), so its count is TP x PP (x EP); CP and ZeRO do not apply to it.

The search itself (and why it is fast) is in :mod:`gpusizer.core.sizing.layout_search`.

Choices: fewest GPUs; at equal count the least model parallelism (ZeRO/DP, then TP, then PP,
then CP; Megatron, which lacks ZeRO-2/3, prefers TP/PP), the lowest ZeRO stage, the smallest
EP. ``workload.global_batch_size`` is kept (DP must divide global/micro; the rest is gradient
accumulation); without it each DP rank runs one micro-batch (the format's default). The user's
recompute is kept unless ``allow_recompute``; if nothing fits with it, heavier recompute is
tried and noted. GPUs on which nothing fits with up to ``max_gpus`` are left out.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from typing import Any

from ..cancel import Cancelled, CancelToken, as_token
from ..memory.techniques import relaxations
from ..model.architecture import ceil_div
from ..model.presets import gpu_presets, gpu_spec, resolve_gpu_id
from ..model.result import Estimate
from ..model.specs import GPUSpec, HardwareSpec, Scenario
from ..model.unified import effective_gpu
from ..pipeline.estimate import estimate
from ..pipeline.scenario import parse_scenario
from ..serving.rules import memory_rule
from .fit_search import largest_fitting
from .layout_search import (
    DEFAULT_MARGIN,
    MAX_GPUS,
    Evaluator,
    GiB,
    GpuTarget,
    Layout,
    check_margin,
    divisors,
    solve,
)


def layout_label(par: dict[str, Any], training: bool) -> str:
    """``TP 8 x PP 2 x DP 4 (ZeRO 1)``, with CP, EP and recompute when they are used."""
    cp = f" x CP {par['context']}" if par["context"] > 1 else ""
    out = f"TP {par['tensor']} x PP {par['pipeline']}{cp} x DP {par['data']}"
    out += f" (ZeRO {par['zero_stage']})" if training else ""
    out += f", EP {par['expert']}" if par["expert"] > 1 else ""
    return out + (f", recompute {par['recompute']}" if training and par["recompute"] != "none" else "")


def _limits(ev: Evaluator, lay: Layout, cap: int) -> dict[str, int]:
    """The largest batch and context (inference; context capped at model.max_context) or
    micro-batch (training; a divisor of global/DP when the global batch is set) that fit."""
    w = ev.base.workload
    if w.is_training:
        g, mb = w.global_batch_size, w.micro_batch_size
        mbs = divisors(g // lay.dp) if g else range(1, max(2**16, mb + 1))
        return {
            "max_micro_batch_size": largest_fitting(
                lambda v: ev.total(lay, micro_batch_size=v), mbs, bisect.bisect_left(mbs, mb), cap
            )
        }
    most = max(w.prompt_tokens, (ev.base.model.max_context or 2**24) - w.generated_tokens)
    batch = largest_fitting(
        lambda v: ev.total(lay, batch_size=v), range(1, max(2**20, w.batch_size + 1)), w.batch_size - 1, cap
    )
    prompt = largest_fitting(
        lambda v: ev.total(lay, prompt_tokens=v), range(1, most + 1), w.prompt_tokens - 1, cap
    )
    return {"max_batch_size": batch, "max_context_tokens": prompt + w.generated_tokens}


def _option(
    ev: Evaluator, g: GpuTarget, lay: Layout, rank: int, note: str | None, s: Scenario, est: Estimate
) -> dict[str, Any]:
    """One option: ``s`` is the layout on its own GPU, ``est`` its full estimate."""
    price = g.spec.price_per_hour
    par = s.parallelism.model_dump(mode="json")
    return {
        "gpu": g.id,
        "gpu_name": g.spec.name,
        "gpus": lay.gpus,
        "rank": rank,
        "fits": True,
        "nodes": ceil_div(lay.gpus, g.hardware.gpus_per_node),
        "layout": layout_label(par, s.workload.is_training),
        "parallelism": par,
        "hardware": s.hardware.model_dump(mode="json"),
        "per_gpu_total": est.memory.total,
        "capacity_bytes": est.capacity_bytes,
        "headroom_bytes": est.headroom_bytes,
        "peak_phase": est.memory.peak_phase,
        "price_per_hour": price,
        "total_price_per_hour": None if price is None else price * lay.gpus,
        **_limits(ev, lay, g.capacity),
        "notes": [note] if note else [],
        **({"workload": {"loss": s.workload.loss}} if s.workload.is_training else {}),
    }


PlanCancelled = Cancelled  # the old name of core/cancel.Cancelled (scripts catch it)


def catalog_specs(hw: HardwareSpec | None = None) -> dict[str, GPUSpec]:
    """Catalog and user GPUs by id (bad user GPUs are already left out by core/presets.py),
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
    their catalog entry says: a comparison across GPU types). A serving engine that takes a
    share of each GPU up front (its memory rule's ``reserves_memory``) keeps the rest free
    itself: that share is its margin, so no second one is taken from what it needs."""
    hw, specs = s.hardware, catalog_specs(s.hardware)
    if not s.workload.is_training and memory_rule(s.profile).reserves_memory:
        margin = 0.0
    explicit = "gpus_per_node" in hw.model_fields_set
    own = hw.gpu.id if isinstance(hw.gpu, GPUSpec) else resolve_gpu_id(hw.gpu)
    wanted = None if only is None else {resolve_gpu_id(g) for g in only}

    def node(gid: str, spec: GPUSpec) -> int:
        mine = explicit and (gid == own or not own_node_only)
        return hw.gpus_per_node if mine else spec.gpus_per_node

    return [
        GpuTarget(
            gid,
            effective_gpu(spec, hw.gpu_memory_fraction),
            HardwareSpec(
                gpu=spec if spec is hw.gpu else gid,
                gpus_per_node=node(gid, spec),
                allow_cross_node_tensor_parallel=hw.allow_cross_node_tensor_parallel,
                gpu_memory_fraction=hw.gpu_memory_fraction,
            ),
            margin,
        )
        for gid, spec in specs.items()
        if wanted is None or gid in wanted
    ]


Fitted = tuple[Layout, Scenario, Estimate]
EvaluatorFactory = Callable[[Scenario, HardwareSpec], Evaluator]


def _fitted(ev: Evaluator, g: GpuTarget, lay: Layout) -> Fitted | None:
    """The layout re-estimated in full on its own GPU; None if what it needs exceeds the
    capacity there (the margin kept) or the serving engine would not start."""
    s = ev.scenario(lay).model_copy(update={"hardware": g.hardware})
    est = estimate(s)
    return (lay, s, est) if est.required_bytes <= g.capacity and est.runs else None


def search_catalog(
    s: Scenario,
    catalog: Sequence[GpuTarget],
    keep: int,
    max_gpus: int,
    allow_recompute: bool,
    factory: EvaluatorFactory = Evaluator,
) -> dict[str, tuple[Evaluator, list[Fitted], str | None]]:
    """Per GPU: the evaluator used, the ``keep`` best layouts (re-estimated in full on it)
    and a note; one search serves the whole catalog (the peak does not depend on the GPU),
    a GPU whose full estimate disagrees is searched again alone."""
    probe = catalog[0].hardware.model_copy(
        update={"gpus_per_node": max(g.hardware.gpus_per_node for g in catalog)}
    )
    shared = factory(s, probe)
    found, notes = solve(s, catalog, shared, keep, max_gpus, allow_recompute)
    evs = _relax(s, catalog, probe, found, notes, keep, max_gpus, factory)
    out: dict[str, tuple[Evaluator, list[Fitted], str | None]] = {}
    for g in catalog:
        ev, note = evs.get(g.id, shared), notes.get(g.id)
        fitted = [_fitted(ev, g, lay) for _, lay in found[g.id]]
        if None in fitted:  # the peak depends on the GPU after all: search this one alone
            ev = factory(ev.base, g.hardware)
            one, again = solve(ev.base, [g], ev, keep, max_gpus, allow_recompute)
            fitted, note = [_fitted(ev, g, lay) for _, lay in one[g.id]], again.get(g.id)
        out[g.id] = (ev, [f for f in fitted if f is not None], note)
    return out


def _relax(
    s: Scenario,
    catalog: Sequence[GpuTarget],
    probe: HardwareSpec,
    found: dict[str, list[tuple[tuple[int, ...], Layout]]],
    notes: dict[str, str],
    keep: int,
    max_gpus: int,
    factory: EvaluatorFactory,
) -> dict[str, Evaluator]:
    """GPUs on which nothing fits are searched again with the techniques the advisor may turn
    on (core/techniques.relaxations: chunked loss, then checkpoint offload), each noted."""
    evs: dict[str, Evaluator] = {}
    for relaxed, why in relaxations(s):
        missing = [g for g in catalog if not found[g.id]]
        if not missing:
            break
        ev = factory(relaxed, probe)
        more, more_notes = solve(relaxed, missing, ev, keep, max_gpus, True)
        for gid in (gid for gid, lst in more.items() if lst):
            found[gid], evs[gid] = more[gid], ev
            notes[gid] = "; ".join(n for n in (why, more_notes.get(gid)) if n)
    return evs


def _plan_key(o: dict[str, Any]) -> tuple[Any, ...]:
    """Priced options first, by total price per hour; then the rest by GPU count (a GPU
    without a price is not ranked above a priced one for needing fewer of it)."""
    price = o["total_price_per_hour"]
    return (price is None, price or 0.0, o["gpus"], o["capacity_bytes"], o["gpu"], o["rank"])


def plan(
    scenario: dict[str, Any] | Scenario,
    *,
    max_gpus: int = MAX_GPUS,
    alternatives: int = 0,
    allow_recompute: bool = False,
    gpus: Sequence[str] | None = None,
    margin: float = DEFAULT_MARGIN,
    cancel: CancelToken | Callable[[], bool] | None = None,
) -> list[dict[str, Any]]:
    """Sizing options, cheapest first (by total price per hour where the GPU has a cloud
    price, then the unpriced ones by GPU count, then the smaller GPU): per GPU the fewest GPUs
    whose per-GPU peak leaves at least ``margin`` of usable memory spare (default 10%, as
    ``compare_gpus`` and the window) and the preferred layout, plus up to ``alternatives``
    runners-up (``rank`` 2, 3...). Each option: ``gpu``, ``gpu_name``, ``gpus``, ``nodes``,
    ``layout``, ``parallelism`` and ``hardware`` (blocks that, put back into the scenario,
    fit), ``per_gpu_total``, ``capacity_bytes``, ``headroom_bytes`` (bytes),
    ``price_per_hour``, ``total_price_per_hour`` (USD or None), ``max_batch_size`` and
    ``max_context_tokens`` (inference) or ``max_micro_batch_size`` (training), the largest
    that keep the margin, ``notes``. ``gpus`` restricts the catalog. GPUs on which nothing fits
    with up to ``max_gpus`` GPUs are left out (``plan_text`` names them). Raises ScenarioError
    for bad input, and core/cancel.Cancelled once ``cancel`` (a CancelToken, or a callable
    returning True) says so: it is asked before every estimate."""
    s = parse_scenario(scenario)
    estimate(s)  # errors only the estimator raises (a serving framework asked to train)
    catalog = catalog_targets(s, gpus, check_margin(margin))
    if not catalog:
        return []
    token = as_token(cancel)
    keep = 1 + max(0, alternatives)
    options: list[dict[str, Any]] = []
    by_gpu = search_catalog(
        s, catalog, keep, max_gpus, allow_recompute, lambda sc, hw: Evaluator(sc, hw, token)
    )
    for g in catalog:
        ev, fitted, note = by_gpu[g.id]
        options += [_option(ev, g, lay, i, note, sc, est) for i, (lay, sc, est) in enumerate(fitted, 1)]
    return sorted(options, key=_plan_key)


def plan_text(options: Sequence[dict[str, Any]]) -> str:
    """The options as a table for ``gpusizer-cli plan`` (sizes in GiB, price in USD/hour)."""
    if not options:
        return "No GPU in the catalog fits this scenario with any layout within the search limit."
    inference = "max_batch_size" in options[0]
    head = (
        "GPU",
        "GPUs",
        "Nodes",
        "Layout",
        "Peak/GPU",
        "Headroom",
        *(("Max batch", "Max context") if inference else ("Max micro-batch",)),
        "$/hour",
    )
    rows = [head] + [
        (
            o["gpu_name"] + ("" if o["rank"] == 1 else f" (alt {o['rank'] - 1})"),
            str(o["gpus"]),
            str(o["nodes"]),
            o["layout"],
            f"{o['per_gpu_total'] / GiB:.1f} GiB",
            f"{o['headroom_bytes'] / GiB:.1f} GiB",
            *(
                (str(o["max_batch_size"]), str(o["max_context_tokens"]))
                if inference
                else (str(o["max_micro_batch_size"]),)
            ),
            "-" if o["total_price_per_hour"] is None else f"{o['total_price_per_hour']:,.2f}",
        )
        for o in options
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [
        "  ".join(
            c.ljust(w) if i in (0, 3) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    missing = sorted(set(gpu_presets()) - {o["gpu"] for o in options})
    if missing:
        lines.append(f"Not listed (no layout fits within the search limit): {', '.join(missing)}")
    return "\n".join(lines + sorted({f"Note ({o['gpu']}): {n}" for o in options for n in o["notes"]}))
