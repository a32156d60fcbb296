"""A vertical line's label that stays whole inside a narrow plot: on the side of the line with
more room, on one line where that side holds it, else broken after its first words.

At 1024 x 700 the Users vs context chart's plot is about 280 px wide: "does not start above
2,819 tokens" at the right of a line a third of the way across was cut after "2,81". A
pyqtgraph ``InfLineLabel`` takes its text as a format (plain text, newlines kept) and its
side as anchors (pyqtgraph graphicsItems/InfiniteLine.py, ``InfLineLabel.setFormat`` and
``anchors``).
"""

from __future__ import annotations

import pyqtgraph as pg

from .labels import scene_rect

LEFT_OF, RIGHT_OF = [(1, 0.5), (1, 0.5)], [(0, 0.5), (0, 0.5)]
POSITIONS = (0.9, 0.75, 0.6)  # along the line, from the bottom of the view (0) to its top (1)


def fit_line_label(line: pg.InfiniteLine, words: str) -> None:
    """Put ``line``'s label (``words``) where it is whole inside the plot (the wider side of
    the line, 90 % up it or lower; then broken in two lines); where nothing fits, the two
    lines half-way up the wider side."""
    label, vb = line.label, line.getViewBox()
    if vb is None or not line.isVisible():
        return
    area = vb.sceneBoundingRect()
    x = vb.mapViewToScene(line.pos()).x()
    sides = [RIGHT_OF, LEFT_OF] if area.right() - x >= x - area.left() else [LEFT_OF, RIGHT_OF]
    head, _, tail = words.partition(" above ")
    broken = f"{head}\nabove {tail}" if tail else words
    for text in (words, broken):
        for anchors in sides:
            for position in POSITIONS:  # lower on the line where a short plot cuts it at the top
                label.anchors = anchors
                label.setFormat(f" {text} ")
                label.setPosition(position)
                if area.adjusted(-1, -1, 1, 1).contains(scene_rect(label)):
                    return
    label.anchors = sides[0]
    label.setFormat(f" {broken} ")
    label.setPosition(0.5)
