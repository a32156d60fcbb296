"""What the bundle is on each platform: its programs, icon, Qt plugins and macOS app settings.

Read by packaging/gpusizer.spec (PyInstaller), packaging/smoke_test.py and the release workflow;
tested in tests/packaging/test_targets.py, so the choices for Windows and macOS are checked on
a Linux machine too. ``platform`` is a ``sys.platform`` value ("linux", "win32", "darwin").

- Linux: one program, ``gpusizer``, a terminal program that opens the window or, called as
  ``gpusizer-cli`` (a symlink build.sh adds) or ``gpusizer cli ...``, runs the CLI
  (packaging/entry.py); install-linux.sh adds the menu entry.
- Windows: a windowed ``GPU Sizer.exe`` (no console window beside it: PyInstaller
  ``console=False``) and a console ``gpusizer-cli.exe``, both in one folder with one copy of
  the libraries (two EXEs in one COLLECT; entry.py tells them apart by name).
- macOS: ``GPU Sizer.app`` (PyInstaller ``BUNDLE``) holding the windowed ``GPU Sizer`` and the
  terminal ``gpusizer-cli`` in Contents/MacOS, with the .icns icon and an Info.plist giving the
  version and the ``.gpusizer.json`` document type (Apple, "CFBundleDocumentTypes" and
  "UTExportedTypeDeclarations", Information Property List reference), so Finder opens scenario
  files with the app (gui/app.py handles the resulting QFileOpenEvent).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

APP_NAME = "GPU Sizer"
BUNDLE_ID = "io.github.gpusizer"
DOCUMENT_EXTENSION = "gpusizer.json"  # scenario files (io/scenario_file.SUFFIX without the dot)
DOCUMENT_TYPE = f"{BUNDLE_ID}.scenario"
COLLECT_NAME = "gpusizer"  # dist/gpusizer/: the one-folder bundle on every platform
SIZE_LIMIT_MIB = {"linux": 195, "win32": 260, "darwin": 300}  # the smoke test's ceiling (du -sh)


@dataclass(frozen=True)
class Program:
    """One executable of the bundle: its file name (no ``.exe``) and whether it is a terminal
    program (``console``) or a windowed one."""

    name: str
    console: bool
    gui: bool  # starts the window when run without arguments


def programs(platform: str) -> list[Program]:
    """The executables of the bundle, the window's first."""
    if platform in ("win32", "darwin"):
        return [Program(APP_NAME, console=False, gui=True), Program("gpusizer-cli", console=True, gui=False)]
    return [Program("gpusizer", console=True, gui=True)]


def exe_suffix(platform: str) -> str:
    return ".exe" if platform == "win32" else ""


def icon(platform: str, root: Path) -> str | None:
    """The program icon PyInstaller embeds (Linux: the desktop entry's, installed apart)."""
    name = {"win32": "gpusizer.ico", "darwin": "gpusizer.icns"}.get(platform)
    return str(root / "resources" / name) if name else None


def app_bundle(platform: str) -> str | None:
    """The macOS application bundle's name; None where there is none."""
    return f"{APP_NAME}.app" if platform == "darwin" else None


def program_dir(platform: str, dist: Path) -> Path:
    """Where the built programs are: dist/gpusizer, or inside the .app on macOS."""
    bundle = app_bundle(platform)
    return dist / bundle / "Contents" / "MacOS" if bundle else dist / COLLECT_NAME


def program_path(platform: str, dist: Path, gui: bool) -> Path:
    """The window's program (``gui``) or the command line's (Linux: the gpusizer-cli link)."""
    if platform not in ("win32", "darwin") and not gui:
        return program_dir(platform, dist) / "gpusizer-cli"
    prog = next(p for p in programs(platform) if p.gui == gui)
    return program_dir(platform, dist) / (prog.name + exe_suffix(platform))


def keep_plugins(platform: str) -> dict[str, set[str]]:
    """Qt plugins kept, by group (the rest are dropped). The style is Fusion everywhere
    (gui/style.py), so no platform style plugin; PNG is built into QtGui."""
    if platform == "win32":
        return {
            "platforms": {"qwindows.dll", "qoffscreen.dll", "qminimal.dll"},
            "imageformats": {"qsvg.dll"},
            "iconengines": {"qsvgicon.dll"},
        }
    if platform == "darwin":
        return {
            "platforms": {"libqcocoa.dylib", "libqoffscreen.dylib", "libqminimal.dylib"},
            "imageformats": {"libqsvg.dylib"},
            "iconengines": {"libqsvgicon.dylib"},
        }
    return {
        "platforms": {"libqxcb.so", "libqoffscreen.so", "libqminimal.so"},
        "imageformats": {"libqsvg.so"},
        "iconengines": {"libqsvgicon.so"},
        "xcbglintegrations": {"libqxcb-glx-integration.so", "libqxcb-egl-integration.so"},
        "platforminputcontexts": {"libcomposeplatforminputcontextplugin.so"},
        "platformthemes": {"libqxdgdesktopportal.so"},
    }


def info_plist(version: str) -> dict[str, Any]:
    """The macOS Info.plist entries: version, high-DPI, and the scenario document type."""
    return {
        "CFBundleName": APP_NAME,
        "CFBundleDisplayName": APP_NAME,
        "CFBundleShortVersionString": version,
        "CFBundleVersion": version,
        "NSHighResolutionCapable": True,
        # PyInstaller's BUNDLE takes its console flag from the last EXE of the COLLECT (here the
        # terminal gpusizer-cli) and then writes LSBackgroundOnly=True, which starts the app with
        # no Dock icon and no menu bar (PyInstaller building/osx.py); this dict is merged after
        # its defaults, so the window's app states it.
        "LSBackgroundOnly": False,
        "LSMinimumSystemVersion": "11.0",
        "NSHumanReadableCopyright": "MIT licence",
        "CFBundleDocumentTypes": [
            {
                "CFBundleTypeName": "GPU Sizer scenario",
                "CFBundleTypeRole": "Editor",
                "LSHandlerRank": "Owner",
                "LSItemContentTypes": [DOCUMENT_TYPE],
                "CFBundleTypeIconFile": "gpusizer.icns",
            },
            {  # Launch Services may key a two-part extension on "json" alone: Open With still works
                "CFBundleTypeName": "JSON document",
                "CFBundleTypeRole": "Viewer",
                "LSHandlerRank": "Alternate",
                "LSItemContentTypes": ["public.json"],
            },
        ],
        "UTExportedTypeDeclarations": [
            {
                "UTTypeIdentifier": DOCUMENT_TYPE,
                "UTTypeDescription": "GPU Sizer scenario",
                "UTTypeConformsTo": ["public.json", "public.data"],
                "UTTypeTagSpecification": {"public.filename-extension": [DOCUMENT_EXTENSION]},
            }
        ],
    }
