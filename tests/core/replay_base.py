"""The machinery of the engine-log replay (tests/core/engine_replay.py): the logs of
tests/core/data/engine-logs.json, how a logged figure is read (never retyped), a replayed record
(its scenario, the figures it checks, what is known to be off) and the getters that read an
estimate the way the engine prints it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.result import EngineMemory, Estimate
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engines import cuda_total_bytes
from gpusizer.core.serving.engine_memory import engine_memory

GiB, MiB = 2**30, 2**20
LOGS = {r["id"]: r for r in json.loads((Path(__file__).parent / "data" / "engine-logs.json").read_text())}
TOLERANCE = 0.10  # the issue's: every replayed figure within 10 %


def logged(record: str, *path: str) -> float:
    """The first number of a logged field (commas dropped)."""
    value: Any = LOGS[record]["logged"]
    for p in path:
        value = value[p]
    if isinstance(value, (int, float)):
        return float(value)
    match = re.search(r"[-\d,]*\.?\d+", str(value))
    assert match, (record, path, value)
    return float(match.group(0).replace(",", ""))


def logged_after(record: str, label: str, *path: str) -> float:
    """The number printed right after ``label`` in a logged field."""
    value: Any = LOGS[record]["logged"]
    for p in path:
        value = value[p]
    match = re.search(re.escape(label) + r"\s*([\d,]*\.?\d+)", str(value))
    assert match, (record, label, value)
    return float(match.group(1).replace(",", ""))


@dataclass
class Run:
    """An estimate and the engine's memory, computed once per record."""

    est: Estimate
    em: EngineMemory
    total: float = 0.0  # the device total the engine sees (cudaMemGetInfo), bytes

    @property
    def mem(self) -> Any:
        return self.est.memory

    @property
    def sv(self) -> Any:
        return self.est.serving

    def host(self, part: str) -> float:
        return (self.em.host_parts or {}).get(part, 0.0)


Getter = Callable[[Run], float]


@dataclass
class Replay:
    record: str
    scenario: dict[str, Any]
    checks: Sequence[tuple[str, Getter, float]]
    starts: bool = True
    known: dict[str, str] = field(default_factory=dict)  # check -> why it is off (reported)
    # Checks whose logged value set a constant of the rules (in-sample: reported apart)
    fitted: tuple[str, ...] = ()

    def run(self) -> Run:
        s = parse_scenario(self.scenario)
        est = estimate(s)
        from gpusizer.core.model.presets import scenario_gpu

        gpu = scenario_gpu(s)
        em, _ = engine_memory(s, resolve(s.model), count_parameters(s.model), gpu)
        return Run(est, em, cuda_total_bytes(gpu))


def _vllm(
    preset: str, version: str, gpu: str = "h100-sxm-80gb", tp: int = 1, pp: int = 1, **serving: Any
) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "workload": {"kind": "inference"},
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "parallelism": {"tensor": tp, "pipeline": pp},
        "serving": {"engine_version": version, **serving},
    }


def _with(sc: dict[str, Any], **blocks: dict[str, Any]) -> dict[str, Any]:
    return {**sc, **blocks}


def w(r: Run) -> float:
    return r.mem.weights / GiB


def peak(r: Run) -> float:
    return max(r.mem.activations, r.mem.temporary) / GiB


def kv(r: Run) -> float:
    return r.sv.kv_pool_bytes / GiB


def tokens(r: Run) -> float:
    return r.sv.kv_capacity_tokens


def conc(r: Run) -> float:
    return r.sv.max_concurrency


def non_torch_v1(r: Run) -> float:
    """V1: non-torch inside the budget = overhead less graphs (outside the pool <= 0.19) and
    the context + NCCL taken before the snapshot."""
    o = r.em.outside_bytes
    return (r.mem.overhead - o) / GiB


def available(r: Run) -> float:
    """vLLM's "Available KV cache memory", negative when the budget is overspent."""
    return ((r.em.fraction or 0.0) * r.total - r.em.reserved_bytes) / GiB


def needed(r: Run) -> float:
    """KV cache one request of max_model_len needs (V1 ``check_enough_kv_cache_memory``)."""
    return r.em.request_bytes / GiB


def non_torch_v0(r: Run) -> float:
    return (r.mem.overhead - r.em.outside_bytes) / GiB


def gpu_mib(part: str) -> Getter:
    return lambda r: getattr(r.mem, part) / MiB


def host_mib(part: str) -> Getter:
    return lambda r: r.host(part) / MiB
