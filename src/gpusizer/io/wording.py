"""The words every surface uses for the same answer: the window (gui/summary.py,
gui/breakdown.py), the CLI text (io/estimate_text.py, io/serving_text.py), the report
(io/report.py, io/figures.py) and the comparison table and its CSV (io/compare_table.py).

One function per thing worded, so that the window, the CLI and the report cannot disagree:

- the verdict: fits (with the headroom), does not fit (by how much), the engine does not
  start (and why), does not run (and why); plain words first, the figure after;
- "GPUs needed": what the work needs and, apart from it, what is bought (the purchase unit and
  its spare GPUs), the layout, the techniques the advice turns on (core/sizing/savings.describe)
  and the target it misses, by how much;
- counts with their plural ("1 GPU", "2 GPUs"), bytes in the user's unit (GiB = 2^30 bytes,
  GB = 10^9 bytes; io/units.py) and durations on one scale (``duration``; table cells use its
  ``compact`` form, the same scale with short unit names).

No Qt: the window adds its own markup to :data:`Span` lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.model.result import Estimate
from ..core.serving.start_headroom import stated_headroom
from ..core.sizing.layout_search import MAX_GPUS  # the most GPUs the advice searches
from ..core.sizing.lighter_run import PREFIX as CHEAPER_RUN
from ..core.sizing.option import SizingOption
from ..core.sizing.savings import describe
from ..core.sizing.stated import SEARCH_COVERS, stated_phrase, unsearched
from .units import fmt_bytes


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 GPU``, ``2 GPUs``, ``1,024 users``: the number with thousands separators and the noun
    in the plural unless the number is one (``plural`` when the noun's is not ``noun + "s"``)."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def size(n_bytes: float, unit: str = "GiB", also: str | None = None) -> str:
    """Bytes in the user's unit (``12.30 GiB``), with a second unit in brackets when asked
    (``12.30 GiB (13.21 GB)``: the CLI prints both)."""
    text = fmt_bytes(n_bytes, unit)
    return f"{text} ({fmt_bytes(n_bytes, also)})" if also else text


# Each unit is used from one of it upwards: 200,000 s is 2.3 days everywhere.
_SCALE = ((86400.0, "days", "d"), (3600.0, "h", "h"), (60.0, "min", "min"), (1.0, "s", "s"))


def duration(seconds: float, compact: bool = False) -> str:
    """Seconds on one scale: ``6.9 ms``, ``12.4 s``, ``5.0 min``, ``55.6 h`` below a day,
    ``2.3 days``; ``compact`` (table cells) writes days as ``d`` (``2.3 d``)."""
    for div, word, short in _SCALE:
        if seconds >= div:
            return f"{seconds / div:,.1f} {short if compact else word}"
    return f"{seconds * 1e3:,.1f} ms"


@dataclass(frozen=True)
class Fit:
    """What a verdict is worded from, taken from an estimate or from its report (the JSON
    contract), so that both give the same words. Bytes per GPU."""

    peak: int
    gpu_bytes: int  # the GPU's usable memory
    # capacity minus the peak; negative when the peak does not fit, and where the engine does
    # not start its card's shortfall against the smallest it starts on
    # (core/serving/start_headroom.py)
    headroom: int
    fits: bool  # the work runs (core/model/result.Estimate.fits)
    reason: str | None  # why it does not run, or a note when it does (``fit_reason``)
    engine_reason: str | None  # why the serving engine refuses to start (None: it starts)
    host_ram: int = 0  # system RAM a serving engine keeps beside the GPU

    @property
    def capacity(self) -> int:
        return self.gpu_bytes


def fit_of(est: Estimate) -> Fit:
    """The verdict's facts of an estimate."""
    sv = est.serving
    return Fit(
        peak=est.memory.total,
        gpu_bytes=est.capacity_bytes,
        headroom=stated_headroom(est),
        fits=est.fits,
        reason=est.fit_reason,
        engine_reason=(sv.reason or "") if sv is not None and not sv.starts else None,
        host_ram=sv.host_memory_bytes if sv is not None else 0,
    )


def fit_of_report(rep: Mapping[str, Any]) -> Fit:
    """The verdict's facts of an estimate report (``gpusizer.estimate_report``)."""
    sv = rep.get("serving")
    return Fit(
        peak=int(rep["per_gpu"]["total"]),
        gpu_bytes=int(rep["gpu"]["memory_bytes"]),
        headroom=int(rep["headroom_bytes"]),
        fits=bool(rep["fits"]),
        reason=rep.get("fit_reason"),
        engine_reason=(sv.get("reason") or "") if sv is not None and not sv["starts"] else None,
        host_ram=int(sv.get("host_memory_bytes") or 0) if sv is not None else 0,
    )


def verdict_phrase(fit: Fit, unit: str = "GiB", also: str | None = None) -> str:
    """``fits, 17.55 GiB headroom``, ``does not fit, 4.20 GiB short``, ``the engine does not
    start: <why>`` or ``does not run: <why>`` (the peak fits but the work does not: the
    engine's context, unified memory); with the system RAM a serving engine keeps when it runs."""
    if fit.peak > fit.capacity:
        tail = f"does not fit, {size(fit.peak - fit.capacity, unit, also)} short"
    elif fit.engine_reason is not None:
        tail = "the engine does not start" + _start_short(fit, unit, also)
        tail += f": {fit.engine_reason}" if fit.engine_reason else ""
    elif not fit.fits:
        tail = f"does not run: {fit.reason}"
    else:
        tail = f"fits, {size(fit.headroom, unit, also)} headroom" + (f"; {fit.reason}" if fit.reason else "")
    if fit.host_ram and fit.fits:
        tail += f", plus {size(fit.host_ram, unit, also)} of system RAM"
    return tail


def _start_short(fit: Fit, unit: str, also: str | None) -> str:
    """How much more memory per GPU the engine needs to start (its stated headroom, negative), or
    "": said as what would start it, since "short of the smallest card" read as a card size."""
    if fit.headroom >= 0:
        return ""
    return f", {size(-fit.headroom, unit, also)} more per GPU would start it"


def room_word(fit: Fit) -> str:
    """The memory chart's word for the stated headroom beside its figure: ``headroom``,
    ``short by`` (the peak over the card) or ``short to start by`` (the engine's start-up
    check: the smallest card it starts on is larger)."""
    if fit.headroom >= 0:
        return "headroom"
    return "short by" if fit.peak > fit.capacity else "short to start by"


def verdict_line(fit: Fit, unit: str = "GiB") -> str:
    """``62.10 GiB of 79.65 GiB per GPU — fits, 17.55 GiB headroom`` (the window's headline
    and the report's first line)."""
    return f"{size(fit.peak, unit)} of {size(fit.capacity, unit)} per GPU — {verdict_phrase(fit, unit)}"


Span = tuple[str, bool]  # a piece of a sentence and whether it is stressed (bold in the window)


def plain(spans: list[Span]) -> str:
    """The sentence without stress (the CLI, the report)."""
    return "".join(text for text, _strong in spans)


def nothing_fits(gpu_name: str, context: str | None = None, stated: str | None = None) -> str:
    """The advice when no count of the GPU holds the work; ``context``: why a request is longer
    than the engine's context, which no count of GPUs changes (``unmet`` context_limit);
    ``stated``: the scenario's own layout that fits though the search cannot try it
    (core/sizing/stated.py), said beside what the search covers."""
    if context:
        return f"no count of {gpu_name} runs it: {context}; raise it or shorten the request."
    if stated:
        return (
            f"no layout the search tries ({SEARCH_COVERS}) of up to {MAX_GPUS:,} × {gpu_name} fits; {stated}."
        )
    return (
        f"no layout of up to {MAX_GPUS:,} × {gpu_name} fits; choose a bigger GPU, quantised "
        "weights or a shorter sequence."
    )


def needed(option: SizingOption) -> int:
    """The GPUs the work needs (``needed_gpus``: fewer than the purchase when a whole unit is
    bought, core/sizing/unmet.py), else the fewest that hold it, else the purchase."""
    return int(option.needed_gpus or option.min_gpus or option.gpus or 0)


def rollout_pool(option: SizingOption) -> int:
    """A split RL run's rollout GPUs, beside the training pool its count holds (``gpus``,
    ``needed_gpus``): ``rl_total_gpus`` less the training pool bought (0 for any other)."""
    return max(0, int(option.rl_total_gpus or 0) - int(option.gpus or 0))


def need_phrase(option: SizingOption, gpu_name: str) -> str:
    """What the work needs: ``1 × H100 SXM 80GB``; a split RL run's both pools, the count their
    sum (``12 × H100 SXM 80GB (4 training + 8 rollout)``: the training pool's 4 alone read as
    the run's whole need)."""
    need, pool = needed(option), rollout_pool(option)
    head = f"{need + pool:,} × {option.gpu_name or gpu_name}"
    return f"{head} ({need:,} training + {pool:,} rollout)" if pool else head


def bought_phrase(option: SizingOption) -> str:
    """What is bought when more than the need (else ""): ``bought as 1 × NVIDIA DGX H100
    (8 GPUs, 7 spare, used by the layout that follows)`` (whole purchase units,
    core/sizing/systems.py)."""
    n = int(option.gpus or 0)
    if needed(option) >= n:
        return ""
    spare = option.spare_gpus or n - needed(option)
    units, name = option.unit.get("systems"), option.unit.get("system_name")
    lead = f"{units:,} × {name} ({count(n, 'GPU')}, " if units and name else f"{count(n, 'GPU')} ("
    pool = rollout_pool(option)
    if pool:  # the purchase is the training pool's; the rollout's come on top
        return (
            f"the training pool bought as {lead}{spare:,} spare, used by the layout that follows) "
            f"and the rollout's {pool:,}: {n + pool:,} in all"
        )
    return f"bought as {lead}{spare:,} spare, used by the layout that follows)"


def techniques_phrase(option: SizingOption) -> str:
    """The techniques the advice turns on (``with a fused loss, gradient checkpointing...``)."""
    return describe(dict(option.scenario_changes))


def layout_phrase(option: SizingOption) -> str:
    """The layout (``TP 1 x PP 1 x DP 8 (ZeRO 3)``); the recompute is left to the techniques
    when they name it (gradient checkpointing)."""
    layout = str(option.layout)
    layout = layout.split(", recompute")[0] if techniques_phrase(option) else layout
    # RL: the rollout engine's width, searched beside the training layout (core/sizing/engine_width.py)
    return layout if option.rl_rollout_tensor is None else f"{layout}, rollout TP {option.rl_rollout_tensor}"


def against_setting_phrase(est: Estimate, option: SizingOption) -> str:
    """Which target the option misses and by how much (``unmet``: targets, practical_limit),
    or how the advice compares with the layout set in the scenario (``the layout set here
    runs on 4, with 12% of memory spare``); "" for none."""
    n = option.gpus or 0
    if option.unmet in ("targets", "practical_limit") and option.unmet_reason:
        return option.unmet_reason
    if option.targets_met is False:
        return f"the targets cannot be met with up to {MAX_GPUS:,} GPUs"
    same = est.fits and not option.scenario_changes and n == est.gpus
    if same and option.parallelism == est.scenario.parallelism.model_dump(mode="json"):
        return "the layout set here"
    if est.fits and est.gpus < n:
        spare = est.headroom_bytes / max(est.capacity_bytes, 1)
        return f"the layout set here runs on {est.gpus:,}, with {spare:.0%} of memory spare"
    if est.fits:
        return f"the layout set here uses {est.gpus:,}"
    return ""


def gpus_needed_spans(est: Estimate, option: SizingOption | None) -> list[Span]:
    """ "GPUs needed" as one sentence: the need, then what is bought apart from it, the layout,
    the techniques, and the target missed or how it compares with the scenario as set
    (``option``: the advice for the scenario's GPU, core/sizing/gpus_needed.py, or None when
    nothing fits)."""
    if option is None:
        context = est.fit_reason if est.unmet == "context_limit" else None
        stated = stated_phrase(est) if est.fits and unsearched(est.scenario) else None
        return [(nothing_fits(est.gpu.name, context, stated), False)]
    out: list[Span] = [(need_phrase(option, est.gpu.name), True)]
    bought = bought_phrase(option)
    if bought:
        out.append((f"; {bought}", False))
    out.append((f", {layout_phrase(option)}", False))
    how = techniques_phrase(option)
    if how:
        out += [(" ", False), (how, True)]
    against = against_setting_phrase(est, option)
    out.append((f" — {against}." if against else ".", False))
    cheaper = next((n for n in option.notes if n.startswith(CHEAPER_RUN)), None)
    if cheaper is not None:  # the CLI's note, where more GPUs without a technique cost less
        out.append((f" Cheaper per run: {cheaper.removeprefix(CHEAPER_RUN)}.", False))
    return out


def per_gpu_phrase(option: SizingOption, unit: str = "GiB") -> str:
    """The advised layout's memory: ``per GPU 40.32 GiB, 39.33 GiB headroom``."""
    return (
        f"per GPU {size(option.per_gpu_total or 0, unit)}, {size(option.headroom_bytes or 0, unit)} headroom"
    )


def fraction_lever_words(option: Mapping[str, Any]) -> str:
    """The clause a serving memory no-fit adds from its ``fraction_lever`` (core/sizing/
    fraction_lever.py): the check that refused at the stated fraction and by how much, and the
    memory fraction at which the count search finds a replica, or that none below the stated one
    down to 0.5 does ("" where the option has no lever). vLLM refuses at start unless
    ``gpu_memory_utilization`` x total is free (vllm/v1/worker/gpu_worker.py ``init_device``),
    and needs the pool it leaves to hold a request (vllm/v1/core/kv_cache_utils.py
    ``check_enough_kv_cache_memory``)."""
    lever = option.get("fraction_lever")
    if not lever:
        return ""
    stated = f"{lever['stated_fraction']:g}"
    if lever["fraction"] is None:
        lowest = "down to 0.5 (serving.memory_fraction)"
        return f"; no memory fraction below {stated} {lowest} makes a replica fit"
    check = {
        "start_free": "the engine's start-up check (memory_fraction x total free at start) refuses",
        "kv_pool": "the KV pool left does not hold the load",
    }.get(lever["check"] or "")
    why = f"; at {stated} {check} (short by {size(lever['short_bytes'])} per GPU)" if check else ""
    return (
        f"{why}; at serving.memory_fraction {lever['fraction']:g}, "
        f"{count(lever['gpus'], 'GPU')} hold one replica"
    )
