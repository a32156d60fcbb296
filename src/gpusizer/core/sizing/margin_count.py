"""Where a row buys more GPUs than the scenario's own layout needs at the estimate, because
the count keeps a margin: say so on the row.

``estimate`` answers the scenario as stated, and says it fits when its peak is within the
GPU's usable memory. ``compare`` and ``plan`` size every GPU so that a share of that memory
stays spare (``margin``, default 10 %: core/sizing/compare_options.py ``DEFAULT_MARGIN``; or
the memory band's upper edge, core/sizing/band_margin.py). DeepSeek-R1 at GGUF Q4_K_M on an
Apple M3 Ultra 512 GB: the estimate's peak is 378.4 of 384.0 GiB usable (5.6 GiB spare, 1.5 %),
so ``estimate`` fits one and ``compare`` offers two. Read side by side, the two answers
contradict each other unless the row says which rule made the count.

So, for each answer row whose need (the fewest GPUs that hold the work at the margin, where no
target grew it) is above the scenario's own count (``parallelism``'s GPUs),
where the scenario's own layout on that row's GPU fits at the estimate and leaves less than the
margin spare, the row gets a note: the stated count holds the estimate, with its peak, usable
memory and spare, and the margin that sized the row; ``--margin 0`` (the window's margin
setting) sizes at the estimate. The band's upper edge is named where it passes the usable
memory (the band is the same ``estimate`` prints). The count itself is unchanged: a buyer who
keeps no margin is told how to ask for it. Memory in GiB (2^30 bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..evidence.confidence import memory_evidence
from ..model.specs import HardwareSpec, Scenario
from ..pipeline.estimate import estimate
from .option import SizingOption

GiB = 2**30


def _own_count(s: Scenario, hardware: HardwareSpec) -> tuple[float, float, float] | None:
    """(peak, usable, the band's upper edge) bytes a GPU of the scenario's own layout on
    ``hardware``'s GPU, where it fits at the estimate; None where it does not (or is
    refused). The upper edge is the peak where the regime has no band."""
    v = s.model_copy(update={"hardware": hardware})
    try:
        est = estimate(v)
    except Exception:  # a layout the GPU cannot run: nothing to say of it
        return None
    peak = float(est.required_bytes)
    # llama.cpp "fits" a model larger than the GPU by keeping layers in system RAM
    # (core/serving/offload.py): that is not one GPU holding it
    if not est.fits or peak > est.gpu.capacity_bytes:
        return None
    p10 = memory_evidence(v, est.gpu).band.p10
    return peak, float(est.gpu.capacity_bytes), peak / p10 if p10 else peak


def margin_words(s: Scenario, own: tuple[float, float, float], margin: float) -> str:
    """The note: the scenario's own count holds the estimate, the margin sized the row."""
    n, (peak, usable, upper) = s.parallelism.gpus, own
    spare = usable - peak
    gpus = "1 GPU holds" if n == 1 else f"{n:,} GPUs hold"
    note = (
        f"{gpus} the estimate ({peak / GiB:,.1f} of {usable / GiB:,.1f} GiB usable, "
        f"{spare / GiB:,.1f} GiB or {spare / usable:.1%} spare), as estimate says, but not "
        f"the {margin:.0%} of usable memory the search keeps spare (--margin 0 sizes at the "
        "estimate)"
    )
    if upper > usable:
        note += f"; runs like this have needed up to {upper / GiB:,.1f} GiB (the memory band's upper edge)"
    return note


def _memory_need(o: SizingOption, stated: int) -> bool:
    """The option's need is the fewest GPUs that hold the work (memory, at the margin:
    ``min_gpus``), above the scenario's own count; a need grown by a target is not the margin's."""
    return bool(o.fits and o.min_gpus and o.needed_gpus == o.min_gpus and o.min_gpus > stated)


def with_margin_note(
    s: Scenario, rows: list[list[SizingOption]], hardware: Mapping[str, HardwareSpec], margin: float
) -> list[list[SizingOption]]:
    """``rows`` with the module docstring's note on each GPU's answer where it applies: the
    stated layout fits the row's GPU at the estimate but keeps less than ``margin`` (a share
    of usable memory, resolved: core/sizing/band_margin.py ``resolve_margin``) spare."""
    if margin <= 0:
        return rows
    out = []
    for opts in rows:
        first = opts[0] if opts else None
        if first is None or not _memory_need(first, s.parallelism.gpus):
            out.append(opts)
            continue
        hw = hardware.get(first.gpu)
        own = None if hw is None else _own_count(s, hw)
        if own is None or own[1] - own[0] >= margin * own[1]:  # the margin did not grow the count
            out.append(opts)
            continue
        note = margin_words(s, own, margin)
        out.append([replace(first, notes=(*first.notes, note)), *opts[1:]])
    return out
