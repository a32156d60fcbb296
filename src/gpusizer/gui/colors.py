"""Colours of the memory components and of the verdict: one palette for the summary, the
table and every chart (charts/palette.py builds the chart theme on top of it).

Kept out of ``gui.charts`` on purpose: importing that package loads pyqtgraph and numpy,
which the window's first frame must not wait for.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

from ..core.model.result import COMPONENTS, Estimate

__all__ = ["COMPONENT_COLORS", "component_qcolor", "verdict_color"]

# Mid-tone hues (Tableau 10, Tableau Software's default categorical palette) with enough
# contrast on both a white and a near-black background: a component has the same colour in
# every view, in light and dark mode.
COMPONENT_COLORS: dict[str, str] = {
    "weights": "#4e79a7",  # blue
    "gradients": "#f28e2b",  # orange
    "optimizer": "#b07aa1",  # purple
    "activations": "#59a14f",  # green
    "kv_cache": "#76b7b2",  # teal
    "temporary": "#edc948",  # yellow
    "overhead": "#9d9d9d",  # grey: memory outside tensors
}
assert set(COMPONENT_COLORS) == set(COMPONENTS)  # a new component needs a colour

GOOD, TIGHT, BAD = "#1a7f37", "#b26a00", "#c62828"
TIGHT_FRACTION = 0.10  # under 10 % headroom: fits, but fragmentation may still run out


def component_qcolor(component: str, alpha: int = 255) -> QColor:
    c = QColor(COMPONENT_COLORS.get(component, "#9d9d9d"))
    c.setAlpha(alpha)
    return c


def verdict_color(est: Estimate) -> str:
    """Green when it fits comfortably, amber when tight, red when it does not fit."""
    if not est.fits:
        return BAD
    if est.pool is not None and est.pool.reserved:
        return GOOD  # an engine that reserves its pool leaves 1 - fraction free by design
    return TIGHT if est.headroom_bytes < TIGHT_FRACTION * est.capacity_bytes else GOOD
