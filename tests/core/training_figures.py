"""Published training-speed figures (tests/core/data/speed-figures-training*.json) replayed
through the step model: what tests/core/test_training_speed.py (dense),
test_training_speed_moe.py (mixture of experts) and test_training_speed_blackwell.py (Blackwell
and FP8) share.

Each record names its source, quotes the printed line, states the settings it was run with and
gives the run as a GPU Sizer ``scenario``; ``metrics`` holds tokens/s per GPU or MFU.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.report import estimate_report

DATA = Path(__file__).parent / "data"


def load(name: str) -> list[dict[str, Any]]:
    """The records of one figures file in tests/core/data."""
    records: list[dict[str, Any]] = json.loads((DATA / name).read_text())
    return records


def predicted(record: dict[str, Any]) -> tuple[float, float]:
    """(predicted, published) for the record's speed figure: tokens/s per GPU, else MFU."""
    rep = estimate_report(record["scenario"])
    m = record["metrics"]
    if "tokens_per_s_per_gpu" in m:
        return rep["compute"]["tokens_per_second_per_gpu"], m["tokens_per_s_per_gpu"]
    return rep["compute"]["model_flops_utilization"], m["mfu"]


def ratios(records: list[dict[str, Any]]) -> dict[str, float]:
    """GPU Sizer / published speed, per record id."""
    return {r["id"]: (lambda p: p[0] / p[1])(predicted(r)) for r in records}


def off(ratio: float) -> float:
    """How far off a ratio is, as a factor >= 1."""
    return max(ratio, 1 / ratio)


def states_its_figure(record: dict[str, Any]) -> bool:
    """A record carries its source, printed line, settings and scenario."""
    return all(record.get(k) for k in ("source", "quote", "settings", "scenario"))
