"""The advice for a catalog of GPUs (core/sizing/advise.py per GPU), searched together and
kept, so that every caller asking the same finds one answer: the window's "GPUs needed" line,
its Hardware tab, ``plan`` and ``compare_gpus``.

The fewest GPUs that hold the work come from one layout search over the catalog
(core/sizing/search.py), as set and, where whole units could be saved, with the heaviest
rungs of the technique ladder (core/sizing/savings.py); each GPU's count and layout are then
its own (core/sizing/advise.GpuAdvice).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from ..cancel import CancelToken
from ..memo import Memo, paused_collector
from ..model.specs import Scenario
from ..pipeline.runs_on import runs_on
from ..pipeline.work import builder_of
from ..serving.budget import sizing_budget
from .advise import GpuAdvice
from .ask import Ask, unit_of
from .engine_width import advise_widths
from .fill_serving import Choice
from .headroom import limits
from .layout_search import Evaluator, GpuTarget
from .layout_space import Layout
from .option import SizingOption
from .savings import Variant, ladder, offload_moot
from .search import EvaluatorFactory, search_catalog
from .units import Unit
from .work import Work, gpu_key, per_gpu, sharing


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


@dataclass(frozen=True)
class Ladder:
    """What the searches found: per GPU the fewest per rung kept for its count, per rung
    searched the fewest (None: none), the evaluators that found them, the searches' notes."""

    fewest: dict[str, dict[int, Layout]]
    searched: dict[str, dict[int, int | None]]
    evs: dict[tuple[str, int], Evaluator]
    notes: dict[str, str]


def _ladder_counts(
    variants: list[Variant],
    catalog: Sequence[GpuTarget],
    ask: Ask,
    factory: EvaluatorFactory,
    units: dict[str, Unit],
) -> Ladder:
    """Per GPU, the fewest that hold the work as set and, where whole units could be saved,
    with the heaviest rungs of the ladder (the count is the least of them; the layout at
    that count then takes the lightest rung that fits, core/sizing/fill.py); and per rung
    searched the fewest found (None: none within the limit)."""
    found0, evs0, notes = _searched(variants[0].scenario, catalog, ask, factory)
    fewest: dict[str, dict[int, Layout]] = {g.id: {} for g in catalog}
    searched: dict[str, dict[int, int | None]] = {g.id: {0: None} for g in catalog}
    evs = {(gid, 0): ev for gid, ev in evs0.items()}
    for gid, lay in found0.items():
        fewest[gid][0] = lay
        searched[gid][0] = lay.gpus

    def whole(gid: str, v: int) -> int:
        lay = fewest[gid].get(v)
        return units[gid].count(lay.gpus) if lay is not None else 2**62

    def search(v0: int, gpus0: list[GpuTarget]) -> None:
        # a work list, not a recursive call: a closure that calls itself is a reference cycle
        # that keeps this call's layouts for the cyclic collector (tests/core/test_sizing_reuse.py)
        pending = [(v0, gpus0)]
        while pending:
            v, gpus = pending.pop()
            for g in gpus:
                searched[g.id][v] = None
            gpus = [g for g in gpus if runs_on(variants[v].scenario.profile, g.spec)]  # its framework's
            moot = [g for g in gpus if offload_moot(variants, v, g.spec)]
            if moot:  # parameter offload on unified memory: the rung before it instead
                pending.append((v - 1, moot))
                gpus = [g for g in gpus if g not in moot]
            if gpus:
                search_rung(v, gpus)

    def search_rung(v: int, gpus: list[GpuTarget]) -> None:
        most = min(ask.max_gpus, variants[v].max_gpus)
        found, v_evs, v_notes = _searched(variants[v].scenario, gpus, Ask(ask.whole_nodes, most), factory)
        for g in gpus:
            searched[g.id][v] = found[g.id].gpus if g.id in found else None
            if "host RAM" in v_notes.get(g.id, ""):  # why the rung needs more: core/sizing/unit_host.py
                rung = variants[v].phrase
                notes[g.id] = "; ".join(n for n in (notes.get(g.id), f"{rung}: {v_notes[g.id]}") if n)
        for gid, lay in found.items():
            fewest[gid][v], evs[gid, v] = lay, v_evs[gid]

    last = len(variants) - 1
    # the fallback (Unsloth) cannot shard the model: one copy per GPU whatever the count, so
    # the rung before it, which can, is searched too
    heavy = [last, last - 1] if last > 1 and variants[last].falls_back else [last]
    todo = [g for g in catalog if whole(g.id, 0) > units[g.id].count(1)] if last else []
    for v in heavy if todo else ():
        search(v, todo)
    for g in todo:  # a heavy rung counts only where it saves whole units
        if min((whole(g.id, v) for v in fewest[g.id]), default=2**62) >= whole(g.id, 0):
            for v in [v for v in fewest[g.id] if v]:  # the heavy rungs (and one searched for a moot one)
                fewest[g.id].pop(v, None)
    return Ladder(fewest, searched, evs, notes)


Entry = list[tuple[SizingOption, Choice | None]]
# One search for every caller: the window's "GPUs needed" line, its Hardware tab, plan and
# compare_gpus ask for the same scenario and GPUs; each GPU's options are kept by what they
# depend on (the scenario, the GPU as sized, the ask), so the second asker finds them.
_ADVICE: Memo[Entry] = Memo(4096)


# The options with their limits (``plan``'s largest batch and context, core/sizing/headroom.py:
# ~200 estimates for Kimi K2, 0.06 s), kept by the same key: a second ``plan`` of the same
# scenario reuses them instead of probing again.
_LIMITED: Memo[Entry] = Memo(4096)


def _key(scenario_key: str, g: GpuTarget, ask: Ask) -> tuple[object, ...]:
    """What one GPU's options depend on (not ``limits``: computed after, core/sizing/headroom.py)."""
    return (
        scenario_key,
        repr(g),
        ask.whole_nodes,
        ask.max_gpus,
        ask.keep,
        ask.cards_per_box,
        ask.rent_by_gpu,
    )


def advise_catalog(s: Scenario, catalog: Sequence[GpuTarget], ask: Ask, token: CancelToken) -> list[Entry]:
    """Per GPU of ``catalog`` (in its order): its options, the answer first, each with its
    choice (None when nothing fits); with ``ask.limits``, each option's limits. A kind with an
    engine of its own (RL's rollout) is sized at each engine width (core/sizing/engine_width.py)."""
    if s.workload.info.engine_width:
        return advise_widths(s, catalog, ask, token, _advise_as_set)
    return _advise_as_set(s, catalog, ask, token)


def _advise_as_set(s: Scenario, catalog: Sequence[GpuTarget], ask: Ask, token: CancelToken) -> list[Entry]:
    """:func:`advise_catalog` at the engine width as ``s`` sets it."""
    token.check()
    scenario_key = s.model_dump_json()
    entries: dict[str, Entry] = {}
    for g in catalog:
        hit = _ADVICE.peek(_key(scenario_key, g, ask))
        if hit is not None:
            entries[g.id] = hit
    todo = [g for g in catalog if g.id not in entries]
    variants = ladder(s)
    with paused_collector(), sizing_budget():  # its ~200 simulated runs: core/serving/budget.py
        advised = _advise(s, variants, todo, ask, token) if todo else []
    for g, entry in zip(todo, advised, strict=True):
        entries[g.id] = _ADVICE.get(_key(scenario_key, g, ask), lambda e=entry: e)  # type: ignore[misc]
    if not ask.limits:
        return [entries[g.id] for g in catalog]
    return [
        _limited(entries[g.id], variants, g, token, ("limits", *_key(scenario_key, g, ask))) for g in catalog
    ]


def _limited(
    entry: Entry, variants: list[Variant], g: GpuTarget, token: CancelToken, key: tuple[object, ...]
) -> Entry:
    return _LIMITED.get(key, lambda: _with_limits(entry, variants, g, token))


def _runs_here(variants: list[Variant], g: GpuTarget) -> list[Variant]:
    """The ladder on ``g``: a rung whose framework does not run on it (the adapter fallback on a
    Mac), or that offloads the weights to a unified memory they already live in, is kept in
    place, its index shared, but on no count of GPUs."""
    here = [
        runs_on(v.scenario.profile, g.spec) and not offload_moot(variants, i, g.spec)
        for i, v in enumerate(variants)
    ]
    return [v if ok else replace(v, max_gpus=0) for v, ok in zip(variants, here, strict=True)]


def _with_limits(entry: Entry, variants: list[Variant], g: GpuTarget, token: CancelToken) -> Entry:
    out: Entry = []
    evs: dict[int, Evaluator] = {}
    for option, c in entry:
        if c is not None:
            if c.variant not in evs:
                evs[c.variant] = Evaluator(variants[c.variant].scenario, g.hardware, token)
            option = replace(option, limits=limits(evs[c.variant], c, g.capacity))
        out.append((option, c))
    return out


def _advise(
    s: Scenario, variants: list[Variant], catalog: Sequence[GpuTarget], ask: Ask, token: CancelToken
) -> list[Entry]:
    """The options of each GPU of ``catalog``, searched together."""
    # an engine sizes its memory to the GPU (serving; RL's colocated rollout engine holds its
    # share of each GPU): the probe GPU's evaluator would weigh another GPU's rungs by the
    # probe's share (an RL compare refused 256 GB Macs after a 12 GB card's share held nothing)
    own = builder_of(s.workload.info).memory_per_gpu
    work, works = Work(), dict[str, Work]()  # one budget per call, or per GPU where searched alone
    make = lambda sc, hw: Evaluator(sc, hw, token)  # noqa: E731
    factory = per_gpu(make, works) if own else sharing(make, work)
    units = {g.id: unit_of(g, ask, s) for g in catalog}
    found = _ladder_counts(variants, catalog, ask, factory, units)
    for g in catalog:  # any rung's search stopped early: the GPU's answer says so
        if (works.get(gpu_key(g.hardware), Work()) if own else work).over:
            had = found.notes.get(g.id, "")
            found.notes[g.id] = had if work.note() in had else "; ".join(n for n in (had, work.note()) if n)
    evs = found.evs
    probe = catalog[0].hardware.model_copy(
        update={"gpus_per_node": max(g.hardware.gpus_per_node for g in catalog)}
    )
    shared: dict[int, Evaluator] = {}

    def evaluator_for(g: GpuTarget) -> Callable[[int], Evaluator]:
        mine: dict[int, Evaluator] = {}

        def get(v: int) -> Evaluator:
            if v not in mine:
                if s.workload.serves:  # an engine sizes its memory to the GPU
                    mine[v] = factory(variants[v].scenario, g.hardware)
                elif (g.id, v) in evs:
                    mine[v] = evs[g.id, v]
                elif own:
                    mine[v] = factory(variants[v].scenario, g.hardware)
                else:
                    if v not in shared:
                        shared[v] = factory(variants[v].scenario, probe)
                    mine[v] = shared[v]
            return mine[v]

        return get

    out = []
    for g in catalog:
        token.check()
        note = [found.notes[g.id]] if g.id in found.notes else []
        adv = GpuAdvice(
            g,
            _runs_here(variants, g),
            found.fewest[g.id],
            evaluator_for(g),
            ask,
            token,
            note,
            found.searched[g.id],
        )
        out.append(adv.options())
    return out
