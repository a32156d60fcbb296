"""The Roofline chart in a small window: room above the flat roof for the compute roof's
figure, and a legend in short words where the full one would squeeze the plot (roofline.py
draws the chart, roofline_labels.py places its labels).

At 1024 x 700 the chart is about 550 px wide and 280 px tall: the legend's full words
("prefill, per operation") took 40 % of that width, and the 0.6 decade left above the peak
(22 px) could not hold "BF16 peak 989 TFLOP/s", which the placer (labels.place) then moved to
the bottom of the plot, far from the roof it names.
"""

from __future__ import annotations

import math

import pyqtgraph as pg

from .labels import PAD, move_by, scene_rect

# px: a chart narrower than this shows the legend's short words (the full legend, ~210 px,
# leaves the plot under labels.LegendSlot's 480 px beside it below ~750 px)
SHORT_LEGEND_BELOW_PX = 760
LEGEND_WORDS = {  # entry: (full, short); the title says "dashed: with the efficiency factors"
    "roof": ("roofs (datasheet)", "roofs"),
    "eff_roof": ("roofs x efficiency", "x efficiency"),
    "ops": ("{phase}, per operation", "{phase} op"),
    "step": ("{phase}, whole step", "{phase} step"),
}
# px between the flat roof and its figure: a star on the roof (22 px: roofline.STAR_CLEAR 15 px
# from its centre to clear it) is not under the figure
ABOVE_PX = 15.0
MOST_ABOVE = 1 / 3  # the most of the plot's height given to the room above the peak


def legend_text(entry: str, short: bool, phase: str = "") -> str:
    """A legend entry's words (LEGEND_WORDS), short or full."""
    return LEGEND_WORDS[entry][short].format(phase=phase)


def top_for_label(ylo: float, top: float, peak: float, plot_px: float, label_px: float) -> float:
    """The plot's top (log10 of TFLOP/s) that leaves ``label_px`` pixels (and PAD either
    above, ABOVE_PX below) above the flat roof at ``peak`` (log10) in a plot ``plot_px`` tall from ``ylo``:
    the room r = (t - peak) / (t - ylo) x plot_px must hold it, so
    t = (peak x plot_px - ylo x need) / (plot_px - need); ``top`` where that room is already
    there, or where it would take more than MOST_ABOVE of the plot."""
    need = label_px + ABOVE_PX + PAD
    if plot_px <= 0 or need > MOST_ABOVE * plot_px:
        return top
    return max(top, (peak * plot_px - ylo * need) / (plot_px - need))


def decade_ticks(lo: float, hi: float) -> list[tuple[float, str]]:
    """Ticks at powers of ten (log10 positions); pyqtgraph's own label minor steps too."""
    out = []
    for k in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        v = 10.0**k
        text = f"{v:g}" if v < 1000 else f"{v / 1000:g}k" if v < 1e6 else f"{v / 1e6:g}M"
        out.append((float(k), text))
    return out


def ridge_beside_peak(ridge: pg.TextItem, compute: pg.TextItem, vb: pg.ViewBox) -> None:
    """The ridge's figure starts left of the compute roof's, in the band above the peak they
    share: where the flat roof is shorter than the compute figure (Qwen2.5 7B's at 1024 x
    700), the placer's first moves are up and down (labels.place), and it took the ridge's
    figure to the plot's bottom, far from the ridge it names."""
    c, r = scene_rect(compute), scene_rect(ridge)
    overlap = r.right() + PAD - c.left()
    if overlap > 0 and r.bottom() > c.top() and r.top() < c.bottom():
        move_by(ridge, vb, -overlap, 0.0)
