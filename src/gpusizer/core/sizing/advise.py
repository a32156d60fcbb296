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
from ..speed.goodput import effective_time_share
from .compare_scale import Growth, grow, smallest_serving
from .disagg_pools import pool_changes, pools_note
from .disagg_split import propose_split
from .fill import Filler
from .fill_serving import Choice
from .layout_search import MAX_GPUS, Evaluator, GpuTarget
from .layout_space import Layout
from .links import links_for
from .option import Pace, SizingOption, layout_label
from .practical import cap_words, practical_cap
from .reason import layout_reason
from .rl_notes import deadline_reason, rl_fields, split_notes
from .rl_unmet import rl_engine_reason
from .savings import Variant
from .service_level import default_target
from .stated import none_tried, own_gpu, stated_fits
from .systems import option_unit
from .units import Unit, pool_beside, with_pool
from .unmet import context_reason, fill_refusal, practical_reason, speed_gaps, targets_reason


@dataclass(frozen=True)
class Ask:
    """What the caller asks: counts in whole nodes instead of purchase units, the most GPUs
    an option may have, and how many layouts per GPU (``plan``'s alternatives)."""

    whole_nodes: bool = False
    max_gpus: int = MAX_GPUS
    keep: int = 1
    limits: bool = False  # plan: the largest batch, context or micro-batch that fit
    cards_per_box: int | None = None  # cards sold alone: 1, 2 or 4 to a box (None: fewest)


def unit_of(g: GpuTarget, ask: Ask, s: Scenario | None = None) -> Unit:
    """What ``g`` is bought in: its node when whole nodes are asked, else its purchase unit; a
    split RL run's count with its rollout pool bought beside it (core/sizing/units.PoolUnit)."""
    unit = Unit(g.id, g.spec, ask.cards_per_box, g.hardware.gpus_per_node if ask.whole_nodes else None)
    return unit if s is None else with_pool(unit, pool_beside(s))


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
        self.unit = unit_of(g, ask, variants[0].scenario)
        self.links = links_for(g.spec, node)
        self.filler = Filler(g, variants, evaluator, token, searched)
        self.notes = list(notes)

    def options(self) -> list[tuple[SizingOption, Choice | None]]:
        """The answer, then runners-up (``ask.keep`` in all), each with the choice it is of
        (None: nothing fits)."""
        if not self.fewest:
            return [(self._missing(*self._no_fit()), None)]
        least = min(lay.gpus for lay in self.fewest.values())
        most = self._most()
        if least > most:  # memory alone needs more consumer cards than the practical cap
            why = f"{least:,} GPUs would hold it, but {cap_words(most)}"
            return [(self._missing("practical_limit", why), None)]
        growth = grow(self.s, self.filler, self.unit, least, most, self.ask.keep)
        if not growth.choices:  # one replica holds it: the users need more than the cap
            if growth.met is None:  # no target: the fill refused the count, the cap never applied
                why = practical_reason(self.s, least, 0, growth.count, self._refusal())
                return [(self._missing("practical_limit", why), None)]
            why = practical_reason(self.s, least, growth.unit.top(most))
            cap = practical_cap(self.g.spec)
            return [(self._missing("practical_limit", why + (f"; {cap_words(cap)}" if cap else "")), None)]
        return [(self._option(c, growth, i), c) for i, c in enumerate(growth.choices)]

    def _refusal(self) -> str | None:
        """The full estimate's reason the count search's fewest layout does not hold on this
        GPU (unified memory: the whole machine), which the fill also weighs."""
        v, lay = min(self.fewest.items(), key=lambda item: item[1].gpus)
        batch = None if self.s.workload.trains else self.s.workload.batch_size
        try:
            return fill_refusal(estimate(self.filler.scenario(v, lay, batch)), self.g.capacity)
        except Exception:  # an estimate that fails says nothing more than the generic sentence
            return None

    def _most(self) -> int:
        """The most GPUs an option may have: ``max_gpus``, or the practical cap on consumer
        cards (core/sizing/practical.py)."""
        cap = practical_cap(self.g.spec)
        return self.ask.max_gpus if cap is None else min(cap, self.ask.max_gpus)

    def _no_fit(self) -> tuple[str, str]:
        """Why no layout holds the work: the engine's context (no count changes it) or memory (on
        the scenario's own GPU, with its stated attention-DP layout where that fits:
        core/sizing/stated.py)."""
        context = context_reason(self.s.model_copy(update={"hardware": self.g.hardware}))
        if context is not None:
            return "context_limit", context
        engine = rl_engine_reason(self.s, self.g)
        if engine is not None:
            return "memory", engine
        why = (
            f"nothing fits with up to {self.ask.max_gpus:,} GPUs and {self.g.margin:.0%} of memory kept spare"
        )
        own = self.s if self.g.id == own_gpu(self.s) else None  # the stated layout is on its own GPU
        stated = None if own is None else stated_fits(own, self.g.capacity)
        return "memory", why if stated is None else f"{none_tried(why)}; {stated}"

    def _judged(self, c: Choice, growth: Growth, rl: dict[str, Any] | None = None) -> dict[str, Any]:
        """``unmet``, ``unmet_reason`` and ``default_target_met`` of choice ``c``: the user's
        targets first, then the stated default service level (core/sizing/service_level.py).
        ``rl``: the choice's estimate's RL block (its run, not a training pace, misses a deadline)."""
        out: dict[str, Any] = {"unmet": None, "unmet_reason": None, "default_target_met": None}
        if growth.met is False:
            most = self._most()
            top = growth.unit.top(most)
            if rl is not None:
                why = deadline_reason(self.s, rl, effective_time_share(self.s, c.layout.gpus), top)
            else:
                tried = self._best_tried(growth)
                why = targets_reason(self.s, c.pace, top, c.layout.gpus, growth.at_top, tried)
            out |= {"unmet": "targets", "unmet_reason": why}
            if growth.at_top and most < self.ask.max_gpus:  # the cap, not the model, stops it
                out |= {"unmet": "practical_limit", "unmet_reason": f"{why}; {cap_words(most)}"}
        level = default_target(self.s)
        if level is not None:
            gaps = speed_gaps(c.pace, level)
            out["default_target_met"] = not gaps
            if gaps and out["unmet"] is None:
                out["unmet"] = "targets"
                out["unmet_reason"] = f"misses the default target ({level.words()}): " + "; ".join(gaps)
        return out

    def _best_tried(self, growth: Growth) -> tuple[int, Pace] | None:
        """Serving targets missed: the most GPUs weighed and the fastest layout's speed there."""
        if growth.tried is None or growth.at_top:
            return None
        best = self.filler.best(growth.tried)
        return (best[0].layout.gpus, best[0].pace) if best else None

    def _goodput(self, c: Choice) -> dict[str, Any]:
        """Training: the effective share of wall time and the run's wall time."""
        if not self.s.workload.trains:
            return {}
        share = effective_time_share(self.s, c.layout.gpus)
        ideal = c.pace.time_seconds
        return {"effective_time_share": share, "wall_time_seconds": None if ideal is None else ideal / share}

    def _need(self, c: Choice, growth: Growth, bought: int) -> dict[str, Any]:
        """What the work needs apart from what is bought: the fewest that hold it (with no
        target, or targets that cannot be met) or the layout that meets the targets."""
        training = self.s.workload.trains
        if growth.why == "fewest" or growth.met is False:
            lay = min(self.fewest.values(), key=lambda x: x.gpus)
            par = {
                "tensor": lay.tp,
                "pipeline": lay.pp,
                "context": lay.cp,
                "data": lay.dp,
                "zero_stage": lay.zero,
                "expert": lay.ep,
                "recompute": lay.recompute,
            }
            need, label = lay.gpus, layout_label(par, training)
        else:
            need, label = (
                c.layout.gpus,
                layout_label(c.scenario.parallelism.model_dump(mode="json"), training),
            )
            if growth.why == "targets":  # the fewest GPUs, not units, that meet them
                need = smallest_serving(self.filler, growth.least, c.layout.gpus)
                fewest = self.filler.best(need)
                if fewest:
                    label = layout_label(fewest[0].scenario.parallelism.model_dump(mode="json"), training)
        return {"needed_gpus": need, "needed_layout": label, "spare_gpus": max(0, bought - need)}

    def _option(self, c: Choice, growth: Growth, index: int) -> SizingOption:
        est = estimate(c.scenario)
        lay, s = c.layout, c.scenario
        bought = growth.unit.count(lay.gpus)
        node = self.g.hardware.gpus_per_node
        par = s.parallelism.model_dump(mode="json")
        notes = [*self.notes, *growth.notes, *self._compute_notes(s, est.compute.compute_dtype)]
        if est.serving is not None and est.serving.simulation_note:  # core/serving/budget.py
            notes.append(f"serving speed: {est.serving.simulation_note}")
        notes += split_notes(est.rl)
        if bought > lay.gpus:
            notes.append(
                f"{bought - lay.gpus} of the {bought:,} GPUs idle: no layout of this model uses "
                f"all of {growth.unit.units(bought)} x {growth.unit.name(bought)}"
            )
        variant = self.variants[c.variant]
        changes = dict(variant.changes) | pool_changes(self.s, s)
        notes += pools_note(changes, self.s)
        if variant.names:
            notes.append(
                f"turned on {variant.phrase[5:]} (scenario_changes): without, {lay.gpus:,} "
                + ("GPUs do not" if lay.gpus > 1 else "GPU does not")
                + " hold it"
            )
        need = self._need(c, growth, bought)
        split = propose_split(s, self._most())
        if split is not None:
            notes.append(split.note(bought, need["needed_gpus"], growth.unit.count(split.gpus)))
        fields = self._blank() | {
            "split": split,
            "fits": True,
            "gpus": bought,
            "gpus_in_layout": lay.gpus,
            "min_gpus": growth.least,
            "nodes": ceil_div(bought, node),
            "layout": layout_label(par, s.workload.trains),
            "layout_reason": layout_reason(self, c, growth, index),
            "parallelism": par,
            "hardware": s.hardware.model_dump(mode="json"),
            "scenario_changes": changes,
            "batch_size": None if s.workload.trains else c.batch,
            "per_gpu_total": est.memory.total,
            "headroom_bytes": est.headroom_bytes,
            "peak_phase": est.memory.peak_phase,
            "compute_dtype": est.compute.compute_dtype,
            "pace": c.pace,
            "targets_met": growth.met,
            "notes": tuple(notes),
            "unit": self._unit_fields(bought),
            **self._judged(c, growth, est.rl),
            **need,
            **self._goodput(c),
            **rl_fields(est.rl),
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

    def _missing(self, unmet: str, why: str) -> SizingOption:
        """No option to offer: listed, ``fits`` false, with the cause (``unmet``: memory,
        context_limit or practical_limit) and its sentence."""
        goal = self.s.targets.applies(self.s.workload.trains)
        unit = self._unit_fields(None)
        notes = (why, *self.notes)  # the search's own (its work limit reached, core/sizing/work.py)
        return SizingOption(
            **self._blank(),
            targets_met=False if goal else None,
            notes=notes,
            unit=unit,
            unmet=unmet,
            unmet_reason=why,
        )

    def _compute_notes(self, s: Scenario, used: str) -> list[str]:
        """Low-precision weights on a GPU without their tensor cores: stored that way,
        computed in the activation dtype (core/roofline.matmul_dtype), and timed so."""
        wanted = DTYPES[s.precision.weights].compute_dtype
        if wanted in ("fp8", "int8", "fp4") and wanted not in self.g.spec.dense_tflops and used != wanted:
            return [f"no {wanted.upper()} tensor cores: {s.precision.weights} weights compute in {used}"]
        return []
