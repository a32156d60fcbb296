"""Colours and labels shared by the summary and the table, matching the charts' palette.

A copy of ``charts.palette``'s component colours, not an import of it: importing anything
under ``gui.charts`` loads pyqtgraph and numpy, which the first frame must not wait for.
``tests/gui/test_style.py`` checks that the two stay equal.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

from ..core.result import Estimate

COMPONENT_COLORS: dict[str, str] = {  # Tableau 10, as in charts/palette.py
    "weights": "#4e79a7", "gradients": "#f28e2b", "optimizer": "#b07aa1",
    "activations": "#59a14f", "kv_cache": "#76b7b2", "temporary": "#edc948",
    "overhead": "#9d9d9d",
}
COMPONENT_LABELS: dict[str, str] = {
    "weights": "weights", "gradients": "gradients", "optimizer": "optimizer states",
    "activations": "activations", "kv_cache": "KV cache", "temporary": "temporary buffers",
    "overhead": "runtime overhead",
}

GOOD, TIGHT, BAD = "#1a7f37", "#b26a00", "#c62828"
TIGHT_FRACTION = 0.10  # under 10 % headroom: fits, but fragmentation may still run out


def component_qcolor(component: str) -> QColor:
    return QColor(COMPONENT_COLORS.get(component, "#9d9d9d"))


def verdict_color(est: Estimate) -> str:
    """Green when it fits comfortably, amber when tight, red when it does not fit."""
    if not est.fits:
        return BAD
    return TIGHT if est.headroom_bytes < TIGHT_FRACTION * est.capacity_bytes else GOOD
