"""Render resources/gpusizer.svg to PNGs and copy the icon into the package.

Run after editing the SVG: ``python resources/render_icons.py``. The PNGs in
``src/gpusizer/gui/resources/`` are what the app loads (installed or frozen, no SVG plugin
needed); ``resources/icons/`` holds the sizes desktop integration (hicolor theme) wants.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt  # noqa: E402 (the platform must be chosen before Qt loads)
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "src" / "gpusizer" / "gui" / "resources"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
PACKAGED = (16, 24, 32, 48, 64, 128, 256)


def render(svg: Path, size: int, out: Path) -> None:
    image = QImage(size, size, QImage.Format_ARGB32_Premultiplied)
    image.fill(Qt.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    if not image.save(str(out)):
        raise OSError(f"cannot write {out}")


def main() -> int:
    _app = QGuiApplication(sys.argv)
    svg = HERE / "gpusizer.svg"
    (HERE / "icons").mkdir(exist_ok=True)
    PACKAGE.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        out = HERE / "icons" / f"gpusizer-{size}.png"
        render(svg, size, out)
        if size in PACKAGED:
            shutil.copyfile(out, PACKAGE / out.name)
    shutil.copyfile(svg, PACKAGE / "gpusizer.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
