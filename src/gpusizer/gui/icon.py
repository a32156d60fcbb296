"""The app icon, from PNGs packaged in ``gpusizer.gui.resources`` (no SVG plugin needed)."""

from __future__ import annotations

from importlib import resources

from PySide6.QtGui import QIcon, QPixmap

SIZES = (16, 24, 32, 48, 64, 128, 256)


def app_icon() -> QIcon:
    """The icon at every packaged size; an empty icon if the files are missing."""
    icon = QIcon()
    folder = resources.files("gpusizer.gui.resources")
    for size in SIZES:
        entry = folder.joinpath(f"gpusizer-{size}.png")
        if not entry.is_file():
            continue
        pix = QPixmap()
        if pix.loadFromData(entry.read_bytes(), "PNG"):
            icon.addPixmap(pix)
    return icon
