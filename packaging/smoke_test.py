"""Portable smoke test of a built bundle, for Linux, Windows and macOS alike (the release
workflow runs it on each; packaging/smoke_test.sh adds the Linux-only checks: no Python on
PATH, the X11 libraries, install-linux.sh).

    python packaging/smoke_test.py [DIST]        (DIST: the PyInstaller dist folder, default dist)

Checks, each one line "ok ..." or "FAIL ...", exit 0 when all pass:
  - the command line: --version matches the bundle's VERSION, presets (the bundled data is
    found), estimate of a scenario (text and --json), bad input -> exit 2;
  - the window: ``--screenshot OUT.png`` offscreen -> exit 0 and a PNG of the window's size;
  - the size of the bundle, at most targets.SIZE_LIMIT_MIB for the platform.
The programs run with a clean environment (no PYTHONPATH, no virtual environment) from a
temporary folder, so nothing is imported from a source tree.
"""

from __future__ import annotations

import json
import os
import plistlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import targets

SCENARIO = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
SHOT_SIZE = (1280, 720)


def clean_env(home: Path) -> dict[str, str]:
    """The platform's essentials only, headless Qt, a private settings folder."""
    keep = ("PATH", "SYSTEMROOT", "WINDIR", "TEMP", "TMP", "LANG", "TMPDIR", "COMSPEC")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(QT_QPA_PLATFORM="offscreen", HOME=str(home), USERPROFILE=str(home), APPDATA=str(home))
    env["GPUSIZER_SETTINGS_DIR"] = str(home / "settings")
    return env


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)


def package_version() -> str:
    """The version the bundle was built from (src/gpusizer/_version.py, the one source)."""
    text = (Path(__file__).resolve().parents[1] / "src" / "gpusizer" / "_version.py").read_text(
        encoding="utf-8"
    )
    return re.search(r"__version__\s*=\s*[\"']([^\"']+)", text).group(1)  # type: ignore[union-attr]


def png_size(path: Path) -> tuple[int, int] | None:
    """(width, height) from a PNG's header; None when the file is not a PNG."""
    try:
        head = path.read_bytes()[:24]
    except OSError:
        return None
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", head[16:24])


def folder_mib(folder: Path) -> float:
    """The files' bytes in MiB (what ``du -sh`` reports as M), links not followed."""
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink()) / 2**20


class Smoke:
    """Runs the checks against ``dist`` for ``platform``; ``fails`` counts the failures."""

    def __init__(self, dist: Path, platform: str = sys.platform) -> None:
        self.dist, self.platform, self.fails = dist.resolve(), platform, 0
        self.tmp = Path(tempfile.mkdtemp(prefix="gpusizer-smoke-"))
        (self.tmp / "home").mkdir()
        self.env = clean_env(self.tmp / "home")
        self.cli = str(targets.program_path(platform, self.dist, gui=False))
        self.gui = str(targets.program_path(platform, self.dist, gui=True))

    def check(self, ok: bool, what: str, detail: str = "") -> None:
        print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}", flush=True)
        self.fails += not ok

    def cli_checks(self) -> None:
        version = run([self.cli, "--version"], self.tmp, self.env)
        want = package_version()
        out = (version.stdout + version.stderr).strip()
        self.check(version.returncode == 0 and want in out, "gpusizer-cli --version", out[:200])
        presets = run([self.cli, "presets"], self.tmp, self.env)
        self.check(
            presets.returncode == 0 and "llama-3.1-8b" in presets.stdout,
            "gpusizer-cli presets",
            f"{len(presets.stdout.splitlines())} presets"
            if presets.returncode == 0
            else presets.stderr[:400],
        )
        scenario = self.tmp / "plan.gpusizer.json"
        scenario.write_text(json.dumps(SCENARIO), encoding="utf-8")
        text = run([self.cli, "estimate", str(scenario)], self.tmp, self.env)
        self.check(text.returncode == 0 and "GiB" in text.stdout, "gpusizer-cli estimate", text.stderr[:400])
        js = run([self.cli, "estimate", str(scenario), "--json"], self.tmp, self.env)
        try:
            fits = json.loads(js.stdout).get("fits")
        except ValueError:
            fits = None
        self.check(
            js.returncode == 0 and isinstance(fits, bool), "gpusizer-cli estimate --json", js.stderr[:400]
        )
        bad = self.tmp / "bad.json"
        bad.write_text('{"model": {"preset": "no-such-model"}}', encoding="utf-8")
        refused = run([self.cli, "estimate", str(bad)], self.tmp, self.env)
        lines = refused.stderr.strip().splitlines()
        self.check(
            refused.returncode == 2 and len(lines) == 1, "bad input -> exit 2, one line", refused.stderr[:300]
        )

    def gui_checks(self, repeat: int = 2) -> None:
        for i in range(repeat):  # a crash at exit shows in some runs only
            shot = self.tmp / f"shot{i}.png"
            size = f"{SHOT_SIZE[0]}x{SHOT_SIZE[1]}"
            proc = run([self.gui, "--screenshot", str(shot), "--size", size], self.tmp, self.env)
            got = png_size(shot)
            logged = "Traceback" in proc.stdout + proc.stderr
            self.check(
                proc.returncode == 0 and got == SHOT_SIZE and not logged,
                f"window --screenshot (run {i + 1})",
                f"{got}, rc {proc.returncode}" + (f": {(proc.stdout + proc.stderr)[:600]}" if logged else ""),
            )

    def run_all(self) -> int:
        """Every check in turn; 0 when all pass."""
        for name in (self.cli, self.gui):
            self.check(Path(name).is_file(), "program present", name)
        if self.fails:
            return 1
        self.cli_checks()
        self.gui_checks()
        self.size_check()
        self.plist_check()
        print("SMOKE TEST PASSED" if not self.fails else f"SMOKE TEST FAILED ({self.fails})")
        return 0 if not self.fails else 1

    def plist_check(self) -> None:
        """macOS: the built Info.plist keeps the window's app in the Dock (LSBackgroundOnly
        false) and names the scenario document type."""
        bundle = targets.app_bundle(self.platform)
        if not bundle:
            return
        with (self.dist / bundle / "Contents" / "Info.plist").open("rb") as fh:
            plist = plistlib.load(fh)
        self.check(plist.get("LSBackgroundOnly") is False, "Info.plist LSBackgroundOnly is false")
        self.check("CFBundleDocumentTypes" in plist, "Info.plist names the scenario document type")

    def size_check(self) -> None:
        bundle = targets.app_bundle(self.platform)
        folder = self.dist / bundle if bundle else self.dist / targets.COLLECT_NAME
        mib, limit = folder_mib(folder), targets.SIZE_LIMIT_MIB.get(self.platform, 300)
        self.check(mib <= limit, f"bundle size {mib:,.0f} MiB (at most {limit} MiB)", str(folder))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    smoke = Smoke(Path(args[0] if args else "dist"))
    try:
        return smoke.run_all()
    finally:  # the temporary home and screenshots go, whatever happened
        shutil.rmtree(smoke.tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
