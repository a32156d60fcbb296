"""One rollout replica's synchronous generation under vLLM's scheduler, request by request:
admission on the KV a request needs now, growth, preemption by recompute when the pool is full,
re-admission, each step priced by the serving step model (core/speed/step.py).

The scheduler's rules and the replica that runs them: core/pipeline/rl_replica.py (its names
are importable from here too). A replica of more than ``UNITS`` responses is run in equal
bundles of requests that move together. What it changes against a batch capped at the pool
over prompt + mean: docs/evidence/rl.md section 2o.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from ..memo import Memo
from ..model.result import EngineMemory
from ..serving.engine_settings import EngineSettings
from ..speed.step import StepModel
from .rl_replica import GOLDEN, MAX_EVENTS, Pool, Replica, lengths, quantile
from .rl_time import Decode, rollout_seconds

__all__ = [
    "GOLDEN",
    "MAX_EVENTS",
    "MIN_BUNDLES",
    "UNITS",
    "Pool",
    "Replica",
    "RunStats",
    "engine_pool",
    "generation_run",
    "generation_seconds",
    "lengths",
    "quantile",
    "scheduled_rollout",
    "scheduled_rollout_seconds",
]

UNITS = 128  # requests simulated one by one; more run in bundles
# bundles run only where the pool holds this many at the cap: fewer, and a bundle's requests
# would be preempted together where vLLM preempts one
MIN_BUNDLES = 8
_RUNS: Memo[RunStats] = Memo(1024)  # a replica's run by its engine, pool and responses


@dataclass(frozen=True)
class RunStats:
    """A replica's run: its seconds; the most requests it ran at once (vLLM's
    ``vllm:num_requests_running`` gauge at its highest) and its preemptions (the
    ``vllm:num_preemptions`` counter over the run), a bundle's preemption counting each of its
    requests."""

    seconds: float
    peak_running: int
    preemptions: int


def generation_seconds(
    step: StepModel, pool: Pool, responses: int, prompt: int, mean: float, cap: int
) -> float:
    """Seconds one replica takes to generate ``responses`` of the law's lengths (module
    docstring), all sent at once and run to the last one's end."""
    return generation_run(step, pool, responses, prompt, mean, cap).seconds


def generation_run(
    step: StepModel, pool: Pool, responses: int, prompt: int, mean: float, cap: int
) -> RunStats:
    """:func:`generation_seconds` with the run's peak batch and preemptions, in requests."""
    units = min(responses, UNITS)
    r = Replica(step, pool, prompt, lengths(units, mean, cap), responses / units)
    seconds = r.seconds()
    return RunStats(seconds, round(r.peak * r.w), round(r.preempted * r.w))


def engine_pool(engine: str, st: EngineSettings, em: EngineMemory) -> Pool | None:
    """vLLM's scheduler as the run needs it; None for another engine (SGLang's ``PrefillAdder``,
    ``srt/managers/schedule_policy.py``, reserves each running request's remaining
    ``max_new_tokens`` x ``new_token_ratio`` before admitting, and retracts: not these rules)
    or a release that does not grow KV as tokens come (core/registry/engines.py
    ``Scheduling.admission``)."""
    rel = st.release
    if engine != "vllm" or rel is None or rel.scheduling.admission != "grow":
        return None
    # an engine that does not split prompts takes them whole; no max_num_seqs: no cap
    budget = st.prefill_chunk_tokens or st.profile_tokens or 1 << 30
    running = st.max_sequences or 1 << 30
    return Pool(
        em.kv_capacity_tokens, running, budget, max(1, st.kv_block_tokens), rel.scheduling.cached_preemption
    )


def scheduled_rollout_seconds(
    d: Decode, step: StepModel, pool: Pool | None, key: Hashable = None, owners: tuple[object, ...] = ()
) -> float:
    """The replica's generation: vLLM's scheduler run request by request where the engine
    grows and preempts (:class:`Replica`), else rl_time's drain (``rollout_seconds``), as also
    where the replica's many responses are so long that its pool holds fewer than
    ``MIN_BUNDLES`` bundles (the run is then mostly continuous batching at the pool's batch); plus the host's
    output work per generated token. ``key`` (with the ``owners`` whose ids it holds) names the
    step model, so that a search pricing many layouts of one rollout runs it once.

    Not with later steps' requests in flight (``d.steady``, ``rl.off_policy_steps`` > 1): NeMo
    RL's ``AsyncTrajectoryCollector`` (``nemo_rl/algorithms/async_utils.py``, tag v0.6.0) starts
    each prompt group's request as a semaphore slot frees, so the engine never sees a step's
    responses sent at once and waited for: no burst to admit, no drain to the last response.
    There rl_time's steady rollout applies: every token at the batch the pool holds over prompt
    + mean, which under the exponential law is where grow-as-you-go admission settles (a running
    response's mean age is E[L^2] / 2E[L], the mean itself), preemption the rare correction."""
    return scheduled_rollout(d, step, pool, key, owners)[0]


def scheduled_rollout(
    d: Decode, step: StepModel, pool: Pool | None, key: Hashable = None, owners: tuple[object, ...] = ()
) -> tuple[float, RunStats | None]:
    """(:func:`scheduled_rollout_seconds`, the scheduler's run where it ran, else None)."""
    units = min(d.responses, UNITS)
    bundle = d.responses / units * (d.prompt + d.longest)
    if d.steady or pool is None or pool.tokens < d.prompt + d.longest:  # no burst, engine or start
        return rollout_seconds(d), None
    if units < d.responses and pool.tokens < MIN_BUNDLES * bundle:
        return rollout_seconds(d), None
    args = (step, pool, d.responses, d.prompt, d.mean, d.longest)
    run = (
        _RUNS.get((key, *args[1:]), lambda: generation_run(*args), owners)
        if key is not None
        else generation_run(*args)
    )
    return run.seconds + d.responses * d.mean * d.output_per_token, run
