"""The window starts and paints its first frame, then a probed run exits 0 (no teardown crash)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_first_frame_probe_exits_cleanly(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "GPUSIZER_STARTUP_PROBE": "1",
        "GPUSIZER_SETTINGS_DIR": str(tmp_path),
    }
    for _ in range(3):  # the teardown crash showed up in about half the runs when present
        proc = subprocess.run(
            [sys.executable, "-m", "gpusizer.gui.app"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "first frame" in proc.stdout
