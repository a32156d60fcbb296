"""The look: Fusion with a light palette (the same on every platform and in screenshots), and
a small style sheet for the roles widgets declare (``role="error"``, ``invalid=true``...)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

_BORDER = "#d0d7de"

STYLE_SHEET = f"""
QScrollArea#left_scroll, QWidget#left_column {{ background: #f3f5f8; }}
QGroupBox {{
    background: #ffffff; border: 1px solid {_BORDER}; border-radius: 6px;
    margin-top: 16px; padding: 10px 8px 8px 8px;
}}
QGroupBox::title {{
    subcontrol-origin: margin; subcontrol-position: top left; left: 10px; padding: 0 4px;
    color: #1f2a37;
}}
QLabel[role="error"] {{ color: #c62828; }}
QLabel[role="hint"] {{ color: #57606a; }}
QLabel[role="verdict"] {{ font-size: 17pt; font-weight: 600; }}
QLabel[role="context"] {{ color: #1f2a37; }}
QLabel[role="stale"] {{
    background: #fff4e5; color: #7a4100; border: 1px solid #f0c36d; border-radius: 4px;
    padding: 4px 8px;
}}
QFrame#summary {{ background: #ffffff; border: 1px solid {_BORDER}; border-radius: 8px; }}
QFrame#summary[stale="true"] {{ background: #fafafa; border-color: #f0c36d; }}
QFrame#details {{ background: #ffffff; border: 1px solid {_BORDER}; border-radius: 8px; }}
QTableWidget#table_breakdown {{ border: none; background: #ffffff; }}
QSpinBox[invalid="true"], QDoubleSpinBox[invalid="true"], QComboBox[invalid="true"],
QLineEdit[invalid="true"] {{ border: 1px solid #c62828; border-radius: 3px; padding: 1px; }}
QCheckBox[invalid="true"] {{ color: #c62828; }}
QTabWidget#tabs_charts::pane {{ border: 1px solid {_BORDER}; border-radius: 6px; top: -1px; }}
QTabBar::tab {{ padding: 6px 14px; }}
"""


def light_palette() -> QPalette:
    pal = QPalette()
    colors = {
        QPalette.Window: "#f3f5f8", QPalette.WindowText: "#1f2328", QPalette.Base: "#ffffff",
        QPalette.AlternateBase: "#f6f8fa", QPalette.Text: "#1f2328",
        QPalette.Button: "#f6f8fa", QPalette.ButtonText: "#1f2328",
        QPalette.Highlight: "#2f6fb3", QPalette.HighlightedText: "#ffffff",
        QPalette.ToolTipBase: "#ffffff", QPalette.ToolTipText: "#1f2328",
        QPalette.PlaceholderText: "#8c959f", QPalette.Link: "#2f6fb3",
    }
    for role, color in colors.items():
        pal.setColor(role, QColor(color))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        pal.setColor(QPalette.Disabled, role, QColor("#a0a7b0"))
    return pal


def apply_style(app: QApplication) -> None:
    """Fusion + light palette + the role style sheet."""
    app.setStyle("Fusion")
    app.setPalette(light_palette())
    app.setStyleSheet(STYLE_SHEET)
