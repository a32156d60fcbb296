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

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..cancel import CancelToken
from ..model.architecture import ceil_div
from ..model.specs import Scenario
from ..pipeline.estimate import estimate
from ..registry.dtypes import DTYPES
from .compare_scale import Growth, grow
from .fill import Choice, Filler
from .layout_search import MAX_GPUS, Evaluator, GpuTarget, Layout
from .links import links_for
from .option import SizingOption, layout_label
from .reason import layout_reason
from .savings import Variant
from .systems import option_unit
from .units import Unit


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
        token: CancelToken,
        notes: Sequence[str] = (),
        searched: dict[int, int | None] | None = None,
    ) -> None:
        self.g, self.variants, self.fewest, self.ask = g, variants, fewest, ask
        self.s = variants[0].scenario
        node = g.hardware.gpus_per_node
        self.unit = unit_of(g, ask)
        self.links = links_for(g.spec, node)
        self.filler = Filler(g, variants, evaluator, token, searched)
        self.notes = list(notes)

    def options(self) -> list[tuple[SizingOption, Choice | None]]:
        """The answer, then runners-up (``ask.keep`` in all), each with the choice it is of
        (None: nothing fits)."""
        if not self.fewest:
            return [(self._missing(), None)]
        least = min(lay.gpus for lay in self.fewest.values())
        growth = grow(self.s, self.filler, self.unit, least, self.ask.max_gpus, self.ask.keep)
        if not growth.choices:
            return [(self._missing(), None)]
        return [(self._option(c, growth, i), c) for i, c in enumerate(growth.choices)]

    def _option(self, c: Choice, growth: Growth, index: int) -> SizingOption:
        est = estimate(c.scenario)
        lay, s = c.layout, c.scenario
        bought = growth.unit.count(lay.gpus)
        node = self.g.hardware.gpus_per_node
        par = s.parallelism.model_dump(mode="json")
        notes = [*self.notes, *growth.notes, *self._compute_notes(s, est.compute.compute_dtype)]
        if est.serving is not None and est.serving.simulation_note:  # core/serving/budget.py
            notes.append(f"serving speed: {est.serving.simulation_note}")
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
            "unit": self._unit_fields(bought),
        }
        return SizingOption(**fields)

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
        notes = (why, *self.notes)  # the search's own (its work limit reached, core/sizing/work.py)
        return SizingOption(**self._blank(), targets_met=False if goal else None, notes=notes, unit=unit)

    def _compute_notes(self, s: Scenario, used: str) -> list[str]:
        """Low-precision weights on a GPU without their tensor cores: stored that way,
        computed in the activation dtype (core/roofline.matmul_dtype), and timed so."""
        wanted = DTYPES[s.precision.weights].compute_dtype
        if wanted in ("fp8", "int8", "fp4") and wanted not in self.g.spec.dense_tflops and used != wanted:
            return [f"no {wanted.upper()} tensor cores: {s.precision.weights} weights compute in {used}"]
        return []
