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
