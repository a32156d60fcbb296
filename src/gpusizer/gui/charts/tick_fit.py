"""Category tick labels that fit the pitch of their bars.

At 1024 px the Training vs inference chart's bars stand ~45 px apart, narrower than "Inference"
or "Pre-training" at the axis font (13 px), and pyqtgraph's AxisItem draws each tick's text
centred under its bar without checking its neighbours ("LoRAQLoRA", "InferenceInference").
So the labels take the first of these forms whose neighbours keep ``GAP_PX`` apart: two lines
under each bar; one short line each, every other one a line lower (neighbours in one row then
stand two pitches apart); the two-line labels so staggered (four lines); the short lines in
three or four rows. The last form is for a plot squeezed by its legend: at 1024 x 700 a
llama.cpp case's 229 px plot (beside a 242 px legend) put its bars 28 px apart, and every
earlier form ran "Pre-training" into "LoRA". A short name drops
what the bar before it already says ("FP8" after "Inference FP16"); the full name is each
bar's tooltip and the data table's first column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

GAP_PX = 6  # clear space between two labels of one row
MAX_ROWS = 4  # text rows of staggered one-line names: as tall as two two-line rows


def two_lines(label: str) -> str:
    """Two-line tick labels keep seven bars legible at the export width ("Full\\nfine-tune")."""
    return label.replace(" ", "\n", 1)


def clear_of_neighbours(
    texts: Sequence[str], step: int, room_px: float, width_px: Callable[[str], float]
) -> bool:
    """Every label clear of the one ``step`` bars on (``room_px`` apart) by ``GAP_PX``."""
    widths = [max(width_px(line) for line in t.split("\n")) for t in texts]
    return all((widths[i] + widths[i + step]) / 2 + GAP_PX <= room_px for i in range(len(widths) - step))


def fitted_ticks(
    labels: Sequence[str], shorts: Sequence[str], pitch_px: float, width_px: Callable[[str], float]
) -> tuple[list[str], int]:
    """The tick texts of bars ``pitch_px`` apart and the lines they take. ``labels``: the full
    names; ``shorts``: one-line names for the staggered row form; ``width_px``: the axis font's
    width of one line in pixels."""
    full = [two_lines(x) for x in labels]
    if clear_of_neighbours(full, 1, pitch_px, width_px):
        return full, 2
    if clear_of_neighbours(shorts, 2, 2 * pitch_px, width_px):
        return staggered(shorts, 2), 2
    stacked = [("\n\n" + t if i % 2 else t) for i, t in enumerate(full)]
    if clear_of_neighbours(stacked, 2, 2 * pitch_px, width_px):
        return stacked, 4
    # Narrower still (the plot beside a wide legend): the short names in three, then four
    # rows, neighbours in a row three or four pitches apart; four lines as the form above.
    for rows in range(3, MAX_ROWS + 1):
        if clear_of_neighbours(shorts, rows, rows * pitch_px, width_px):
            return staggered(shorts, rows), rows
    return stacked, 4


def staggered(texts: Sequence[str], rows: int) -> list[str]:
    """One-line texts in ``rows`` text rows, bar ``i`` on row ``i % rows`` (blank lines above)."""
    return ["\n" * (i % rows) + t for i, t in enumerate(texts)]


def short_names(labels: Sequence[str], groups: Sequence[str], tails: Sequence[str]) -> list[str]:
    """One-line names: a bar of the same group as the one before it (the same workload kind
    at another weight format) says only its ``tails`` entry ("FP8"), others the full label."""
    return [tails[i] if i and groups[i] == groups[i - 1] else label for i, label in enumerate(labels)]


def edge_margin(text: str, pitch_px: float, width_px: Callable[[str], float]) -> float:
    """Bars of room (at least 0.6) between the axis end and the outer bar, for half of its
    label: pyqtgraph leaves out a tick text that does not fit inside the axis."""
    half = max(width_px(line) for line in text.split("\n")) / 2 + 2
    return max(0.6, half / pitch_px) if pitch_px > 0 else 0.6
