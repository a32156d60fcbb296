"""Test defaults: Qt renders offscreen (no display here), the calibration file is found."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared/ folder beside the checkout (CI lays it there too)."""
    if not SHARED.is_dir():
        pytest.skip("shared/ is not beside this checkout")
    return SHARED
