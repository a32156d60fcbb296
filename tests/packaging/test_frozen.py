"""The frozen bundle (PyInstaller) works with no Python around: slow, so CI and opt-in only.

Runs in CI (``CI=true``) and with ``GPUSIZER_TEST_FROZEN=1 pytest -m slow tests/packaging``;
it builds dist/gpusizer when missing (GPUSIZER_TEST_FROZEN_REBUILD=1 forces a fresh build)
and runs packaging/smoke_test.sh.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "smoke_test.sh"


RUN_FROZEN = os.environ.get("GPUSIZER_TEST_FROZEN") == "1" or os.environ.get("CI") == "true"


@pytest.mark.skipif(
    not RUN_FROZEN, reason="frozen-bundle test (~1 min): runs in CI, or set GPUSIZER_TEST_FROZEN=1"
)
@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux bundle only")
def test_smoke_test_script_passes() -> None:
    assert shutil.which("bash"), "bash needed"
    args = ["bash", str(SCRIPT)]
    if os.environ.get("GPUSIZER_TEST_FROZEN_REBUILD") == "1":
        args.append("--rebuild")
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=1800)
    print(proc.stdout)
    print(proc.stderr, file=sys.stderr)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "SMOKE TEST PASSED" in proc.stdout
    # The portable smoke test the release workflow runs on every system (packaging/smoke_test.py)
    portable = subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "smoke_test.py"), str(ROOT / "dist")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    print(portable.stdout)
    assert portable.returncode == 0, portable.stdout[-4000:] + portable.stderr[-4000:]
    assert "SMOKE TEST PASSED" in portable.stdout


def test_entry_dispatch() -> None:
    """packaging/entry.py: argv[0] basename 'gpusizer-cli' or a first argument 'cli' -> the CLI."""
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import entry
    finally:
        sys.path.pop(0)
    assert entry._is_cli(["/x/gpusizer-cli", "presets"]) == (True, ["presets"])
    assert entry._is_cli(["/x/gpusizer", "cli", "gpus"]) == (True, ["gpus"])
    assert entry._is_cli(["/x/gpusizer", "--screenshot", "a.png"]) == (False, ["--screenshot", "a.png"])
