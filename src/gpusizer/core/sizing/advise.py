"""The advice for one GPU type: how many to buy, laid out how, and why. One search serves
``plan``, ``compare_gpus``, the window's "GPUs needed" line and its Hardware tab, so they give
the same count, layout, speed and cost (core/sizing/option.py is the answer's type).

For each GPU of the catalog:

1. The fewest GPUs that hold the work (the layout search, core/sizing/layout_search.py), as
   set and, for training, with the techniques of the ladder (core/sizing/savings.py) where
   they let it fit on fewer whole units.
2. The count: that many, in whole purchase units (core/sizing/units.py); more when the
   targets ask (core/sizing/compare_scale.py): serving ``targets`` (users, speed per user, time to
   first token) or a training deadline (``targets.max_training_days``).
3. The layout: the fastest a practitioner would run on that count (core/sizing/fill.py),
   speed from the one speed function (core/sizing/pace.py); techniques only where nothing
   fits that count without them.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..model.architecture import ceil_div
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..registry.dtypes import DTYPES
from .compare_scale import Growth, grow
from .fill import Choice, Filler
from .fit_search import largest_fitting
from .layout_search import MAX_GPUS, Cancelled, Evaluator, GpuTarget, Layout, divisors
from .links import links_for
from .option import SizingOption, layout_label
from .reason import layout_reason
from .savings import Variant, ladder
from .search import EvaluatorFactory, search_catalog
from .systems import option_unit
from .units import Unit

Stop = Callable[[], bool]


@dataclass(frozen=True)
class Ask:
    """What the caller asks: counts in whole nodes instead of purchase units, the most GPUs
    an option may have, and how many layouts per GPU (``plan``'s alternatives)."""

    whole_nodes: bool = False
    max_gpus: int = MAX_GPUS
    keep: int = 1
    limits: bool = False  # plan: the largest batch, context or micro-batch that fit
    cards_per_box: int | None = None  # cards sold alone: 1, 2 or 4 to a box (None: fewest)


def unit_of(g: GpuTarget, ask: Ask) -> Unit:
    """What ``g`` is bought in: its node when whole nodes are asked, else its purchase unit."""
    return Unit(g.id, g.spec, ask.cards_per_box, g.hardware.gpus_per_node if ask.whole_nodes else None)


class GpuAdvice:
    """One GPU type's options (the best, then runners-up on the same count)."""

    def __init__(
        self,
        g: GpuTarget,
        variants: list[Variant],
        fewest: dict[int, Layout],
        evaluator: Callable[[int], Evaluator],
        ask: Ask,
        stop: Stop,
        notes: Sequence[str] = (),
    ) -> None:
        self.g, self.variants, self.fewest, self.ask = g, variants, fewest, ask
        self.s = variants[0].scenario
        node = g.hardware.gpus_per_node
        self.unit = unit_of(g, ask)
        self.links = links_for(g.spec, node, self.s.compute.interconnect_efficiency)
        self.filler = Filler(g, variants, evaluator, self.links, stop)
        self.notes = list(notes)

    def options(self) -> list[SizingOption]:
        if not self.fewest:
            return [self._missing()]
        least = min(lay.gpus for lay in self.fewest.values())
        growth = grow(self.s, self.filler, self.unit, least, self.ask.max_gpus, self.ask.keep)
        if not growth.choices:
            return [self._missing()]
        return [self._option(c, growth, i) for i, c in enumerate(growth.choices)]

    def _option(self, c: Choice, growth: Growth, index: int) -> SizingOption:
        est = estimate(c.scenario)
        lay, s = c.layout, c.scenario
        bought = growth.unit.count(lay.gpus)
        node = self.g.hardware.gpus_per_node
        par = s.parallelism.model_dump(mode="json")
        notes = [*self.notes, *growth.notes, *self._compute_notes(s, est.compute.compute_dtype)]
        if bought > lay.gpus:
            notes.append(
                f"{bought - lay.gpus} of the {bought:,} GPUs idle: no layout of this model uses "
                f"all of {growth.unit.units(bought)} x {growth.unit.name(bought)}"
            )
        variant = self.variants[c.variant]
        if variant.names:
            notes.append(
                f"turned on {variant.phrase[5:]} (scenario_changes): without, {lay.gpus:,} "
                f"GPU{'s' if lay.gpus > 1 else ''} do not hold it"
            )
        fields = self._blank() | {
            "fits": True,
            "gpus": bought,
            "gpus_in_layout": lay.gpus,
            "min_gpus": growth.least,
            "nodes": ceil_div(bought, node),
            "layout": layout_label(par, s.workload.is_training),
            "layout_reason": layout_reason(self, c, growth, index),
            "parallelism": par,
            "hardware": s.hardware.model_dump(mode="json"),
            "scenario_changes": dict(variant.changes),
            "batch_size": None if s.workload.is_training else c.batch,
            "per_gpu_total": est.memory.total,
            "headroom_bytes": est.headroom_bytes,
            "peak_phase": est.memory.peak_phase,
            "compute_dtype": est.compute.compute_dtype,
            "pace": c.pace,
            "targets_met": growth.met,
            "notes": tuple(notes),
            "limits": self._limits(c) if self.ask.limits else None,
            "unit": self._unit_fields(bought),
        }
        return SizingOption(**fields)

    def _limits(self, c: Choice) -> dict[str, int]:
        """The largest batch and context (serving; context capped at model.max_context) or
        micro-batch (training; a divisor of global/DP when the global batch is set) that
        fit the layout with the margin kept."""
        ev, lay, cap = self.filler.evaluator(c.variant), c.layout, self.g.capacity
        w = ev.base.workload
        if w.is_training:
            g, mb = w.global_batch_size, w.micro_batch_size
            mbs = divisors(g // lay.dp) if g else range(1, max(2**16, mb + 1))
            start = bisect.bisect_left(mbs, mb)
            return {
                "max_micro_batch_size": largest_fitting(
                    lambda v: ev.total(lay, micro_batch_size=v), mbs, start, cap
                )
            }
        b = c.batch or w.batch_size
        most = max(w.prompt_tokens, (ev.base.model.max_context or 2**24) - w.generated_tokens)
        batch = largest_fitting(
            lambda v: ev.total(lay, batch_size=v), range(1, max(2**20, b + 1)), b - 1, cap
        )
        prompt = largest_fitting(
            lambda v: ev.total(lay, batch_size=b, prompt_tokens=v),
            range(1, most + 1),
            w.prompt_tokens - 1,
            cap,
        )
        return {"max_batch_size": batch, "max_context_tokens": prompt + w.generated_tokens}

    def _unit_fields(self, gpus: int | None) -> dict[str, Any]:
        """``system``, ``system_name``, ``gpus_per_system`` and ``systems`` of the unit bought
        (core/sizing/systems.option_unit; the node when whole nodes are asked)."""
        g = self.g
        fields = option_unit(g.id, g.spec, self.ask.cards_per_box, gpus)
        if self.ask.whole_nodes and gpus is not None:
            node = g.hardware.gpus_per_node
            fields |= {"gpus_per_system": max(node, int(str(fields["gpus_per_system"] or 0)))}
        return fields

    def _blank(self) -> dict[str, Any]:
        g = self.g
        cap = g.spec.capacity_bytes
        return {
            "gpu": g.id,
            "gpu_name": g.spec.name,
            "vendor": g.spec.vendor,
            "category": g.spec.category,
            "gpus_per_node": g.hardware.gpus_per_node,
            "capacity_bytes": cap,
            "margin_bytes": cap - g.capacity,
        }

    def _missing(self) -> SizingOption:
        """Nothing fits with up to ``max_gpus`` GPUs: listed, ``fits`` false."""
        why = (
            f"nothing fits with up to {self.ask.max_gpus:,} GPUs and {self.g.margin:.0%} of memory kept spare"
        )
        goal = self.s.targets.applies(self.s.workload.is_training)
        unit = self._unit_fields(None)
        return SizingOption(**self._blank(), targets_met=False if goal else None, notes=(why,), unit=unit)

    def _compute_notes(self, s: Scenario, used: str) -> list[str]:
        """Low-precision weights on a GPU without their tensor cores: stored that way,
        computed in the activation dtype (core/roofline.matmul_dtype), and timed so."""
        wanted = DTYPES[s.precision.weights].compute_dtype
        if wanted in ("fp8", "int8", "fp4") and wanted not in self.g.spec.dense_tflops and used != wanted:
            return [f"no {wanted.upper()} tensor cores: {s.precision.weights} weights compute in {used}"]
        return []


def _searched(
    s: Scenario, catalog: Sequence[GpuTarget], ask: Ask, factory: EvaluatorFactory
) -> tuple[dict[str, Layout], dict[str, Evaluator], dict[str, str]]:
    """The fewest that hold ``s`` per GPU (the layout search), the evaluator that found it
    and the search's note."""
    found, evs, notes = {}, {}, {}
    for gid, (ev, fitted, note) in search_catalog(s, catalog, 1, ask.max_gpus, factory).items():
        evs[gid] = ev
        if fitted:
            found[gid] = fitted[0][0]
        if note:
            notes[gid] = note
    return found, evs, notes


def _ladder_counts(
    variants: list[Variant],
    catalog: Sequence[GpuTarget],
    ask: Ask,
    factory: EvaluatorFactory,
    units: dict[str, Unit],
) -> tuple[dict[str, dict[int, Layout]], dict[tuple[str, int], Evaluator], dict[str, str]]:
    """Per GPU, the fewest that hold the work as set and, where whole units could be saved,
    with the heaviest rungs of the ladder (the count is the least of them; the layout at
    that count then takes the lightest rung that fits, core/sizing/fill.py)."""
    found0, evs0, notes = _searched(variants[0].scenario, catalog, ask, factory)
    fewest: dict[str, dict[int, Layout]] = {g.id: {} for g in catalog}
    evs = {(gid, 0): ev for gid, ev in evs0.items()}
    for gid, lay in found0.items():
        fewest[gid][0] = lay

    def whole(gid: str, v: int) -> int:
        lay = fewest[gid].get(v)
        return units[gid].count(lay.gpus) if lay is not None else 2**62

    def search(v: int, gpus: list[GpuTarget]) -> None:
        most = min(ask.max_gpus, variants[v].max_gpus)
        found, v_evs, _ = _searched(variants[v].scenario, gpus, Ask(ask.whole_nodes, most), factory)
        for gid, lay in found.items():
            fewest[gid][v], evs[gid, v] = lay, v_evs[gid]

    last = len(variants) - 1
    heavy = [last, last - 1] if last > 1 and variants[last].max_gpus == 1 else [last]
    todo = [g for g in catalog if whole(g.id, 0) > units[g.id].count(1)] if last else []
    for v in heavy if todo else ():
        search(v, todo)
    for g in todo:  # a heavy rung counts only where it saves whole units
        if min((whole(g.id, v) for v in fewest[g.id]), default=2**62) >= whole(g.id, 0):
            for v in heavy:
                fewest[g.id].pop(v, None)
    return fewest, evs, notes


def advise_catalog(
    s: Scenario, catalog: Sequence[GpuTarget], ask: Ask, stop: Stop
) -> list[list[SizingOption]]:
    """Per GPU of ``catalog`` (in its order): its options, the answer first."""
    variants = ladder(s)
    factory: EvaluatorFactory = lambda sc, hw: Evaluator(sc, hw, stop)  # noqa: E731
    units = {g.id: unit_of(g, ask) for g in catalog}
    fewest, evs, notes = _ladder_counts(variants, catalog, ask, factory, units)
    probe = catalog[0].hardware.model_copy(
        update={"gpus_per_node": max(g.hardware.gpus_per_node for g in catalog)}
    )
    shared: dict[int, Evaluator] = {}

    def evaluator_for(g: GpuTarget) -> Callable[[int], Evaluator]:
        mine: dict[int, Evaluator] = {}

        def get(v: int) -> Evaluator:
            if v not in mine:
                if not s.workload.is_training:  # an engine sizes its memory to the GPU
                    mine[v] = factory(variants[v].scenario, g.hardware)
                elif (g.id, v) in evs:
                    mine[v] = evs[g.id, v]
                else:
                    if v not in shared:
                        shared[v] = factory(variants[v].scenario, probe)
                    mine[v] = shared[v]
            return mine[v]

        return get

    out = []
    for g in catalog:
        if stop():
            raise Cancelled
        note = [notes[g.id]] if g.id in notes else []
        adv = GpuAdvice(g, variants, fewest[g.id], evaluator_for(g), ask, stop, note)
        out.append(adv.options())
    return out
