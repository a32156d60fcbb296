"""Serving under a stated load: the engine's scheduler simulated step by step.

Requests of ``prompt`` + ``output`` tokens arrive as ``serving.load`` says: ``steady`` (N users,
each sending its next request when the last ends: ``vllm bench serve --max-concurrency`` wraps
every request in a semaphore, vllm/benchmarks/serve.py), ``burst`` (N at once, drained) or ``rate``
(Poisson arrivals: ``--request-rate`` with burstiness 1 draws exponential gaps; seeded, so the
answer is the same every time). Each step (vLLM 0.11 ``v1/core/sched/scheduler.py``
``schedule()``): the running requests decode one token each; the rest of the token budget
(``max_num_batched_tokens``) goes to prompt chunks, unfinished prompts first, then waiting
requests in arrival order while fewer than ``max_num_seqs`` run and the KV pool has room.
Engines differ (core/registry/engines.py ``Scheduling``): SGLang and vLLM V0 run prompt steps
without decodes; TensorRT-LLM and llama.cpp do not split a prompt; TensorRT-LLM reserves a
request's whole KV on admission (GUARANTEED_NO_EVICT) and llama.cpp gives each slot its
context, while vLLM and SGLang take KV as tokens come and, when the pool is full, preempt the
newest request, recomputed later (V1 ``_preempt_request``); transformers serves static batches.
Where the launch settings say so, an engine holds waiting prompts back while it decodes:
TensorRT-LLM's batch waiting (core/serving/batch_wait.py) and attention-DP balance
(core/serving/adp_balance.py), SGLang's receive interval (core/serving/recv_poll.py).

A step's time is core/speed/step.py's. Requests are identical, so those that start together
stay together (groups), decodes advance in lock-step, and a stretch of pure decode steps is
summed in one go: a run costs a few step evaluations per group. A run the scenario did not ask
for (``serving.load`` null) stops after ``TIME_BOXED_STEPS`` step evaluations (a few ms) and
reports the requests completed by then.

Metrics as ``vllm bench serve`` prints them: TTFT = first token - arrival; TPOT per request =
(E2E - TTFT) / (output - 1); output throughput = output tokens / (last completion - first
arrival).
"""

from __future__ import annotations

from dataclasses import replace

from ..speed.step import StepModel
from .scheduler_run import Run
from .scheduler_types import Engine, LoadResult, Workload

__all__ = [
    "simulate",
]


def _alone(step: StepModel, engine: Engine, w: Workload) -> LoadResult:
    """One request with the engine to itself (what a lone user's every request sees): its
    prompt in chunks of the budget, then decode steps whose time grows linearly with the
    context (summed exactly by the trapezoid). The run of one request, without the queue."""
    t, done = 0.0, 0
    while done < w.prompt:
        c = min(w.prompt - done, engine.budget) if engine.chunked else w.prompt
        attn, read = step.chunk(done, c)
        last = done + c >= w.prompt
        t += step.seconds(0, 0.0, c, 1, attn, read, 1.0 if last else 0.0)
        done += c
    ttft, n = t, w.output - 1
    if n > 0:
        first, final = w.prompt + 1, w.prompt + n
        t0 = step.seconds(1, step.positions(first), sampled=1)
        t1 = step.seconds(1, step.positions(final), sampled=1) if n > 1 else t0
        t += n * (t0 + t1) / 2
    tpot = (t - ttft) / n if n > 0 else 0.0
    return LoadResult(ttft, ttft, tpot, t, w.output / t if t else 0.0, 1, 1.0)


def client_view(r: LoadResult, w: Workload, front_end: float) -> LoadResult:
    """What a client of the API server sees of the engine's run ``r``: each request reaches
    the scheduler ``front_end`` seconds after it is sent and its first token leaves through
    the server, so TTFT and end-to-end time grow by it; the steps do not (the server is
    another process). Throughput: a steady user's cycle grows by it, a burst's drain starts
    that much later, Poisson arrivals keep their rate."""
    if front_end <= 0:
        return r
    tps = r.tokens_per_second
    if w.load == "steady" and r.e2e > 0:
        tps *= r.e2e / (r.e2e + front_end)
    elif w.load == "burst" and tps > 0:
        span = r.completed * w.output / tps  # first arrival to last completion
        tps *= span / (span + front_end)
    return replace(
        r,
        ttft=r.ttft + front_end,
        ttft_p99=r.ttft_p99 + front_end,
        e2e=r.e2e + front_end,
        tokens_per_second=tps,
    )


def simulate(step: StepModel, engine: Engine, workload: Workload) -> LoadResult:
    """The run of ``workload`` on ``engine`` (module docstring), as a client of the engine's
    API server sees it (:func:`client_view`)."""
    w = workload
    if w.alike and w.requests == 1:
        return client_view(_alone(step, engine, w), w, engine.front_end)
    return client_view(Run(step, engine, workload).run(), w, engine.front_end)
