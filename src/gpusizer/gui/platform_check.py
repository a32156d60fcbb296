"""Before the window starts on Linux/X11: are the libraries Qt's xcb platform plugin loads
there? Without them Qt prints "could not load the Qt platform plugin" and aborts with a core
dump; this says, in one line, which packages to install (``libxcb-cursor0`` is missing on
many Ubuntu installs), and the app exits 1 instead.

The sonames are the DT_NEEDED entries of PySide6's ``plugins/platforms/libqxcb.so`` and
``lib/libQt6XcbQpa.so.6`` (readelf -d, PySide6 6.11), as listed in the Qt docs "Qt for X11
Requirements" (https://doc.qt.io/qt-6/linux-requirements.html); the packages are Debian's and
Ubuntu's names for them. No Python, no Qt is needed to run this module's check.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

EXIT_NO_PLATFORM = 1

XCB_LIBRARIES: dict[str, str] = {  # soname -> Debian/Ubuntu package
    "libxcb.so.1": "libxcb1",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
}

# Never bundled: PyInstaller leaves libxcb itself to the system on purpose (its ABI must match
# the X server's libraries; PyInstaller/depend/dylib.py exclude list), and every X11 desktop
# has it.
SYSTEM_ONLY = frozenset({"libxcb.so.1"})


def bundle_dir() -> Path | None:
    """The frozen bundle's folder of libraries (PyInstaller), None when not frozen."""
    base = getattr(sys, "_MEIPASS", None)
    return Path(base) if base else None


@cache
def library_names(folder: Path) -> frozenset[str]:
    """The file names of the shared libraries anywhere under ``folder`` (one walk)."""
    return frozenset(p.name for p in folder.rglob("*.so*"))


def loadable(soname: str) -> bool:
    """Whether the dynamic loader finds ``soname`` (the bundle's copy first, when frozen)."""
    folder = bundle_dir()
    if folder is not None and soname in library_names(folder):
        return True
    try:
        ctypes.CDLL(soname)
    except OSError:
        return False
    return True


def uses_xcb(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Whether Qt will load the xcb plugin: Linux with an X display and no other platform
    chosen (a Wayland session tries Wayland first)."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "")
    if chosen:
        return chosen.split(";")[0].split(":")[0] == "xcb"
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE") == "wayland":
        return False
    return bool(env.get("DISPLAY"))


def missing_xcb_libraries(found: Callable[[str], bool] | None = None) -> list[str]:
    """The sonames of :data:`XCB_LIBRARIES` that cannot be loaded (``found``: the test of one
    soname, :func:`loadable` by default)."""
    test = found or loadable
    return [so for so in XCB_LIBRARIES if not test(so)]


def missing_message(missing: list[str]) -> str:
    """One line: what is missing and the command that installs it."""
    packages = " ".join(dict.fromkeys(XCB_LIBRARIES[so] for so in missing))
    return (
        f"gpusizer: cannot open the window: Qt's X11 (xcb) platform needs {', '.join(missing)}"
        f" — install them with: sudo apt install {packages} (Debian/Ubuntu; other systems: "
        "the packages holding these files), or use gpusizer-cli"
    )


NO_DISPLAY = (
    "gpusizer: no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set). "
    "Run it in a desktop session; headless, render the window with: gpusizer --screenshot "
    "OUT.png [--scenario F] (or set QT_QPA_PLATFORM=offscreen), or use gpusizer-cli"
)


def no_display(environ: dict[str, str] | os._Environ[str] | None = None) -> bool:
    """Whether Qt would find no display to open a window on: Linux, no X display and no
    Wayland one for the platform Qt picks. Qt then prints "could not connect to display" and
    aborts (SIGABRT, exit 134, a core dump); a platform set explicitly to another
    plugin (offscreen, vnc...) is its user's choice."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return False
    chosen = env.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0]
    if chosen == "wayland":
        return not env.get("WAYLAND_DISPLAY")
    if chosen in ("", "xcb"):
        return not env.get("DISPLAY") and not (chosen == "" and env.get("WAYLAND_DISPLAY"))
    return False


def check_platform(found: Callable[[str], bool] | None = None) -> str:
    """ "" when the window can start here, else the one-line reason."""
    if no_display():
        return NO_DISPLAY
    if not uses_xcb():
        return ""
    missing = missing_xcb_libraries(found)
    return missing_message(missing) if missing else ""


def bundle_report(folder: Path) -> tuple[list[str], list[str]]:
    """(present, missing) sonames a frozen bundle must carry, in its folder (the smoke test's
    check; :data:`SYSTEM_ONLY` libraries are not expected there)."""
    wanted = [so for so in XCB_LIBRARIES if so not in SYSTEM_ONLY]
    present = [so for so in wanted if so in library_names(folder)]
    return present, [so for so in wanted if so not in present]
