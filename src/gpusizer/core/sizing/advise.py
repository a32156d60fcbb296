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

The option's fields that the layout does not decide are in core/sizing/advise_fields.py, its
need and targets met in core/sizing/advise_need.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..cancel import CancelToken
from ..model.architecture import ceil_div
from ..model.result import Estimate
from ..pipeline.estimate import estimate
from ..serving.service_level import ServiceLevel
from .advise_fields import compute_notes, gpu_fields, missing_option, unit_fields
from .advise_need import goodput, judged, needed
from .ask import Ask, unit_of
from .batch_lever import batch_lever
from .compare_scale import Growth, grow
from .ddp_unmet import ddp_clause
from .disagg_pools import asked_pools, pool_changes, pools_note
from .disagg_split import propose_split
from .fill import Filler
from .fill_serving import Choice
from .fraction_lever import fraction_lever
from .idle_words import idle_note
from .layer_split import splits_layers
from .layout_search import Evaluator, GpuTarget
from .layout_space import Layout
from .level_count import with_level
from .lighter_run import lighter_run_note
from .links import links_for
from .need_lever import need_lever
from .offload_note import offload_step_note, parameter_offload_note
from .option import SizingOption, layout_label
from .pd_choice import pd_fields
from .practical import cap_words, practical_cap
from .preference_unmet import precomputed_clause
from .reason import layout_reason
from .rl_notes import rl_fields, split_notes
from .rl_unmet import rl_engine_reason
from .savings import Variant
from .served import idle_slots, load_users, queue_clause
from .spare_words import spare_words
from .stated import SEARCH_COVERS, own_gpu, stated_fits
from .stated_layout import split_words, stated_layout, stated_notes
from .stated_stage import replaced_stage_note
from .stated_widths import width_notes
from .units import layer_box
from .unmet import capped_speed_clause, context_reason, fill_refusal, practical_reason, unreachable_reason


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
            return [(self._lever(self._missing(*self._no_fit())), None)]
        least = min(lay.gpus for lay in self.fewest.values())
        most = self._most()
        if least > most:  # memory alone needs more consumer cards than the practical cap
            why = f"{least:,} GPUs would hold it, but {cap_words(most, self.g.spec)}"
            return [(self._missing("practical_limit", why), None)]
        growth = grow(self.s, self.filler, self.unit, least, most, self.ask.keep)
        if not growth.choices:  # one replica holds it: the users need more than the cap
            if growth.met is None:  # no target: the fill refused the count, the cap never applied
                why = practical_reason(self.s, least, 0, growth.count, self._refusal())
                return [(self._missing("practical_limit", why), None)]
            slow = self._unreachable(growth, least)
            if slow is not None:
                return [(self._missing("targets", slow), None)]
            why = practical_reason(self.s, least, growth.unit.top(most)) + self._capped_speed(growth)
            cap = practical_cap(self.g.spec)
            tail = f"; {cap_words(cap, self.g.spec)}" if cap else ""
            return [(self._missing("practical_limit", why + tail), None)]
        out = [(self._batched(self._option(c, growth, i), c), c) for i, c in enumerate(growth.choices)]
        top = growth.unit.top(most)  # the answer's count that meets the default level too
        return [(with_level(out[0][0], self.s, self.filler, growth.unit, top), out[0][1]), *out[1:]]

    def _lever(self, option: SizingOption) -> SizingOption:
        """A memory no-fit with the memory fraction that would fit (core/sizing/fraction_lever.py)."""
        lever = fraction_lever(self.s, self.g, self.ask.max_gpus) if option.unmet == "memory" else None
        return option if lever is None else replace(option, fraction_lever=lever)

    def _batched(self, option: SizingOption, c: Choice) -> SizingOption:
        """A serving option that misses its targets because a replica queues its users, with
        the engine setting that runs them at once (core/sizing/batch_lever.py), on the fewest
        GPUs that hold the work where it meets them there, else on the option's layout; an
        option that meets them, with the setting that meets them on fewer GPUs than its need
        (core/sizing/need_lever.py)."""
        if option.unmet is None and not self.s.workload.trains and c.batch is not None:
            lever = need_lever(self.s, self.filler, self.fewest, option.needed_gpus)
            return option if lever is None else replace(option, need_lever=lever)
        if option.unmet not in ("targets", "practical_limit") or self.s.workload.trains or c.batch is None:
            return option
        v, lay = min(self.fewest.items(), key=lambda item: item[1].gpus)
        tries = [(c.scenario, c.layout, c.batch)]
        if lay.gpus < c.layout.gpus:  # the users spread over the fewest GPUs' replicas
            each = ceil_div(load_users(self.s), lay.dp)
            tries.insert(0, (self.filler.scenario(v, lay, each), lay, each))
        for s, at, batch in tries:
            lever = batch_lever(self.s, s, at, batch)
            if lever is not None:
                return replace(option, batch_lever=lever)
        return option

    def _unreachable(self, growth: Growth, least: int) -> str | None:
        """The sentence when the serving search stopped before its cap because doubling the
        GPUs made no user faster (core/sizing/compare_scale.py): the speed, not the count, is
        out of reach (None: it ran to the cap, or nothing was weighed there)."""
        if growth.met is not False or growth.at_top or not growth.tried or self.s.workload.trains:
            return None
        best = self.filler.best(growth.tried)
        return unreachable_reason(self.s, least, best[0].layout.gpus, best[0].pace) if best else None

    def _capped_speed(self, growth: Growth) -> str:
        """The per-user speed the fastest layout at the practical cap still misses ("" where the
        targets have no speed or the search weighed nothing)."""
        if growth.met is not False or not growth.tried or self.s.workload.trains:
            return ""
        best = self.filler.best(growth.tried)
        return capped_speed_clause(self.s, best[0].layout.gpus, best[0].pace) if best else ""

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
        and workstation cards (core/sizing/practical.py)."""
        cap = practical_cap(self.g.spec)
        return self.ask.max_gpus if cap is None else min(cap, self.ask.max_gpus)

    def _caps(self) -> tuple[int, int]:
        """(the most GPUs an option may have, the ``max_gpus`` asked)."""
        return self._most(), self.ask.max_gpus

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
        own = self.s if self.g.id == own_gpu(self.s) else None  # the stated layout is on its own GPU
        stated = None if own is None else stated_fits(own, self.g.capacity)
        subject = "nothing" if stated is None else f"no layout the search tries ({SEARCH_COVERS})"
        ddp = ddp_clause(self.s)
        if ddp is not None and stated is None:  # DDP: a count never helps (core/sizing/ddp_unmet.py)
            return "memory", f"nothing fits on one GPU with {spare_words(self.s, self.g)}; {ddp}"
        why = f"{subject} fits with up to {self.ask.max_gpus:,} GPUs and {spare_words(self.s, self.g)}"
        clause = precomputed_clause(self.s)
        why = why if clause is None else f"{why}; {clause}"
        return "memory", why if stated is None else f"{why}; {stated}"

    def _option(self, c: Choice, growth: Growth, index: int) -> SizingOption:
        est = estimate(c.scenario)
        lay, s = c.layout, c.scenario
        bought = growth.unit.count(lay.gpus)
        node = self.g.hardware.gpus_per_node
        par = s.parallelism.model_dump(mode="json")
        changes = dict(self.variants[c.variant].changes) | pool_changes(self.s, s)
        stated = stated_layout(self.s, c, self.filler)  # a stated TP/PP not kept says so
        notes = self._notes(c, growth, est, bought, changes) + stated_notes(stated)
        need = needed(self.s, self.fewest, self.filler, c, growth, bought)
        split = propose_split(s, self._most())
        notes += width_notes(self.s, s, split)  # a stated EP, attention DP or prefill TP not kept
        if split is not None:
            notes.append(split.note(bought, need["needed_gpus"], growth.unit.count(split.gpus)))
        fields = gpu_fields(self.g) | {
            "split": split,
            "fits": True,
            "gpus": bought,
            "gpus_in_layout": lay.gpus,
            "min_gpus": growth.least,
            "nodes": ceil_div(bought, node),
            "layout": layout_label(par, s.workload.trains),
            "layout_reason": layout_reason(self, c, growth, index, est),
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
            "unit": self._unit(bought),
            "stated_layout": stated,
            **judged(self.s, self.filler, self._caps(), c, growth, est.rl, queue_clause(est)),
            **need,
            **goodput(self.s, c),
            **rl_fields(est.rl),
        }
        # serving.disaggregated: the split ranked where it is the cheaper (core/sizing/pd_choice.py)
        split_bought = growth.unit.count(split.gpus) if split is not None else 0
        tie = ServiceLevel.of(self.s.targets).empty  # the split was sized on the default level
        out = pd_fields(fields, split, split_bought, node, self._unit, asked_pools(self.s), tie)
        return SizingOption(**split_words(out))  # a replaced width's words of the split chosen

    def _notes(
        self, c: Choice, growth: Growth, est: Estimate, bought: int, changes: dict[str, Any]
    ) -> list[str]:
        """The option's notes before its split's: the search's and the count's, the compute
        dtype, the serving simulation's budget, the RL split's, GPUs left idle, the pools grown
        (``changes``: the scenario's changes) and the techniques turned on."""
        lay, s = c.layout, c.scenario
        notes = [*self.notes, *growth.notes, *compute_notes(self.g, s, est.compute.compute_dtype)]
        if est.serving is not None and est.serving.simulation_note:  # core/serving/budget.py
            notes.append(f"serving speed: {est.serving.simulation_note}")
        notes += split_notes(est.rl)
        notes += idle_slots(self.s, c.layout, c.batch, est)
        notes += offload_step_note(est) + parameter_offload_note(est)
        if bought > lay.gpus:
            units = f"{growth.unit.units(bought)} x {growth.unit.name(bought)}"
            notes.append(idle_note(self.s, lay, bought, units))
        variant = self.variants[c.variant]
        notes += pools_note(changes, self.s)
        notes += replaced_stage_note(self.s, s)  # a stated ZeRO stage not kept says so
        if variant.names:
            notes.append(
                f"turned on {variant.phrase[5:]} (scenario_changes): without, {lay.gpus:,} "
                + ("GPUs do not" if lay.gpus > 1 else "GPU does not")
                + " hold it"
            )
            notes += lighter_run_note(self.filler, self.variants, c, growth.unit, self._most())
        return notes

    def _missing(self, unmet: str, why: str) -> SizingOption:
        """No option to offer (core/sizing/advise_fields.py ``missing_option``)."""
        return missing_option(self.g, self.s, self.notes, self._unit(None), unmet, why)

    def _unit(self, gpus: int | None) -> dict[str, Any]:
        """The unit bought's fields for ``gpus`` (core/sizing/advise_fields.py ``unit_fields``)."""
        box = (
            self.ask.cards_per_box
            if gpus is None
            else layer_box(self.g.spec, self.ask.cards_per_box, gpus, splits_layers(self.s))
        )
        return unit_fields(self.g, box, self.ask.whole_nodes, gpus)
