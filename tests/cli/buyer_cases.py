"""The buyer cases of tests/cli/data/buyer, read as the buyer-review rounds read them: a case's
scenario without its display name, and ``compare_gpus`` rows keyed by GPU id."""

from __future__ import annotations

import json
from functools import cache
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


@cache
def compared(name: str) -> tuple[dict[str, Any], ...]:
    """``compare_gpus`` of the case as filed over the whole catalog, computed once per test
    process: several tests, in one file or several, read the same catalog compare (a case's
    "answers" check and a finding's check on its rows), one of a heavy case 5-50 s of CPU on the
    2-core machine, and the estimator's bounded memos (core/memo.py) need not still hold it. The
    rows are shared: a test reads them and never changes them (copy first)."""
    return tuple(gpusizer.compare_gpus(case(name)))
