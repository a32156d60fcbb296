"""The report's bands: each figure's range from its regime's evidence (core/evidence/bands.py),
and the ``evidence`` block that says how sure it is (scenario-format.md "Evidence and bands")."""

from __future__ import annotations

from typing import Any

from ..model.result import Estimate
from .bands import Band
from .confidence import Evidence, memory_evidence, speed_evidence
from .derived import add_derived

_SEEN: dict[tuple[Any, ...], tuple[Evidence, Evidence, dict[str, Any]]] = {}


def _cached(est: Estimate) -> tuple[Evidence, Evidence, dict[str, Any]]:
    """(memory, speed, the ``evidence`` block) of an estimate, kept per what places a scenario
    in its regimes (the report asks once per estimate: 48 us a call before it was kept)."""
    s, g = est.scenario, est.gpu
    key = (
        s.framework, s.workload.kind, s.parallelism.zero_stage, g.id, g.vendor, g.unified_memory,
        s.model.name, s.model.moe is not None, s.serving.load, s.serving.concurrency, s.workload.batch_size,
        s.serving.engine_version, g.name, s.rl.placement if s.rl else None,
    )  # fmt: skip
    hit = _SEEN.get(key)
    if hit is None:
        if len(_SEEN) > 4096:
            _SEEN.clear()
        mem, speed = memory_evidence(s, g), speed_evidence(s, g)
        hit = _SEEN[key] = (mem, speed, {**mem.as_dict(), "speed": speed.as_dict()})
    return hit


def estimate_evidence(est: Estimate) -> tuple[Evidence, Evidence]:
    """(memory, speed) evidence of an estimate."""
    mem, speed, _ = _cached(est)
    return mem, speed


def _pair(r: tuple[float, float] | None, whole: bool = False) -> list[float] | None:
    if r is None:
        return None
    return [round(r[0]), round(r[1])] if whole else [r[0], r[1]]


def add_ranges(report: dict[str, Any], est: Estimate) -> None:
    """Add ``per_gpu.total_range`` (bytes), ``serving.tokens_per_second_range``,
    ``serving.tokens_per_second_per_user_range``, ``serving.ttft_seconds_range``,
    ``compute.time_seconds_range`` (each [lower, upper], null where the regime has no band)
    and the ``evidence`` block to a report dict. RL post-training: ``rl.time_per_step_seconds_range``
    and ``rl.run_seconds_range`` from its step band, and no ``compute.time_seconds_range`` (its
    compute block times the policy's training phase alone, a part of the step the band is of)."""
    mem, speed, block = _cached(est)
    report["per_gpu"]["total_range"] = _pair(mem.band.size_range(est.memory.total), whole=True)
    t = est.compute.time_seconds
    rl = report.get("rl")
    report["compute"]["time_seconds_range"] = _pair(speed.band.time_range(t)) if t and rl is None else None
    if rl is not None:  # a copy: the estimate's own block is kept (core/memo.py)
        report["rl"] = {
            **rl,
            "time_per_step_seconds_range": _pair(speed.band.time_range(rl["time_per_step_seconds"])),
            "run_seconds_range": _pair(speed.band.time_range(rl["run_seconds"])),
        }
    sv = report.get("serving")
    if sv is not None:
        add_serving_ranges(sv, speed.band)
    add_derived(report, speed.band, est.capacity_bytes)  # costs, p99, P/D pools, fit at the band's ends
    report["evidence"] = evidence_block(est, block)


def evidence_block(est: Estimate, block: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report's ``evidence`` block of an estimate (a copy: a caller may mark it)."""
    block = block or _cached(est)[2]
    return {**block, "speed": dict(block["speed"])}


def add_serving_ranges(sv: dict[str, Any], b: Band) -> None:
    """Add the speed band's ranges to a ``serving`` block dict."""
    sv["tokens_per_second_range"] = _pair(b.size_range(sv["tokens_per_second"]))
    sv["tokens_per_second_per_user_range"] = _pair(b.size_range(sv["tokens_per_second_per_user"]))
    sv["ttft_seconds_range"] = _pair(b.time_range(sv["ttft_seconds"]))
    sv["tpot_seconds_range"] = _pair(b.time_range(sv["tpot_seconds"]))
