"""What a serving memory rule (core/serving/rules) answers, as small frozen records: the
engine's memory on its heaviest GPU (:class:`EngineMemory`), the users' load it is asked to
hold (:class:`Load`) and the line the memory chart draws over its bar (:class:`PoolLine`).

Bytes per GPU; tokens per request unless a name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.result import Memory
from ..model.specs import Scenario
from .engine_settings import EngineSettings


@dataclass(frozen=True)
class Load:
    """What the scenario asks of the engine: ``concurrency`` requests of ``tokens`` (prompt +
    output) at once, and the start-up check's one request of ``max_context`` tokens."""

    concurrency: int
    tokens: int
    max_context: int

    @property
    def total_tokens(self) -> int:
        return self.concurrency * self.tokens


def scenario_load(s: Scenario, st: EngineSettings, max_context: int | None = None) -> Load:
    """The load of an inference scenario under its engine settings (``max_context``: the
    context the engine runs with when it fits one to memory, llama.cpp)."""
    w = s.workload
    return Load(st.concurrency, w.prompt_tokens + w.generated_tokens, max_context or st.max_context or 0)


@dataclass(frozen=True)
class EngineMemory:
    """What an engine holds on its heaviest GPU, what its KV cache can serve, and the
    smallest GPU that runs the scenario's load (the rule's inverse, ``required_bytes``)."""

    memory: Memory
    kv_pool_bytes: int  # per GPU
    kv_capacity_tokens: int
    max_concurrency: float  # requests of max_context tokens the pool holds at once
    starts: bool
    reason: str | None
    max_context: int
    max_sequences: int | None
    kv_bytes_per_token: float  # per GPU (its layers)
    host_memory_bytes: int = 0
    gpu_layers: int | None = None
    host_read_bytes: float = 0.0  # weights + KV a decode step reads from host RAM
    notes: tuple[str, ...] = ()
    fraction: float | None = None  # the memory fraction applied
    fraction_of: float = 0.0  # the bytes it multiplies (vLLM: the device total; SGLang: the free
    # memory at start, after the context and NCCL)
    reserved_bytes: float = 0.0  # inside the budget besides the pool (weights, peak, ...)
    outside_bytes: float = 0.0  # taken outside the budget (context, NCCL, graphs)
    host_parts: dict[str, float] | None = None  # system RAM by buffer (llama.cpp)
    request_bytes: float = 0.0  # pool bytes one request of max_context needs (start-up check)
    # -- the scenario's load (core/serving/rules: each rule fills these) --------------------
    load_bytes: float = 0.0  # KV bytes the load's requests hold (block-rounded, with state)
    holds_load: bool = True  # the KV cache holds the load as the rule allocates it
    required_bytes: int = 0  # per GPU: the smallest device that starts, holds the load and fits


@dataclass(frozen=True)
class PoolLine:
    """What the memory chart draws over an engine's bar (gui/charts/pool.py): whether the
    engine reserves its memory up front (then a budget line and the users' mark in the KV
    pool) or splits layers between the GPU and system RAM (then the title says how much)."""

    reserved: bool = False
    host_split: bool = False
    budget_bytes: int = 0  # the dashed budget line (0: none)
    budget_share: str = ""  # its words: "0.9 of the GPU", "weights + pool"
    used_kv_bytes: float = 0.0  # KV bytes the users fill (the rule's load, within the pool)
