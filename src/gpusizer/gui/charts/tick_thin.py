"""Value-axis ticks thinned to the pixels they are drawn in: pyqtgraph's AxisItem draws every
tick it is given, centred on its value, without checking its neighbours, so on the Hardware
tab's 110 px wide plot at 1024 x 700 the speed axis read "10k100k" and "10k20k50k". A tick is
kept when its text keeps ``GAP_PX`` clear of every tick kept before it (powers of ten first);
the values stay readable from the table beside the chart and the tooltip."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .tick_fit import GAP_PX

Tick = tuple[float, str]


def thinned(
    ticks: Sequence[Tick], px: Callable[[float], float], size_px: Callable[[str], float]
) -> list[Tick]:
    """The ticks whose texts (``size_px``: a text's extent along the axis, pixels) run into no
    other kept one; ``px``: a tick value's position along the axis, pixels. Whole positions
    (powers of ten on a log axis) are kept first, then the 2s and 5s between them where room
    is left; the result in axis order."""

    def clear(tick: Tick, other: Tick) -> bool:
        gap = abs(px(tick[0]) - px(other[0]))
        return gap >= (size_px(tick[1]) + size_px(other[1])) / 2 + GAP_PX

    out: list[Tick] = []
    for tick in sorted(ticks, key=lambda t: (not float(t[0]).is_integer(), px(t[0]))):
        if all(clear(tick, kept) for kept in out):
            out.append(tick)
    return sorted(out, key=lambda t: px(t[0]))


def readable(
    sets: list[list[Tick]],
    pos: Callable[[float], float],
    size: Callable[[str], float],
    ends: tuple[float, float],
) -> list[Tick]:
    """From ``sets`` (coarse to fine), the first ticks of which two texts are drawn: inside the
    axis's ``ends`` (pixels; pyqtgraph drops a text past them) and clear of each other, every
    other tick tried too (thinning may keep the middle one alone); else the most found.
    ``pos``: a tick value's pixel along the axis; ``size``: a text's extent along it."""
    best: list[Tick] = []
    for ticks in sets:
        inside = [
            t
            for t in ticks
            if ends[0] <= pos(t[0]) - size(t[1]) / 2 and pos(t[0]) + size(t[1]) / 2 <= ends[1]
        ]
        for pick in (inside, inside[::2], inside[1::2]):
            kept = thinned(pick, pos, size)
            if len(kept) > len(best):
                best = kept
            if len(best) >= 2:
                return best
    return best
