"""The width (tensor-parallel degree) of a kind's own inference engine, searched as the training
layouts are: RL post-training's rollout engine (``rl.rollout.tensor``, the kind's
``engine_width``, core/registry/workloads.py).

A colocated RL run puts a whole vLLM or SGLang engine of ``rl.rollout.tensor`` GPUs beside the
training states at its memory fraction of each GPU (0.5 by default, verl's
``gpu_memory_utilization``). At the default width of 1 a 70B policy's 16-bit weights (141 GB)
need more than half of any GPU below 288 GB, so no count of H100s, H200s or B200s holds it;
NeMo RL's 70B GRPO recipe runs it on H100s at vLLM TP 4 (``grpo_math_70B_megatron.yaml`` at
v0.3.0: 64 H100, TP 4 PP 4, vLLM TP 4; docs/evidence/rl.md section 2d). The widths tried are
the width as set and the powers of two up to the node's GPUs (verl's
``tensor_model_parallel_size`` must divide the GPUs the roles share, core/pipeline/rl_check.py,
which the estimate checks at every count the layout search weighs); an engine wider than a node
(NeMo RL's vLLM TP 32 for its largest models) is the user's to set.

Per GPU the answer is the width whose option fits on the fewest GPUs, then the fastest step
(``rl_time_per_step_seconds``); the width as set wins a tie. A width whose engine cannot start on
the GPU (one estimate) is not searched, except the widest, whose refusal is the reason when none
starts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..cancel import CancelToken
from ..model.field_path import get_path
from ..model.specs import Scenario
from .engine_scenario import with_width
from .fill_serving import Choice
from .layout_search import GpuTarget
from .option import SizingOption
from .rl_unmet import rl_engine_reason

Entry = list[tuple[SizingOption, Choice | None]]
Advise = Callable[[Scenario, Sequence[GpuTarget], Any, CancelToken], list[Entry]]


def width_of(s: Scenario) -> int | None:
    """The width of the kind's own engine as ``s`` sets it (None: the kind has none)."""
    path = s.workload.info.engine_width
    return int(get_path(s, path)) if path else None


def width_words(s: Scenario, width: int) -> str:
    """``1 as set`` where the scenario states the engine's width, ``1 by default`` where it
    leaves it out: a PPO case that never named ``rl.rollout.tensor`` read "(rl.rollout.tensor,
    1 as set)" beside the width the advice chose."""
    parent, _, leaf = s.workload.info.engine_width.rpartition(".")
    stated = leaf in getattr(get_path(s, parent), "model_fields_set", {leaf})
    return f"{width} as set" if stated else f"{width} by default"


def widths(s: Scenario, node: int) -> list[int]:
    """The widths tried on a node of ``node`` GPUs: the width as set first, then the powers of
    two up to the node."""
    mine = width_of(s) or 1
    powers = [2**i for i in range(int(math.log2(max(1, node))) + 1)]
    return [mine, *(w for w in powers if w != mine)]


def _rank(entry: Entry) -> tuple[bool, bool, int, float]:
    """Fits first, then the targets met, the fewest GPUs and the fastest step."""
    o = entry[0][0]
    step = o.rl_time_per_step_seconds
    return (not o.fits, o.targets_met is False, o.gpus or 2**62, step if step is not None else math.inf)


def advise_widths(
    s: Scenario, catalog: Sequence[GpuTarget], ask: Any, token: CancelToken, advise: Advise
) -> list[Entry]:
    """Per GPU of ``catalog``: its options at the engine width that fits on the fewest GPUs, then
    steps fastest (``advise`` sizes one scenario; nothing fits at any width: the widest's reason)."""
    tried: dict[str, list[tuple[int, Entry]]] = {g.id: [] for g in catalog}
    mine = width_of(s) or 1
    for w in sorted({w for g in catalog for w in widths(s, g.hardware.gpus_per_node)}):
        token.check()
        sw = with_width(s, w)
        if sw is None:
            continue
        here = [g for g in catalog if _weighed(s, sw, g, w, mine)]
        for g, entry in zip(here, advise(sw, here, ask, token) if here else [], strict=True):
            tried[g.id].append((w, entry))
    out = []
    for g in catalog:
        if not tried[g.id]:  # no width but the one as set could run: its own answer
            tried[g.id] = [(mine, advise(s, [g], ask, token)[0])]
        runs = sorted(tried[g.id], key=lambda we: (we[0] != mine, we[0]))  # the width as set first
        fitting = [we for we in runs if we[1][0][0].fits]
        w, entry = min(fitting, key=lambda we: _rank(we[1])) if fitting else max(runs, key=lambda we: we[0])
        said = width_words(s, mine)
        out.append(_stated(entry, w, mine, g.hardware.gpus_per_node, _fewest(fitting), fitting, said))
    return out


def _fewest(fitting: list[tuple[int, Entry]]) -> tuple[int, int] | None:
    """(width, GPUs) of the width that holds the work on the fewest GPUs before whole units:
    the widths tie on the units bought (an 8-GPU platform holds any of them), and the fastest
    step then wins, so the option's own need can be a wider engine's."""
    needs = [(o.min_gpus, w) for w, e in fitting if (o := e[0][0]).min_gpus is not None]
    return (min(needs)[1], min(needs)[0]) if needs else None


def _weighed(s: Scenario, sw: Scenario, g: GpuTarget, width: int, mine: int) -> bool:
    """Whether width ``width`` is searched on ``g``: one of its node's widths, and the width as
    set, the node's (the widest: its refusal is the reason when none starts) or one at which the
    engine starts (one estimate: a search at a width whose engine cannot start weighs every
    count for nothing; the engine's memory is its width's, whatever the count)."""
    node = g.hardware.gpus_per_node
    if width not in widths(s, node):
        return False
    return width in (mine, node) or rl_engine_reason(sw, g) is None


def _stated(
    entry: Entry,
    width: int,
    mine: int,
    node: int,
    fewest: tuple[int, int] | None = None,
    fitting: Sequence[tuple[int, Entry]] = (),
    said: str = "",
) -> Entry:
    """The options of ``entry`` with the engine width they run at, and where it is not the width
    as set, the change in ``scenario_changes`` and a note; ``fewest``: (width, GPUs) of the width
    that holds the work on the fewest GPUs, said where that is fewer than the option needs (GRPO
    of Qwen3 8B on an MI325X platform: rollout TP 8 steps fastest on the 8 GPUs bought and needs
    8; at TP 1 one GPU holds it, the GPU a renter would take); ``fitting``: (width, entry) of each
    width that holds the work, whose fewest need becomes the option's (:func:`_narrower_need`);
    ``said``: the width as set in words (:func:`width_words`)."""
    out: Entry = []
    for option, c in entry:
        if not option.fits:
            out.append((option, c))
            continue
        fields: dict[str, Any] = {"rl_rollout_tensor": width}
        if width != mine and c is not None:
            field = c.scenario.workload.info.engine_width
            fields["scenario_changes"] = {**option.scenario_changes, field: width}
            fields["notes"] = (
                *option.notes,
                f"rollout engine at TP {width} ({field}, {said or f'{mine} as set'}): of the widths up "
                f"to the node's {node}, {_why_width(option, fewest)}{_against(option, fitting, mine)}",
            )
            fields |= _narrower_need(option, fitting)
        out.append((replace(option, **fields), c))
    return out


def _narrower_need(option: SizingOption, fitting: Sequence[tuple[int, Entry]]) -> dict[str, Any]:
    """The option's need (``needed_gpus``, ``needed_layout``, ``spare_gpus``) and the count clause
    of its reason taken from the width whose need is fewest, where that is fewer than the option's
    own width needs on the same GPUs bought. The width that steps fastest on a whole unit can be a
    wider engine than the one a renter of the need runs: GRPO of Qwen3 8B on an MI325X platform at
    rollout TP 8 needs all 8 GPUs, at TP 1 one GPU holds it (an estimate at TP 1 x DP 1: 46 GiB
    spare), so the row read "Need 8" and "the fewest that hold it" beside a note saying one does."""
    needs = [(o.needed_gpus, w, o) for w, e in fitting if (o := e[0][0]).needed_gpus is not None]
    if not needs or option.needed_gpus is None or option.gpus is None:
        return {}
    n, w, other = min(needs, key=lambda t: (t[0], t[1]))
    if n >= option.needed_gpus or other.gpus != option.gpus or other.needed_layout is None:
        return {}
    out: dict[str, Any] = {
        "needed_gpus": n,
        "needed_layout": f"{other.needed_layout}, rollout TP {w}",
        "spare_gpus": option.gpus - n,
    }
    head, sep, rest = (option.layout_reason or "").partition("; ")
    theirs = (other.layout_reason or "").partition("; ")[0]
    # only a count set by memory is re-said (a deadline's or targets' clause is the width's own)
    if theirs.endswith("would hold it)") and (head == "the fewest that hold it" or "would hold it)" in head):
        out["layout_reason"] = f"{theirs[:-1]} at rollout TP {w}){sep}{rest}"
    return out


def _against(option: SizingOption, fitting: Sequence[tuple[int, Entry]], mine: int) -> str:
    """``: 23.0 s a step, against 31.0 s at TP 1`` where the width as set also holds the work on
    the GPUs this option buys, so the change buys speed alone: PPO of Qwen2.5 7B split over 8
    rollout GPUs read "rollout engine at TP 2 (..., 1 by default): ... the one that fits on the
    fewest GPUs, then steps fastest" on an MI325X, where TP 1 holds it on the same 8 GPUs; a
    buyer read the width as memory's need. The figures are the two options' own
    ``rl_time_per_step_seconds``; nothing is re-estimated."""
    step = option.rl_time_per_step_seconds
    theirs = next((e[0][0] for w, e in fitting if w == mine), None)
    other = theirs.rl_time_per_step_seconds if theirs is not None and theirs.gpus == option.gpus else None
    if step is None or other is None:
        return ""
    return f": {step:,.1f} s a step, against {other:,.1f} s at TP {mine}"


def _why_width(option: SizingOption, fewest: tuple[int, int] | None) -> str:
    """Why this width: the fewest GPUs, then the fastest step; where a narrower engine needs
    fewer GPUs before whole units, that the units bought tie and what the narrower one needs."""
    if fewest is None or option.min_gpus is None or option.gpus is None or fewest[1] >= option.min_gpus:
        return "the one that fits on the fewest GPUs, then steps fastest"
    w, n = fewest
    return (
        f"the one that steps fastest on the {option.gpus:,} GPUs bought; at TP {w}, {n:,} "
        f"GPU{'s hold' if n != 1 else ' holds'} it, where this width needs {option.min_gpus:,}"
    )
