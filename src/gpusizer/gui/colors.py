"""Colours and labels shared by the summary and the table, matching the charts' palette.

The charts package owns the component palette; reading it here keeps the table's swatches
and the charts' bars the same colour. Until the charts exist, a fallback keeps the window
working.
"""

from __future__ import annotations

from PySide6.QtGui import QColor

from ..core.result import COMPONENTS, Estimate

try:
    from .charts.palette import COMPONENT_COLORS, COMPONENT_LABELS
except Exception:  # charts not built (yet): same hues, Tableau 10
    COMPONENT_COLORS = dict(zip(COMPONENTS, ("#4e79a7", "#f28e2b", "#b07aa1", "#59a14f",
                                             "#76b7b2", "#edc948", "#9d9d9d"), strict=True))
    COMPONENT_LABELS = {"weights": "weights", "gradients": "gradients",
                        "optimizer": "optimizer states", "activations": "activations",
                        "kv_cache": "KV cache", "temporary": "temporary buffers",
                        "overhead": "runtime overhead"}

GOOD, TIGHT, BAD = "#1a7f37", "#b26a00", "#c62828"
TIGHT_FRACTION = 0.10  # under 10 % headroom: fits, but fragmentation may still run out


def component_qcolor(component: str) -> QColor:
    return QColor(COMPONENT_COLORS.get(component, "#9d9d9d"))


def verdict_color(est: Estimate) -> str:
    """Green when it fits comfortably, amber when tight, red when it does not fit."""
    if not est.fits:
        return BAD
    return TIGHT if est.headroom_bytes < TIGHT_FRACTION * est.capacity_bytes else GOOD
