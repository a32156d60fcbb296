"""A stated tensor or pipeline width the advice replaced: the field and the note that say so.

The layout search weighs every TP x PP x DP shape on each GPU (EP over the replicas where the
model has experts, attention-DP engines where the engine runs them), whatever
``parallelism.tensor`` and ``parallelism.pipeline`` the file states, and keeps the one that
holds the work (serving: meets the targets) on the fewest GPUs, then the fastest
(core/sizing/fill.py, core/sizing/fill_serving.py). A file states TP 8 because a recipe says
``--tensor-parallel-size 8`` (vLLM's recipe for Qwen3 235B-A22B FP8, docs.vllm.ai/projects/
recipes/en/latest/Qwen/Qwen3-235B-A22B.html; SGLang's ``--tp 8`` for DeepSeek-V3); a row on
TP 4 x DP 2 then read as the recipe's deployment, with nothing to say it is not.

Each such row now says which width it runs, not the file's, and why: serving, what the file's
TP runs on the same GPUs as the fill weighs it (its tokens/s over the replicas and per user, the
order the fill ranks by), or that it is not weighed there (wider than a node, not dividing the
attention heads, more GPUs than the row has); training, the search's rule. A row at the stated
width, or a file that states neither, is unchanged; the ``stated_layout`` field is in the JSON
only where the file states one.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..pipeline.validate import check_scenario
from .fill import Filler
from .fill_serving import Choice
from .layout_space import Layout

GIB = 2**30
# the Layout's widths (core/sizing/layout_order.py) and the parallelism fields that state them
_FIELDS = {"tp": "tensor", "pp": "pipeline", "cp": "context", "ep": "expert", "zero": "zero_stage"}

SERVING_RULE = (
    "of the TP x PP x DP layouts (EP over the replicas for a model with experts), the search "
    "keeps the one that meets the targets on the fewest GPUs, then serves the most tokens/s"
)
TRAINING_RULE = (
    "of the TP x PP x DP layouts, the search keeps the one that holds the work (or meets the "
    "deadline) on the fewest GPUs, then trains fastest"
)


def stated_layout(asked: Scenario, c: Choice, filler: Filler) -> dict[str, Any] | None:
    """``{"tensor", "pipeline", "kept", "stated", "used", "rule", "why"}`` where ``asked``
    states ``parallelism.tensor`` or ``pipeline`` (the one not stated: None), for option
    ``c`` of ``filler``'s GPU; ``kept``: the option runs the stated widths (then no words).
    A stated ``parallelism.context`` is a width too (then a ``context`` key): a 128k fine-tune
    stating CP 8, as Megatron-LM's ``--context-parallel-size 8``, read rows on CP 2, CP 4 or
    none with no word that the file's CP was not run (docs/evidence/rl.md, round 59)."""
    said = asked.parallelism.model_fields_set & {"tensor", "pipeline", "context"}
    if not said:
        return None
    want, got = asked.parallelism, c.scenario.parallelism
    tp = want.tensor if "tensor" in said else None
    pp = want.pipeline if "pipeline" in said else None
    cp = want.context if "context" in said else None
    kept = (tp is None or tp == got.tensor) and (pp is None or pp == got.pipeline)
    kept = kept and (cp is None or cp == got.context)
    out: dict[str, Any] = {"tensor": tp, "pipeline": pp, "kept": kept}
    # the key only where the file states CP: the JSON of a file stating TP or PP is as before
    out |= {"context": cp} if cp is not None else {}
    if kept:
        return out | {"stated": None, "used": None, "rule": None, "why": None}
    serves = not asked.workload.trains
    return out | {
        "stated": _widths(tp, pp, cp),
        "used": _widths(
            got.tensor if tp is not None else None,
            got.pipeline if pp is not None else None,
            got.context if cp is not None else None,
        ),
        "rule": _rule(serves, cp is not None),
        "why": _serving_why(tp, c, filler) if serves else _training_why(asked, c, filler),
    }


def stated_notes(stated: dict[str, Any] | None) -> list[str]:
    """``["TP 4, not the file's TP 8: <rule>; <why>"]`` of a replaced width (else nothing)."""
    if stated is None or stated["kept"]:
        return []
    why = f"; {stated['why']}" if stated["why"] else ""
    return [f"{stated['used']}, not the file's {stated['stated']}: {stated['rule']}{why}"]


def split_words(fields: dict[str, Any]) -> dict[str, Any]:
    """An option's ``fields`` where its P/D split is the answer (core/sizing/pd_choice.py
    ``pd_fields``): the replaced width's ``why`` was weighed on the aggregated layout's count,
    which the row no longer shows ("on these 64 GPUs" beside a 24-GPU split), so it says which
    answer it speaks of; the split's decode replicas keep the aggregated layout's widths."""
    st, pd = fields.get("stated_layout"), fields.get("pd") or {}
    if not st or st["kept"] or not st["why"] or pd.get("pd_chosen") in (None, "aggregated"):
        return fields
    old = stated_notes(st)
    why = f"the split's decode replicas run {st['used']}; the aggregated answer (Other answer): {st['why']}"
    new = st | {"why": why}
    notes = tuple(n for n in fields["notes"] if n not in old) + tuple(stated_notes(new))
    return fields | {"stated_layout": new, "notes": notes}


def _rule(serves: bool, cp: bool) -> str:
    """The search's rule in words; where the file states CP, the layouts weighed say CP too
    (the search weighs CP x DP splits of the count, core/sizing/layout_space.py)."""
    rule = SERVING_RULE if serves else TRAINING_RULE
    return rule.replace("TP x PP x DP", "TP x PP x CP x DP") if cp else rule


def _widths(tp: int | None, pp: int | None, cp: int | None = None) -> str:
    words = (f"TP {tp}" if tp else "", f"PP {pp}" if pp else "", f"CP {cp}" if cp else "")
    return " x ".join(w for w in words if w)


def _serving_why(tp: int | None, c: Choice, filler: Filler) -> str | None:
    """What TP ``tp`` runs on the option's GPUs as the fill weighs it, beside the option (a
    stated PP alone: None, the rule says it)."""
    n, node, heads = c.layout.gpus, filler.g.hardware.gpus_per_node, filler.arch.heads
    if tp is None:
        return None
    if tp > n:
        return f"TP {tp} needs more than these {n:,} GPUs"
    alt = filler.at_width(tp, n)
    if alt is None and tp > node and not filler.base.hardware.allow_cross_node_tensor_parallel:
        return f"TP {tp} is wider than a {node}-GPU node, over which TP is not run"
    if alt is None and filler.base.profile.tp_splits_heads and heads % tp:
        return f"TP {tp} does not divide the model's {heads} attention heads"
    if alt is None:
        return f"TP {tp} does not hold the work on these {n:,} GPUs"
    lay = alt.layout
    shape = f"TP {lay.tp} x PP {lay.pp} x DP {lay.dp}" + (f", EP {lay.ep}" if lay.ep > 1 else "")
    return (
        f"on these {n:,} GPUs {shape} "
        + ("meets the targets at " if alt.met else "misses the targets: ")
        + f"{_speed(alt)}, against {_speed(c)}"
    )


def _training_why(asked: Scenario, c: Choice, filler: Filler) -> str:
    """The file's layout on the option's GPUs: its TP, PP, CP and EP, its ZeRO stage where it
    states one (recompute and the techniques turned on: the option's), at the data parallelism
    the count leaves: whether it is valid, fits, and how fast it trains, beside the option."""
    lay, n, want = c.layout, c.layout.gpus, asked.parallelism
    said = want.model_fields_set
    # the file's widths as it has them (unstated ones at their defaults: CP 1, EP 1); its stage
    # only where stated
    stated = {k: getattr(want, f) for k, f in _FIELDS.items() if f != "zero_stage" or f in said}
    alt = replace(lay, **stated)
    shape = f"TP {alt.tp} x PP {alt.pp}" + (f" x CP {alt.cp}" if alt.cp > 1 else "")
    node = filler.g.hardware.gpus_per_node
    if alt.tp > node and not filler.base.hardware.allow_cross_node_tensor_parallel:
        return f"TP {alt.tp} is wider than a {node}-GPU node, over which TP is not run"
    if n % alt.model_parallel:
        return f"{shape} does not divide these {n:,} GPUs"
    alt = replace(alt, dp=n // alt.model_parallel)
    try:  # a shape the checks refuse (a global batch DP does not divide, stages past the layers)
        check_scenario(filler.scenario(c.variant, alt, None))
    except ScenarioError as e:
        return f"{shape} x DP {alt.dp} on these {n:,} GPUs is not a valid layout: {e}"
    return _fitted(alt, shape, "zero_stage" in said, c, filler)


def _fitted(alt: Layout, shape: str, stage_stated: bool, c: Choice, filler: Filler) -> str:
    """Whether the file's layout ``alt`` (``shape`` in words) fits the option's GPUs and how fast
    it trains there; a ZeRO stage the file does not state is the option's, else the first above
    it that holds the work, at the option's recompute, then at full recompute (the last tried
    where none does)."""
    n = alt.gpus
    stages = [alt.zero] if stage_stated else list(range(alt.zero, 4))
    # then full recompute (gradient checkpointing, a rung of core/sizing/savings.py's ladder)
    # where the option's own recompute does not hold it
    tried = [
        replace(alt, zero=z, recompute=r) for r in dict.fromkeys((alt.recompute, "full")) for z in stages
    ]
    alt = next((s for s in tried if filler.fits(c.variant, s)), tried[-1])
    shape += f" x DP {alt.dp}" + (f", EP {alt.ep}" if alt.ep > 1 else "") + f" (ZeRO {alt.zero})"
    shape += f", recompute {alt.recompute}" if alt.recompute != "none" else ", no recompute"
    if not filler.fits(c.variant, alt):
        need, cap = filler.evaluator(c.variant).total(alt), filler.g.capacity
        over = f": {need / GIB:,.1f} GiB a GPU, {cap / GIB:,.1f} usable" if need < math.inf else ""
        return f"{shape} does not fit on these {n:,} GPUs{over}"
    pace = filler.clock(c.variant).pace(alt)
    mine, theirs = c.pace.tokens_per_second or 0.0, pace.tokens_per_second or 0.0
    # the search turns a technique on only where nothing fits the count without it (core/sizing/
    # fill.py): a file's layout that needs one is not weighed beside the option, faster or not
    extra = (
        ""
        if alt.recompute == c.layout.recompute
        else ("; the search turns recompute on only where no layout holds the count without it")
    )
    return f"on these {n:,} GPUs {shape} trains {theirs:,.0f} tokens/s, against {mine:,.0f}{extra}"


def _speed(c: Choice) -> str:
    total, user = c.pace.tokens_per_second or 0.0, c.pace.tokens_per_second_per_user or 0.0
    return f"{total:,.0f} tokens/s ({user:,.1f} per user)"
