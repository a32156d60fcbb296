"""Test defaults: Qt renders offscreen (no display here), the calibration file is found."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# No compiled-code cache (gpusizer/code_cache.py) from the programs the tests start: nothing
# is written to the user's cache folder; tests/cli/test_code_cache.py gives it a folder.
os.environ.setdefault("GPUSIZER_CACHE_DIR", "")

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared/ folder beside the checkout (CI lays it there too)."""
    if not SHARED.is_dir():
        pytest.skip("shared/ is not beside this checkout")
    return SHARED


_EXIT: dict[str, int] = {}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _EXIT["status"] = int(exitstatus)


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave before interpreter teardown once Qt was loaded.

    PySide6 (6.11.3 measured: exit 139 in 3 of 3 runs of tests/gui without this) can crash
    while garbage-collecting Qt wrappers at interpreter shutdown, after every test has passed
    and the summary is printed: the teardown crash of shared/docs/qt-headless.md. Exiting here
    keeps pytest's real exit status.
    """
    import sys

    if hasattr(config, "workerinput"):
        # A pytest-xdist worker must not leave here: its results are still being sent to the
        # controller, and a worker that ends first is reported as crashed.
        return
    if "PySide6" in sys.modules and "status" in _EXIT:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_EXIT["status"])
