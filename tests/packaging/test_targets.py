"""The bundle's per-platform choices (packaging/targets.py, read by gpusizer.spec), checked on
any machine: Windows gets a windowed "GPU Sizer.exe" and a console gpusizer-cli.exe, macOS a
"GPU Sizer.app" with its icon and an Info.plist (version, the .gpusizer.json document type),
Linux one program as before; each platform keeps its own Qt platform plugin."""

from __future__ import annotations

import plistlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import entry  # noqa: E402
import targets  # noqa: E402

from gpusizer._version import __version__  # noqa: E402
from gpusizer.io.scenario_file import SUFFIX  # noqa: E402


def test_windows_has_a_windowed_app_and_a_console_cli():
    progs = {p.name: p for p in targets.programs("win32")}
    assert set(progs) == {"GPU Sizer", "gpusizer-cli"}
    assert progs["GPU Sizer"].console is False and progs["GPU Sizer"].gui
    assert progs["gpusizer-cli"].console is True and not progs["gpusizer-cli"].gui
    dist = Path("dist")
    assert targets.program_path("win32", dist, gui=True) == dist / "gpusizer" / "GPU Sizer.exe"
    assert targets.program_path("win32", dist, gui=False) == dist / "gpusizer" / "gpusizer-cli.exe"
    assert targets.icon("win32", ROOT).endswith("gpusizer.ico")
    assert "qwindows.dll" in targets.keep_plugins("win32")["platforms"]


def test_entry_tells_the_two_windows_programs_apart():
    assert entry._is_cli([r"C:\GPU Sizer\gpusizer-cli.exe", "presets"]) == (True, ["presets"])
    assert entry._is_cli([r"C:\GPU Sizer\GPU Sizer.exe"]) == (False, [])
    assert entry._is_cli(["/Applications/GPU Sizer.app/Contents/MacOS/gpusizer-cli", "gpus"]) == (
        True,
        ["gpus"],
    )


def test_macos_app_bundle_with_icon_version_and_document_type(tmp_path):
    assert targets.app_bundle("darwin") == "GPU Sizer.app"
    assert targets.programs("darwin")[0].name == "GPU Sizer"  # CFBundleExecutable
    icon = targets.icon("darwin", ROOT)
    assert icon is not None and icon.endswith(".icns") and Path(icon).read_bytes()[:4] == b"icns"
    dist = Path("dist")
    assert targets.program_path("darwin", dist, gui=True) == dist / "GPU Sizer.app/Contents/MacOS/GPU Sizer"
    plist = targets.info_plist(__version__)
    plistlib.dumps(plist)  # a valid property list
    assert plist["CFBundleShortVersionString"] == __version__ == plist["CFBundleVersion"]
    doc = plist["CFBundleDocumentTypes"][0]
    exported = plist["UTExportedTypeDeclarations"][0]
    assert doc["LSItemContentTypes"] == [exported["UTTypeIdentifier"]]
    assert exported["UTTypeTagSpecification"]["public.filename-extension"] == [SUFFIX.lstrip(".")]
    assert "public.json" in exported["UTTypeConformsTo"]
    assert "libqcocoa.dylib" in targets.keep_plugins("darwin")["platforms"]


def test_linux_stays_one_program():
    assert [(p.name, p.console) for p in targets.programs("linux")] == [("gpusizer", True)]
    assert targets.app_bundle("linux") is None and targets.icon("linux", ROOT) is None
    dist = Path("dist")
    assert targets.program_path("linux", dist, gui=False) == dist / "gpusizer" / "gpusizer-cli"
    assert "libqxcb.so" in targets.keep_plugins("linux")["platforms"]
    assert targets.SIZE_LIMIT_MIB["linux"] == 195


@pytest.mark.parametrize("platform", ["linux", "win32", "darwin"])
def test_every_platform_keeps_offscreen_for_its_smoke_test(platform):
    names = targets.keep_plugins(platform)["platforms"]
    assert any("offscreen" in n for n in names)


def test_release_workflow_builds_and_smoke_tests_on_three_systems():
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    for runner in ("ubuntu-", "windows-", "macos-"):
        assert runner in text
    assert "packaging/gpusizer.spec" in text and "packaging/smoke_test.py" in text


def test_macos_app_is_not_background_only():
    """PyInstaller's BUNDLE writes LSBackgroundOnly=True when the last EXE of the COLLECT is a
    console program (gpusizer-cli here; PyInstaller building/osx.py), then merges the spec's
    info_plist over its defaults: the app's own entry must say False, or macOS starts it with no
    Dock icon and no menu bar. The built plist is read by smoke_test.py's plist_check on macOS."""
    assert targets.programs("darwin")[-1].console  # the case that triggers PyInstaller's default
    built = {"LSBackgroundOnly": True}  # what PyInstaller writes for a console EXE
    built.update(targets.info_plist(__version__))
    assert built["LSBackgroundOnly"] is False


def _icns_entries(data: bytes) -> dict[str, tuple[int, int]]:
    """The .icns entries' OSType -> (width, height) of their PNG (Apple Icon Image format)."""
    import struct

    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    entries, i = {}, 8
    while i < len(data):
        kind, length = data[i : i + 4].decode("ascii"), struct.unpack(">I", data[i + 4 : i + 8])[0]
        png = data[i + 8 : i + length]
        assert png[:8] == b"\x89PNG\r\n\x1a\n", kind
        entries[kind] = struct.unpack(">II", png[16:24])
        i += length
    return entries


def test_macos_icon_holds_every_size_finder_asks_for():
    entries = _icns_entries((ROOT / "resources" / "gpusizer.icns").read_bytes())
    want = {"icp4": 16, "icp5": 32, "icp6": 64, "ic07": 128, "ic08": 256, "ic09": 512, "ic10": 1024}
    want |= {"ic11": 32, "ic12": 64, "ic13": 256, "ic14": 512}  # the @2x entries
    assert entries == {kind: (px, px) for kind, px in want.items()}


def test_linux_desktop_entry_opens_scenario_files():
    """A double-click on NAME.gpusizer.json opens the app: the desktop entry names a MIME type
    that the shipped shared-mime-info file declares for that suffix (install-linux.sh installs
    it; smoke_test.sh checks the installed pair)."""
    import xml.etree.ElementTree as ET

    desktop = (ROOT / "resources" / "gpusizer.desktop").read_text(encoding="utf-8")
    mime_line = next(line for line in desktop.splitlines() if line.startswith("MimeType="))
    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    root = ET.parse(ROOT / "resources" / "gpusizer-mime.xml").getroot()
    kind = root.find("m:mime-type", ns)
    assert kind is not None and mime_line == f"MimeType={kind.get('type')};"
    globs = [g.get("pattern") for g in kind.findall("m:glob", ns)]
    assert globs == [f"*{SUFFIX}"]
    assert "Exec=gpusizer %f" in desktop  # the double-clicked file reaches the program
    build = (ROOT / "packaging" / "build.sh").read_text(encoding="utf-8")
    install = (ROOT / "packaging" / "install-linux.sh").read_text(encoding="utf-8")
    assert "gpusizer-mime.xml" in build and "mime/packages/gpusizer.xml" in install


def test_release_builds_use_pinned_dependencies_and_both_mac_architectures():
    """Release bundles are built from pinned versions, each within pyproject's range, and for
    Apple silicon and Intel Macs both."""
    import tomllib
    from packaging.requirements import Requirement

    workflow = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert "-c packaging/constraints-release.txt" in workflow
    assert "macos-14" in workflow and "macos-13" in workflow and "macos-x86_64" in workflow
    pins = {}
    for line in (ROOT / "packaging" / "constraints-release.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name.lower().replace("_", "-")] = version
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    needed = project["dependencies"] + project["optional-dependencies"]["package"]
    for spec in map(Requirement, needed):
        if spec.marker is not None and not spec.marker.evaluate({"python_version": "3.11"}):
            continue  # the release workflow builds with Python 3.11
        name = spec.name.lower().replace("_", "-")
        assert name in pins, f"{name} is not pinned for release builds"
        assert spec.specifier.contains(pins[name]), f"{name}=={pins[name]} outside {spec.specifier}"
