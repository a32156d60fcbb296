"""The scheduler's inputs and result (core/serving/scheduler.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Load = Literal["steady", "burst", "rate"]
Admission = Literal["grow", "reserve", "static"]

TIME_BOXED_STEPS = 120
LEVELS = 5  # a length spread: 5 even steps from -spread to +spread
MAX_STEPS = 400_000  # bounds any scenario's run
SEED = 20


@dataclass(frozen=True)
class Engine:
    """How the engine schedules (resolved settings)."""

    budget: int  # tokens per step (max_num_batched_tokens)
    chunked: bool  # a prompt may be split over steps
    mixed: bool  # prompt chunks share steps with decodes
    max_running: int
    kv_tokens: float  # the KV pool, tokens
    block: int
    admission: Admission


@dataclass(frozen=True)
class Workload:
    prompt: int
    output: int
    load: Load
    users: int  # steady: users; burst: requests at once
    rate: float  # rate: requests/s
    requests: int  # requests in the run
    time_boxed: bool
    spread: float = 0.0  # lengths vary by +- this share (LEVELS even steps, in turn)


@dataclass(frozen=True)
class LoadResult:
    """What users see over the run (module docstring): seconds, tokens/s."""

    ttft: float
    ttft_p99: float
    tpot: float
    e2e: float
    tokens_per_second: float
    completed: int
    running: float  # mean requests in a decode step
