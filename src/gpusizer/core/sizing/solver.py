"""Sizing advisor: how many of which GPU, laid out how (``gpusizer.plan``, ``gpusizer-cli plan``).

``plan`` is ``compare_gpus`` for the GPU types asked (the same advice, core/sizing/advise.py:
the same count, layout, speed and cost for the same scenario, GPU and margin), listing the
GPUs on which something fits, cheapest first, with what only ``plan`` adds: the largest
batch and context (serving) or micro-batch (training) that still keep the margin, the total
cloud price per hour, and on request runners-up (other layouts of the same count).

The layout search itself (and why it is fast) is core/sizing/layout_search.py; the layouts
it tries are all the validator accepts: TP over the divisors of attention_heads up to the
node (``hardware.gpus_per_node`` if set, else the GPU's; beyond it only with
``allow_cross_node_tensor_parallel``), PP over the stage sizes up to 128 stages, CP over the
divisors of sequence_length/2 up to 64 with at least 4,096 tokens per rank, EP over the
divisors of experts, ZeRO 0-3, DP from the count. ``workload.global_batch_size`` is kept (DP
must divide global/micro; the rest is gradient accumulation).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..cancel import Cancelled as PlanCancelled  # the old name of core/cancel.Cancelled
from ..cancel import CancelToken
from ..model.presets import gpu_presets
from ..pipeline.scenario import parse_scenario
from .ask import Ask
from .budget import budget_line
from .compare import sized
from .compare_options import DEFAULT_MARGIN, check_cards_per_box, check_search
from .compare_rank import Money, price_options, sort_options
from .layout_search import MAX_GPUS, GiB
from .miss_rank import Goals
from .option import SizingOption
from .search import catalog_specs

__all__ = ["PlanCancelled", "plan", "plan_text"]


def _plan_fields(o: SizingOption, rank: int, priced: dict[str, Any], loss: str | None) -> dict[str, Any]:
    """The comparison's option (priced) with ``plan``'s own fields (``loss``: the training
    scenario's loss, None when serving)."""
    price = priced["price_per_hour"]
    out = priced | (o.limits or {})
    out["rank"] = rank
    # every GPU of the run: a split RL run's rollout pool comes on top of the training pool's
    # ``gpus`` (rl_total_gpus), as compare prices it; plan read $14.08/h where compare read $17.60
    out["total_price_per_hour"] = None if price is None else price * (o.rl_total_gpus or o.gpus or 0)
    if loss is not None:
        out["workload"] = {"loss": o.scenario_changes.get("workload.loss", loss)}
    return out


def plan(
    scenario: dict[str, Any] | Any,
    *,
    max_gpus: int = MAX_GPUS,
    alternatives: int = 0,
    allow_recompute: bool = False,
    gpus: Sequence[str] | None = None,
    margin: float | str = DEFAULT_MARGIN,
    cancel: CancelToken | Callable[[], bool] | None = None,
    whole_nodes: bool = False,
    cards_per_box: int | None = None,
) -> list[dict[str, Any]]:
    """Sizing options, cheapest first (compare_gpus' default order: cost per million
    tokens), one per GPU on which the work fits with ``margin`` of usable memory spare
    (default 10%, as ``compare_gpus`` and the window), plus up to ``alternatives`` runners-up
    per GPU (``rank`` 2, 3...: other layouts of the same count). Each option has every field
    of a ``compare_gpus`` option and ``max_batch_size`` and ``max_context_tokens`` (serving)
    or ``max_micro_batch_size`` (training), ``total_price_per_hour`` (USD or None) and, for
    training, ``workload`` (``{"loss": ...}`` when the advice chose the loss). ``gpus``
    restricts the catalog; ``allow_recompute`` is kept for old callers (the advice always
    weighs the techniques that save hardware, core/sizing/savings.py). Raises ScenarioError
    for bad input, and PlanCancelled once ``cancel()`` returns True."""
    del allow_recompute
    s = parse_scenario(scenario)
    whole_nodes, max_gpus, alternatives = check_search(whole_nodes, max_gpus, alternatives)
    ask = Ask(whole_nodes, max_gpus, 1 + alternatives, True, check_cards_per_box(cards_per_box))
    per_gpu = [opts for opts in sized(s, gpus, margin, ask, cancel) if opts[0].fits]
    specs, training = catalog_specs(s.hardware), s.workload.trains
    rows = [[o.as_dict() for o in opts] for opts in per_gpu]
    priced = [price_options(r, specs, training, Money(), s.targets.max_purchase_usd) for r in rows]
    order = sort_options([p[0] | {"_at": i} for i, p in enumerate(priced)], "cost", Goals.of(s))
    out = []
    for first in order:
        i = first["_at"]
        loss = s.workload.loss if training else None
        pairs = zip(per_gpu[i], priced[i], strict=True)
        out += [_plan_fields(o, k, p, loss) for k, (o, p) in enumerate(pairs, 1)]
    return out


def _peak_band(o: dict[str, Any]) -> str:
    """Where 80 % of replayed published runs like this one peaked (core/sizing/option_band.py)."""
    rng = o.get("per_gpu_total_range")
    return f"{rng[0] / GiB:.1f}-{rng[1] / GiB:.1f} GiB" if rng else "no band"


# A column the caller adds (header, cell text of an option): io's column registry words them
# (io/compare_columns.py ``plan_columns``: RL's step and run with their bands), which the core
# cannot import
PlanColumn = tuple[str, Callable[[dict[str, Any]], str]]


def plan_text(
    options: Sequence[dict[str, Any]],
    left_out: Sequence[str] = (),
    extra: Sequence[PlanColumn] = (),
    searched: Sequence[str] | None = None,
) -> str:
    """The options as a table for ``gpusizer-cli plan`` (sizes in GiB, price in USD/hour);
    ``left_out``: GPUs the framework does not run on (compare.left_out_gpus), not searched;
    ``extra``: columns added before the price; ``searched``: the GPU ids asked for (default
    the catalog), so that a plan for one GPU does not list the rest as not fitting."""
    if not options:
        if searched is None:
            return "No GPU in the catalog fits this scenario with any layout within the search limit."
        return f"No layout on {', '.join(searched)} fits this scenario within the search limit."
    rows = _plan_rows(options, extra)
    head = rows[0]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = [
        "  ".join(
            c.ljust(w) if i in (0, 3) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    lines += [f"Why ({o['gpu']}): {o['layout_reason']}" for o in options if o["rank"] == 1]
    # a row that misses only the default level: by how much, and the count that meets it
    # (core/sizing/level_count.py), as compare's "short of a target" line says it
    lines += [f"Default target ({o['gpu']}): {o['unmet_reason']}" for o in options if o.get("level_count")]
    # plan has no purchase column: a row over targets.max_purchase_usd says by how much
    lines += [x for o in options if o["rank"] == 1 and (x := budget_line(o))]
    asked = set(gpu_presets()) if searched is None else set(searched)
    missing = sorted(asked - {o["gpu"] for o in options} - set(left_out))
    if missing:
        lines.append(f"Not listed (no layout fits within the search limit): {', '.join(missing)}")
    return "\n".join(lines + sorted({f"Note ({o['gpu']}): {n}" for o in options for n in o["notes"]}))


def _plan_rows(options: Sequence[dict[str, Any]], extra: Sequence[PlanColumn]) -> list[tuple[str, ...]]:
    """The plan table's header and one row of cells an option (sizes in GiB, price in USD/hour)."""
    inference = "max_batch_size" in options[0]
    head = (
        "GPU",
        "GPUs",
        "Nodes",
        "Layout",
        "Peak/GPU",
        "Peak band",
        "Headroom",
        *(("Max batch", "Max context") if inference else ("Max micro-batch",)),
        *(header for header, _ in extra),
        "$/hour",
        "How sure (memory/speed)",
    )
    return [head] + [
        (
            o["gpu_name"] + ("" if o["rank"] == 1 else f" (alt {o['rank'] - 1})"),
            str(o["gpus"]),
            str(o["nodes"]),
            o["layout"],
            f"{o['per_gpu_total'] / GiB:.1f} GiB",
            _peak_band(o),
            f"{o['headroom_bytes'] / GiB:.1f} GiB",
            *(
                (str(o["max_batch_size"]), str(o["max_context_tokens"]))
                if inference
                else (str(o["max_micro_batch_size"]),)
            ),
            *(cell(o) or "-" for _, cell in extra),
            "-" if o["total_price_per_hour"] is None else f"{o['total_price_per_hour']:,.2f}",
            f"{o.get('memory_confidence') or '-'}/{o.get('speed_confidence') or '-'}",
        )
        for o in options
    ]
