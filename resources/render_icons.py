"""Render resources/gpusizer.svg (the one master of the icon) into the package's PNGs.

Run after editing the SVG: ``python resources/render_icons.py``. The PNGs in
``src/gpusizer/gui/resources/`` are what the app loads (installed or frozen, no SVG plugin
needed) and what packaging/build.sh installs for desktop integration (hicolor sizes); the
Windows .ico and macOS .icns are written beside the SVG.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "src" / "gpusizer" / "gui" / "resources"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # Windows: the .exe icon (PyInstaller's icon=)
# macOS: every size Finder and the Dock ask for, as PNG entries keyed by their OSType (Apple
# Icon Image format: icp4/icp5/icp6 16-64 px, ic07-ic10 128-1024 px, ic11-ic14 the @2x of
# 16-256 pt); a .icns with one size looks blurred in the Dock and in Finder's list view.
ICNS_TYPES = (
    ("icp4", 16), ("icp5", 32), ("icp6", 64), ("ic07", 128), ("ic08", 256), ("ic09", 512),
    ("ic10", 1024), ("ic11", 32), ("ic12", 64), ("ic13", 256), ("ic14", 512),
)


def render(svg: Path, size: int, out: Path) -> None:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    QSvgRenderer(str(svg)).render(painter)
    painter.end()
    if not image.save(str(out)):
        raise OSError(f"cannot write {out}")


def write_ico(pngs: list[tuple[int, bytes]], out: Path) -> None:
    """A multi-size .ico with PNG-compressed entries (Windows Vista+): header, directory,
    images. Qt's ICO writer stores a single size, hence this small writer."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    directory, blobs = b"", b""
    for size, data in pngs:
        dim = 0 if size >= 256 else size  # 0 means 256 in the ICO directory
        directory += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    out.write_bytes(header + directory + blobs)


def write_icns(pngs: dict[int, bytes], out: Path) -> None:
    """A .icns of PNG entries: the ``icns`` magic and the file's length, then per entry its
    OSType, its length (header included) and the PNG (big-endian lengths)."""
    body = b"".join(
        kind.encode("ascii") + struct.pack(">I", 8 + len(pngs[size])) + pngs[size]
        for kind, size in ICNS_TYPES
    )
    out.write_bytes(b"icns" + struct.pack(">I", 8 + len(body)) + body)


def main() -> int:
    _app = QGuiApplication(sys.argv)
    svg = HERE / "gpusizer.svg"
    PACKAGE.mkdir(parents=True, exist_ok=True)
    for size in SIZES:
        render(svg, size, PACKAGE / f"gpusizer-{size}.png")
    write_ico([(n, (PACKAGE / f"gpusizer-{n}.png").read_bytes()) for n in ICO_SIZES],
              HERE / "gpusizer.ico")
    icns_sizes = sorted({size for _, size in ICNS_TYPES})
    pngs: dict[int, bytes] = {}
    for size in icns_sizes:  # 1024 px is drawn for the .icns only, not shipped in the package
        out = HERE / f".icns-{size}.png"
        render(svg, size, out)
        pngs[size] = out.read_bytes()
        out.unlink()
    write_icns(pngs, HERE / "gpusizer.icns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
