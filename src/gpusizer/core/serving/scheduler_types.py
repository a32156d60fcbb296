"""The scheduler's inputs and result (core/serving/scheduler.py)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

Load = Literal["steady", "burst", "rate"]
Admission = Literal["grow", "reserve", "static"]

TIME_BOXED_STEPS = 120
# A length spread: the users' lengths in even steps from -spread to +spread, at least LEVELS and
# up to one per user (MAX_LEVELS at most). Benchmarks draw every request's length at random
# (``--random-range-ratio``), so users finish at distinct steps and each finish lets a new
# prompt in: an engine that runs prompt steps alone (SGLang, vLLM V0) interrupts its decodes
# once per finish, not once per level (SGLang DeepSeek-R1 at 64 users: TPOT 26 ms with 5
# levels, 29 with one per user, 34.6 published; docs/evidence/speed.md).
LEVELS = 5
MAX_LEVELS = 64


def levels(users: int) -> int:
    """Length levels of a spread run of ``users`` users."""
    return max(LEVELS, min(users, MAX_LEVELS))


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
    front_end: float = 0.0  # seconds per request in the API server (StepCost.front_end)
    cached_preemption: bool = False  # a preempted request finds its blocks again (Scheduling)
    watermark: float = 0.0  # tokens of the pool admission leaves free (Scheduling.watermark)
    # TensorRT-LLM's batch waiting (serving.batch_wait_iterations / _tokens_ratio): steps a
    # waiting prompt may be held while decodes run, and the share of ``budget`` that ends it
    wait_steps: int = 0
    wait_ratio: float = 0.0
    recv_interval: int = 0  # SGLang --scheduler-recv-interval (serving.scheduler_recv_interval)
    # TensorRT-LLM's attention-DP balance (serving.attention_dp_balance_iterations): its
    # timeout in steps, and the ranks that must each hold a prompt
    adp_balance: int = 0
    ranks: int = 1
    adp_batching: int = 0  # its batching_wait_iters
    max_prefill: int = 0  # SGLang --max-prefill-tokens (serving.max_prefill_tokens); 0: not set
    overlap_skip: int = 0  # steps a closed-loop arrival misses while steps run (Scheduling)


@dataclass(frozen=True)
class Workload:
    prompt: int
    output: int
    load: Load
    users: int  # steady: users; burst: requests at once
    rate: float  # rate: requests/s
    requests: int  # requests in the run
    time_boxed: bool
    spread: float = 0.0  # lengths vary by +- this share (levels() even steps, in turn)
    # rate: the gaps' gamma shape (vLLM benchmark --burstiness; 1: exponential, Poisson arrivals)
    burstiness: float = 1.0

    @property
    def arrives_at_rate(self) -> bool:
        """Poisson arrivals at ``rate`` requests/s (the "rate" load)."""
        return self.load == "rate"

    @property
    def closed_loop(self) -> bool:
        """Each user sends the next request when the last ends (the "steady" load)."""
        return self.load == "steady"

    @property
    def all_at_once(self) -> bool:
        """Every request arrives at the start (the "burst" load)."""
        return self.load == "burst"

    @property
    def alike(self) -> bool:
        """One user's requests, all alike: the run is one request's."""
        return self.users == 1 and not self.arrives_at_rate and not self.spread

    @property
    def run_key(self) -> Workload:
        """What a run reads of the workload, to keep runs by: a "rate" load of one length
        reads no ``users`` (its arrivals are drawn; only a length spread's levels count them,
        core/serving/scheduler_state.py ``_arrive``)."""
        if self.arrives_at_rate and not self.spread and self.users != 1:
            return replace(self, users=1)
        return self


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
    stopped: bool = False  # the run ended at its step cap with requests still to serve
