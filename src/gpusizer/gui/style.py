"""The look: Fusion with a light palette (the same on every platform and in screenshots), and
roles a widget can take (``error``, ``hint``, ``verdict``, ``card``...).

Roles set palettes and fonts, not style sheets: an application style sheet makes every
widget's polish go through QStyleSheetStyle, which cost about 75 ms of this window's startup.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QWidget

TEXT, MUTED, ERROR = "#1f2328", "#57606a", "#c62828"
CARD, CANVAS, BORDER = "#ffffff", "#eef1f5", "#c9d1d9"
INVALID_BASE = "#fdecea"
STALE_BG, STALE_TEXT = "#fff4e5", "#7a4100"


def light_palette() -> QPalette:
    pal, r = QPalette(), QPalette.ColorRole
    colors = {
        r.Window: CANVAS,
        r.WindowText: TEXT,
        r.Base: "#ffffff",
        r.AlternateBase: "#f6f8fa",
        r.Text: TEXT,
        r.Button: "#f6f8fa",
        r.ButtonText: TEXT,
        r.Highlight: "#2f6fb3",
        r.HighlightedText: "#ffffff",
        r.ToolTipBase: "#ffffff",
        r.ToolTipText: TEXT,
        r.PlaceholderText: "#8c959f",
        r.Link: "#2f6fb3",
        r.Light: "#ffffff",
        r.Midlight: "#e6eaef",
        r.Mid: BORDER,
        r.Dark: "#9aa4ae",
        r.Shadow: "#6e7781",
    }
    for role, color in colors.items():
        pal.setColor(role, QColor(color))
    for role in (r.WindowText, r.Text, r.ButtonText):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#a0a7b0"))
    return pal


def apply_style(app: QApplication) -> None:
    """Fusion + the light palette."""
    app.setStyle("Fusion")
    app.setPalette(light_palette())


def _colored(widget: QWidget, role: QPalette.ColorRole, color: str) -> None:
    pal = widget.palette()
    pal.setColor(role, QColor(color))
    widget.setPalette(pal)


def set_text_color(widget: QWidget, color: str) -> None:
    _colored(widget, QPalette.ColorRole.WindowText, color)


def _font(widget: QWidget, scale: float = 1.0, bold: bool = False) -> None:
    font = QFont(widget.font())
    if scale != 1.0:
        font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(bold)
    widget.setFont(font)


def set_role(widget: QWidget, role: str) -> None:
    """Give a widget one of the window's looks (the role is also kept as a property)."""
    widget.setProperty("role", role)
    if role == "error":
        _colored(widget, QPalette.ColorRole.WindowText, ERROR)
    elif role == "hint":
        _colored(widget, QPalette.ColorRole.WindowText, MUTED)
    elif role == "verdict":
        _font(widget, 1.75, bold=True)
    elif role == "figure":
        _colored(widget, QPalette.ColorRole.WindowText, TEXT)
    elif role == "card":
        _colored(widget, QPalette.ColorRole.Window, CARD)
        widget.setAutoFillBackground(True)
        if isinstance(widget, QFrame):
            widget.setFrameShape(QFrame.Shape.StyledPanel)
    elif role == "stale":
        _colored(widget, QPalette.ColorRole.Window, STALE_BG)
        _colored(widget, QPalette.ColorRole.WindowText, STALE_TEXT)
        widget.setAutoFillBackground(True)
        if isinstance(widget, QLabel):
            widget.setMargin(6)


def set_invalid(widget: QWidget, invalid: bool) -> None:
    """Tint an input field whose value is refused; restore the normal look when fixed."""
    if bool(widget.property("invalid")) == invalid:
        return
    widget.setProperty("invalid", invalid)
    if invalid:
        _colored(widget, QPalette.ColorRole.Base, INVALID_BASE)
        _colored(widget, QPalette.ColorRole.Button, INVALID_BASE)
        _colored(widget, QPalette.ColorRole.WindowText, ERROR)
    else:
        widget.setPalette(QPalette())  # back to the inherited palette
