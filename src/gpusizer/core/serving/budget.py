"""The work budget of a simulated serving run (core/serving/scheduler.py): any valid load, up
to 300,000 requests or a batch of 2^24 users, is simulated in well under a second of CPU.

Two bounds, each said in the result's ``serving.simulation_note`` when it applied:

- users: a steady load or a burst of more than :data:`MAX_SIMULATED_USERS` users is simulated
  with that many, and their waits (first token, p99, end to end) scaled by the ratio. Once more
  users wait than the engine runs (``max_num_seqs``), the queue drains at the engine's own rate
  whatever its length, so the wait grows in proportion to the users queued (Little's law,
  L = lambda W, with lambda the engine's saturated rate); time per token and tokens/s are the
  saturated engine's, unchanged.
- steps: a run stops after :data:`WORK_STEPS` step evaluations (about 5 us each, so about
  0.25 s); its figures are those of the requests completed by then, taken for the whole run
  (a rate load past its first requests is stationary unless overloaded, when the note's
  "completed N of M" says how much of the queue was seen).

A request list of more than :data:`MAX_SIMULATED_REQUESTS` is cut to that many (the largest
published benchmark run, trtllm-bench's 30,000 requests, is within it).

A sizing call (``plan``, ``compare_gpus``, ``models_that_fit``) simulates about 200 runs (each
GPU type's layouts and counts; 191 for Llama 3.1 8B over the catalog), so inside one
(:func:`sizing_budget`) each run gets :data:`SIZING`: a 300,000-request rate load took 23-36 s
of ``compare`` with the estimate's own budget. The figures of a run cut this way are the same
extrapolations, and its note says so; an estimate outside a sizing call keeps the full budget.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace

from .scheduler_types import LoadResult, Workload

MAX_SIMULATED_USERS = 30_000  # trtllm-bench's published bursts (docs/evidence/speed.md)
MAX_SIMULATED_REQUESTS = 30_000
WORK_STEPS = 30_000


@dataclass(frozen=True)
class Caps:
    """Users and requests simulated, step evaluations of a run."""

    users: int
    requests: int
    steps: int


# 1,000 steps is 5-8 ms: 200 runs of a sizing call within about a second. The default loads
# (steady or burst, time-boxed to 120 steps) are never cut; a rate load's 1,000 requests are.
SIZING = Caps(users=1024, requests=1024, steps=1000)
_IN_SIZING: ContextVar[bool] = ContextVar("gpusizer_sizing_budget", default=False)


def caps() -> Caps:
    """The caps of a run started now (:data:`SIZING` inside :func:`sizing_budget`)."""
    if _IN_SIZING.get():
        return SIZING
    return Caps(MAX_SIMULATED_USERS, MAX_SIMULATED_REQUESTS, WORK_STEPS)


@contextmanager
def sizing_budget() -> Iterator[None]:
    """Runs started inside get the sizing call's caps (module docstring)."""
    token = _IN_SIZING.set(True)
    try:
        yield
    finally:
        _IN_SIZING.reset(token)


def bounded(w: Workload) -> tuple[Workload, float]:
    """The workload simulated and the factor its users were divided by (1.0: as asked)."""
    c = caps()
    scale = 1.0
    users, requests = w.users, w.requests
    if w.load != "rate" and users > c.users:
        scale = users / c.users
        users = c.users
        requests = max(users, round(requests / scale)) if w.load == "steady" else users
    requests = min(requests, c.requests)
    if (users, requests) == (w.users, w.requests):
        return w, 1.0
    return replace(w, users=users, requests=requests), scale


def extrapolated(run: LoadResult, scale: float) -> LoadResult:
    """A run of ``1 / scale`` of the users as the whole load (module docstring)."""
    if scale == 1.0:
        return run
    extra = (scale - 1.0) * run.ttft
    return replace(run, ttft=run.ttft * scale, ttft_p99=run.ttft_p99 * scale, e2e=run.e2e + extra)


def budget_note(asked: Workload, ran: Workload, run: LoadResult, scale: float) -> str | None:
    """What the work budget changed, in words (None when the run is the one asked for)."""
    parts = []
    if scale != 1.0:
        parts.append(
            f"simulated with {ran.users:,} of {asked.users:,} users, their waits scaled by "
            f"{scale:,.1f} (the queue drains at the engine's rate)"
        )
    if ran.requests < asked.requests and scale == 1.0:
        parts.append(f"simulated {ran.requests:,} of {asked.requests:,} requests")
    if run.stopped and not asked.time_boxed:
        parts.append(
            f"stopped at the work budget of {caps().steps:,} steps with {run.completed:,} requests "
            "completed; their figures stand for the whole run"
        )
    return "; ".join(parts) or None
