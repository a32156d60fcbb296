"""The sizing advice and the evidence band (core/evidence): ``margin="band"`` sizes each GPU to
the upper edge of the memory band, and an option whose upper edge passes the GPU's usable
memory says by how much.

A ratio r = estimate / published puts a published peak at estimate / r, so the band's upper
edge is peak / p10; keeping it within the capacity C is keeping the peak within C x p10, a
margin of 1 - p10 of the usable memory.
"""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from ..evidence.confidence import memory_evidence
from ..model.presets import scenario_gpu
from ..model.specs import GPUSpec, Scenario
from .compare_options import DEFAULT_MARGIN, check_margin
from .estimate_only import met_at_estimate_only
from .option import SizingOption
from .option_band import option_band
from .rl_notes import deadline_band_note
from .serving_band_note import serving_band_note

GiB = 2**30
BAND = "band"  # ``margin``'s word for the evidence band


def resolve_margin(margin: float | str, s: Scenario) -> float:
    """``"band"``: 1 - p10 of the scenario's memory regime (0 where the estimate runs high,
    the default 10 % where the regime has no band); a share checked (compare_options.py)."""
    if margin != BAND:
        return check_margin(cast(float, margin))
    p10 = memory_evidence(s, scenario_gpu(s)).band.p10
    if p10 is None:
        return DEFAULT_MARGIN
    return min(max(0.0, 1.0 - p10), 0.99)


def band_note(option: SizingOption, s: Scenario, spec: GPUSpec) -> SizingOption:
    """The option with "fits, but runs like this have needed up to X more" among its notes
    when the band's upper edge of its peak passes its GPU's usable memory."""
    p10 = memory_evidence(s, spec).band.p10
    if not option.fits or option.per_gpu_total is None or not p10:
        return option
    upper = option.per_gpu_total / p10
    more = upper - option.capacity_bytes
    if more <= 0:
        return option
    note = (
        f"fits, but runs like this have needed up to {more / GiB:,.1f} GiB more than the "
        f"{option.capacity_bytes / GiB:,.1f} GiB usable (the evidence band's upper edge, "
        f"{upper / GiB:,.1f} GiB per GPU)"
    )
    return replace(option, notes=(*option.notes, note))


def with_band(option: SizingOption, s: Scenario, spec: GPUSpec) -> SizingOption:
    """The option with its evidence band (core/sizing/option_band.py) and, where the band's
    upper edge passes the GPU, the note of :func:`band_note`; an RL run that meets its deadline
    at the estimate but not across its run band says so (core/sizing/rl_notes.py), and a
    serving option its speed targets likewise (core/sizing/serving_band_note.py)."""
    noted = band_note(option, s, spec)
    banded = replace(noted, band=option_band(noted.as_dict(), s, spec))
    o = banded.as_dict()
    late = [n for n in (deadline_band_note(o, s), serving_band_note(o, s)) if n is not None]
    if met_at_estimate_only(o, s):  # the Targets cell's "at estimate" (core/sizing/estimate_only.py)
        banded = replace(banded, band=banded.band | {"targets_met_at_estimate_only": True})
    return replace(banded, notes=(*banded.notes, *late)) if late else banded
