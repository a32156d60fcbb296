"""Replay helpers for published training speeds (tests/core/data/speed-figures-training*.json):
each record names its source, quotes the printed line, states the settings it was run with and
gives ``scenario``, that run as a GPU Sizer scenario; ``metrics`` holds the published figure
(tokens/s per GPU, else MFU). Used by test_training_speed.py (torchtitan, fms-fsdp, Megatron-LM
on A100/H100/H200) and test_training_speed_blackwell.py (Megatron-Bridge on H100, B200, GB200,
GB300 in FP8 and MXFP8). ``python -m tests.core.speed_figures_training FILE`` prints the ratios.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.report import estimate_report

DATA = Path(__file__).parent / "data"


def load_records(name: str) -> list[dict[str, Any]]:
    """The records of ``tests/core/data/<name>``."""
    records: list[dict[str, Any]] = json.loads((DATA / name).read_text())
    return records


def predicted(record: dict[str, Any]) -> tuple[float, float]:
    """(predicted, published) for the record's speed figure: tokens/s per GPU, else MFU."""
    rep = estimate_report(record["scenario"])
    m = record["metrics"]
    if "tokens_per_s_per_gpu" in m:
        return rep["compute"]["tokens_per_second_per_gpu"], m["tokens_per_s_per_gpu"]
    return rep["compute"]["model_flops_utilization"], m["mfu"]


def off(ratio: float) -> float:
    """How far off a ratio is, as a factor >= 1."""
    return max(ratio, 1 / ratio)


def ratios(records: list[dict[str, Any]]) -> dict[str, float]:
    """GPU Sizer / published, by record id."""
    return {r["id"]: (lambda p: p[0] / p[1])(predicted(r)) for r in records}


def within(by_id: dict[str, float], tolerance: float) -> list[str]:
    """The records whose ratio is within ``tolerance`` of 1."""
    return [k for k, v in by_id.items() if abs(v - 1) <= tolerance]


if __name__ == "__main__":  # pragma: no cover - a table for docs/evidence/speed.md
    for key, value in ratios(load_records(sys.argv[1])).items():
        print(f"{value:5.2f}  {key}")
