"""The buyer cases of tests/cli/data/buyer, read as the buyer-review rounds read them: a case's
scenario without its display name, and ``compare_gpus`` rows keyed by GPU id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import gpusizer

DATA = Path(__file__).parent / "data" / "buyer"


def case(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{name}.gpusizer.json").read_text())
    data.pop("name", None)
    return data


def rows(data: dict[str, Any], *gpus: str) -> dict[str, dict[str, Any]]:
    return {o["gpu"]: o for o in gpusizer.compare_gpus(data, gpus=list(gpus))}
