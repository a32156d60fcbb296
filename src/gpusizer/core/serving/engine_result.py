"""The users' load a serving memory rule (core/serving/rules) is asked to hold (:class:`Load`).
What the rule answers, the engine's memory (``EngineMemory``) and the line the memory chart
draws over its bar (``PoolLine``), live with the estimate that keeps them (core/model/result.py).

Bytes per GPU; tokens per request unless a name says otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

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
