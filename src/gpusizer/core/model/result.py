"""What the estimator returns: frozen dataclasses, rendered by the report, the CLI and the GUI."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .node import host_gpus
from .result_memory import COMPONENT_LABELS, COMPONENTS, Compute, Memory, component_title
from .result_serving import EngineMemory, PoolLine, Serving
from .specs import GPUSpec, Scenario
from .unified import pool_note

# The parts live in result_memory.py and result_serving.py; every name stays importable here.
__all__ = [
    "COMPONENTS",
    "COMPONENT_LABELS",
    "Compute",
    "EngineMemory",
    "Estimate",
    "Memory",
    "PoolLine",
    "Serving",
    "component_title",
]


@dataclass(frozen=True)
class Estimate:
    """The answer for one scenario."""

    scenario: Scenario
    gpu: GPUSpec
    parameters_total: int
    parameters_active: int
    parameters_embedding: int
    parameters_trainable: int
    memory: Memory
    gpus: int
    compute: Compute = field(default_factory=Compute)
    assumptions: tuple[str, ...] = ()
    parameters_vision: int = 0  # vision tower + projector (stored with the weights)
    notes: tuple[str, ...] = ()
    serving: Serving | None = None  # inference only
    # The serving engine sizes its memory to the GPU (a reserved pool, llama.cpp's fitted
    # context; its rule's ``allocates_on_demand`` is False): ``required_bytes`` is its inverse.
    sized_by_engine: bool = False
    # What the views draw from the engine without asking the core again (inference only):
    # its memory rule's answer and the line the memory chart draws over its bar.
    engine: EngineMemory | None = None
    pool: PoolLine | None = None
    # The scenario the engine served (the scenario itself, or a kind's serving role's): what
    # the report's ``cache`` block describes.
    served_scenario: Scenario | None = None
    rl: dict[str, Any] | None = None  # RL post-training's phases, time per step and run (rl_report.py)
    # A kind whose GPUs hold different things (RL split placement: the rollout pool's engine at
    # its own memory fraction, the training pool laid out by ``parallelism``): what the GPUs of
    # the layout need, which ``required_bytes`` gives (None: the peak, ``memory``)
    layout_bytes: int | None = None

    @property
    def capacity_bytes(self) -> int:
        return self.gpu.capacity_bytes

    @property
    def headroom_bytes(self) -> int:
        """Capacity minus the peak; negative when it does not fit."""
        return self.capacity_bytes - self.memory.total

    @property
    def required_bytes(self) -> int:
        """What the scenario needs of one GPU: the peak, or for a serving engine that sizes its
        memory to the GPU (a reserved pool, llama.cpp's fitted context) what it needs to start
        and hold its users (``serving.required_bytes``)."""
        if self.layout_bytes is not None:
            return self.layout_bytes
        return self.serving.required_bytes if self.sized_by_engine and self.serving else self.memory.total

    @property
    def runs(self) -> bool:
        """Whether the engine starts (always true outside serving engines)."""
        return self.serving is None or self.serving.starts

    @property
    def requests_held(self) -> int | None:
        """Serving: requests of the scenario's length (prompt + output tokens) the engine runs
        at once: none when one is longer than its context (``serving.max_context``), else as
        many as its KV cache holds, within ``max_sequences``. None when training."""
        sv, w = self.serving, self.scenario.workload
        if sv is None:
            return None
        need = w.prompt_tokens + w.generated_tokens
        if not sv.starts or need > sv.max_context:
            return 0
        held = sv.kv_capacity_tokens // need
        return min(held, sv.max_sequences) if sv.max_sequences else held

    @property
    def pool_shortfall(self) -> str | None:
        """Why what the work keeps beside the GPU (host buffers, CPU layers, offloaded
        states) does not fit the machine's RAM: on unified memory with the GPU's part, less
        what the OS keeps; else against ``hardware.host_memory_bytes`` when given (None when
        it fits)."""
        s = self.scenario
        host = self.serving.host_memory_bytes if self.serving else self.memory.host_memory
        per_node = min(s.parallelism.gpus, host_gpus(s.hardware.gpus_per_node))  # one host's RAM
        return pool_note(self.gpu, max(0, self.memory.total), host, s.hardware.host_memory_bytes, per_node)

    @property
    def fits(self) -> bool:
        """The work runs: the peak fits the GPU, on unified memory the whole fits the
        machine's RAM, and a serving engine starts and holds at least one request of the
        scenario's length (``requests_held``; ``workload.batch_size`` of them is what the
        advice sizes for, and the headline says how many it holds)."""
        if self.headroom_bytes < 0 or self.pool_shortfall is not None:
            return False
        return self.serving is None or (self.serving.starts and bool(self.requests_held))

    @property
    def unmet(self) -> str | None:
        """Why the work does not run as set, as a cause: ``context_limit`` (a request longer
        than the engine's context, ``serving.max_context``: no memory changes it) or
        ``memory``; None when it runs."""
        if self.fits:
            return None
        sv, w = self.serving, self.scenario.workload
        if sv is not None and sv.starts and w.prompt_tokens + w.generated_tokens > sv.max_context:
            return "context_limit"
        return "memory"

    @property
    def fit_reason(self) -> str | None:
        """Why the work does not run as set, or, serving, how many of ``batch_size`` requests
        it holds when fewer; None when it runs as set."""
        if self.headroom_bytes < 0:
            return f"the peak is {-self.headroom_bytes / 2**30:,.2f} GiB more than the GPU's memory"
        short = self.pool_shortfall
        if short is not None:
            return short
        sv, w = self.serving, self.scenario.workload
        if sv is None:
            return None
        if not sv.starts:
            return f"the engine does not start: {sv.reason}"
        need, held = w.prompt_tokens + w.generated_tokens, self.requests_held or 0
        if need > sv.max_context:
            return (
                f"a request of {need:,} tokens is longer than the engine's {sv.max_context:,}-token "
                "context (serving.max_context)"
            )
        if held == 0:
            return f"the KV cache ({sv.kv_capacity_tokens:,} tokens) holds no request of {need:,} tokens"
        if held < w.batch_size:
            return f"holds {held:,} of the {w.batch_size:,} requests of {need:,} tokens at once"
        return None

    @property
    def dominant(self) -> str:
        parts = {c: getattr(self.memory, c) for c in COMPONENTS}
        return max(parts, key=lambda c: parts[c])
