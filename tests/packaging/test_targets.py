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
