"""The report's bands: each figure's range from its regime's evidence (core/evidence/bands.py),
and the ``evidence`` block that says how sure it is (scenario-format.md "Evidence and bands")."""

from __future__ import annotations

from typing import Any

from ..model.result import Estimate
from .bands import Band
from .confidence import Evidence, memory_evidence, speed_evidence


def estimate_evidence(est: Estimate) -> tuple[Evidence, Evidence]:
    """(memory, speed) evidence of an estimate."""
    return memory_evidence(est.scenario, est.gpu), speed_evidence(est.scenario, est.gpu)


def _pair(r: tuple[float, float] | None, whole: bool = False) -> list[float] | None:
    if r is None:
        return None
    return [round(r[0]), round(r[1])] if whole else [r[0], r[1]]


def add_ranges(report: dict[str, Any], est: Estimate) -> None:
    """Add ``per_gpu.total_range`` (bytes), ``serving.tokens_per_second_range``,
    ``serving.tokens_per_second_per_user_range``, ``serving.ttft_seconds_range``,
    ``compute.time_seconds_range`` (each [lower, upper], null where the regime has no band)
    and the ``evidence`` block to a report dict."""
    mem, speed = estimate_evidence(est)
    report["per_gpu"]["total_range"] = _pair(mem.band.size_range(est.memory.total), whole=True)
    t = est.compute.time_seconds
    report["compute"]["time_seconds_range"] = _pair(speed.band.time_range(t)) if t else None
    sv = report.get("serving")
    if sv is not None:
        add_serving_ranges(sv, speed.band)
    report["evidence"] = {**mem.as_dict(), "speed": speed.as_dict()}


def evidence_block(est: Estimate) -> dict[str, Any]:
    """The report's ``evidence`` block of an estimate."""
    mem, speed = estimate_evidence(est)
    return {**mem.as_dict(), "speed": speed.as_dict()}


def add_serving_ranges(sv: dict[str, Any], b: Band) -> None:
    """Add the speed band's ranges to a ``serving`` block dict."""
    sv["tokens_per_second_range"] = _pair(b.size_range(sv["tokens_per_second"]))
    sv["tokens_per_second_per_user_range"] = _pair(b.size_range(sv["tokens_per_second_per_user"]))
    sv["ttft_seconds_range"] = _pair(b.time_range(sv["ttft_seconds"]))
    sv["tpot_seconds_range"] = _pair(b.time_range(sv["tpot_seconds"]))
