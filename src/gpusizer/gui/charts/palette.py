"""The charts' theme around the component colours of gui/colors.py: background, text, series
colours, pen widths and font sizes. Sizes are in device-independent pixels and points: Qt
scales them on high-DPI screens.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QFont, QPalette

# Roofline and sweep series (not components).
PREFILL_COLOR = "#4e79a7"
DECODE_COLOR = "#e15759"
TOTAL_PEN_WIDTH = 3.0  # px; the peak curve stands out from the component curves
LINE_PEN_WIDTH = 2.0  # px; 1 px lines vanish in a 2x export
# Font sizes in logical pixels, not points: a point size depends on the DPI of the paint
# device, which differs between the screen and an exported QImage (text then no longer fits
# the boxes laid out for it); logical pixels are scaled by Qt on high-DPI screens.
FONT_PX = 13  # axis ticks
LABEL_PX = 14  # axis titles, legend, annotations
TITLE_PX = 17


@dataclass(frozen=True)
class Theme:
    """Colours derived from the widget palette (hex strings)."""

    dark: bool
    background: str
    foreground: str
    muted: str  # grid, secondary text
    good: str  # headroom
    bad: str  # shortfall, out of memory

    def qcolor(self, name: str, alpha: int = 255) -> QColor:
        c = QColor(getattr(self, name))
        c.setAlpha(alpha)
        return c


LIGHT = Theme(False, "#ffffff", "#1f1f1f", "#8a8a8a", "#1a7f37", "#c62828")
DARK = Theme(True, "#1e1e1e", "#e8e8e8", "#7a7a7a", "#3fb950", "#ff6b6b")


def theme_for(palette: QPalette) -> Theme:
    """The light or dark theme matching a widget palette (its window colour's lightness)."""
    window = palette.color(QPalette.ColorRole.Window)
    return DARK if window.lightness() < 128 else LIGHT


def font(pixels: int = FONT_PX, bold: bool = False) -> QFont:
    """The chart font, ``pixels`` logical px high; family left to Qt (DejaVu Sans on Linux)."""
    f = QFont()
    f.setPixelSize(pixels)
    f.setBold(bold)
    return f
