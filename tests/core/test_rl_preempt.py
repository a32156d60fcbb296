"""vLLM's scheduler run request by request for one rollout replica (core/pipeline/rl_preempt.py;
docs/evidence/rl.md section 2o): admission on the KV a request needs now, LIFO preemption by
recompute when the pool is full, re-admission only in steps that preempted none."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import cast

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline import work_rl
from gpusizer.core.pipeline.rl_preempt import (
    MAX_EVENTS,
    Pool,
    Replica,
    generation_run,
    generation_seconds,
    lengths,
    scheduled_rollout_seconds,
)
from gpusizer.core.pipeline.rl_time import rollout_seconds
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.step import StepModel

from .rl_figures import FIGURES, OFF_POLICY


class Linear:
    """A step model whose seconds are linear in the batch, the positions read and the prompt
    tokens: enough to count steps and see what the scheduler does."""

    def decode_seconds(self, batch: int, context: float) -> float:
        return self.seconds(batch, batch * context)

    def positions(self, ctx: float) -> float:
        return ctx

    def chunk(self, start: float, tokens: float) -> tuple[float, float]:
        return tokens * (start + tokens / 2), tokens

    def seconds(self, d: float, pos: float, tokens: float = 0.0, *_: float) -> float:
        return 0.01 + 1e-5 * d + 1e-9 * pos + 1e-6 * tokens


def _linear() -> StepModel:
    """``Linear`` where the run expects a step model (it calls only the methods ``Linear`` has)."""
    return cast(StepModel, Linear())


def _replica(pool_tokens: float, n: int = 64, mean: float = 300, cap: int = 1000) -> Replica:
    pool = Pool(pool_tokens, 1024, 8192, 16, True)
    return Replica(_linear(), pool, 100, lengths(n, mean, cap), 1.0)


def test_the_lengths_keep_the_mean_and_reach_the_cap() -> None:
    # rl_time's law (truncated exponential with the stated mean) at its quantiles, the longest at
    # max_new_tokens; tolerance 2 % of the mean (the cap's one response lifts it by (cap - q) / n)
    out = lengths(256, 3206, 3968)
    assert max(out) == 3968 and min(out) >= 1
    assert sum(out) / len(out) == pytest.approx(3206, rel=0.02)


def test_a_pool_that_holds_every_prompt_admits_them_all_at_once() -> None:
    # vLLM V1 allocate_slots refuses only when the blocks of the tokens scheduled now exceed the
    # free blocks: 64 prompts of 100 tokens fit 20,000 tokens though their final lengths do not
    r = _replica(20_000)
    r._admit()
    assert len(r.live) == 64 and not r.waiting


def test_without_pressure_the_run_is_the_cap_s_steps() -> None:
    r = _replica(1e9)
    r.seconds()
    assert r.k == 1000  # the prefill step samples each first token, then 999 decode steps


def test_a_full_pool_preempts_the_newest_and_the_run_outlasts_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    r = _replica(8_000)
    preempted: list[int] = []
    original = r._preempt

    def spy() -> None:
        before = set(r.live)
        original()
        preempted.extend(sorted(before - r.live))

    monkeypatch.setattr(r, "_preempt", spy)
    r.seconds()
    assert preempted  # 8,000 tokens hold the 64 prompts, not 64 responses of 300 tokens
    assert r.k > 1000  # the victims resume later, so the last ends past the cap's steps
    assert all(m == n for m, n in zip(r.made, r.length, strict=True))  # every response completes


def test_a_pathological_replica_is_bounded() -> None:
    # 512 responses of 8,000 tokens through a pool of two: each event is cheap and the run stops
    # at MAX_EVENTS with the rest priced at the batch it has
    start = time.perf_counter()
    r = _replica(20_000, n=512, mean=8000, cap=16_000)
    assert r.seconds() > 0
    assert r.events <= MAX_EVENTS + 1 and time.perf_counter() - start < 10


def _decode(name: str):
    figure = next(f for f in FIGURES if f.name == name)
    s = parse_scenario(figure.recorded())
    return work_rl._decode(s, scenario_gpu(s))


def test_the_dense_8b_rollout_is_the_drain_it_was() -> None:
    # NeMo RL v0.4 Llama 3.1 8B (16 H100): 128 responses, the pool's peak demand about 60 k of
    # 242 k tokens, so vLLM never preempts: the run is rl_time's drain at the whole batch; 3 %
    d, _, _, step, pool = _decode("v0.4 Llama 3.1 8B, 16 H100")
    run = generation_seconds(step, pool, d.responses, d.prompt, d.mean, d.longest)
    drain = rollout_seconds(replace(d, batch=d.responses, output_per_token=0.0))
    assert run == pytest.approx(drain, rel=0.03)


def test_the_32b_rollout_preempts_but_runs_fewer_steps_than_the_capped_batch() -> None:
    # NeMo RL v0.4 Qwen3-32B (32 H100, vLLM TP 4 at 0.6): 256 responses of 3,206 tokens on
    # average against a pool of 444 k tokens. vLLM admits all 256 (their prompts fit), preempts
    # as they grow and resumes them from the prefix cache: 5,700 decode steps, where the old
    # drain capped the batch at pool / (prompt + mean) = 133 and ran 2,741 queued steps + 3,968
    d, _, _, step, pool = _decode("v0.4 Qwen3-32B, 32 H100")
    r = Replica(step, pool, d.prompt, lengths(d.responses, d.mean, d.longest), 1.0)
    r.seconds()
    queued = (d.responses - d.batch) * d.mean / d.batch
    assert d.longest < r.k < queued + d.longest


def _served_burst(n: int, output: int) -> tuple[float, float]:
    """(serving load simulation's drain, this run's) of a burst of ``n`` identical requests on
    the v0.4 Qwen3-32B replay's engine and pool."""
    from gpusizer.core.serving.scheduler_run import Run
    from gpusizer.core.serving.scheduler_types import Engine, Workload

    d, _, _, step, pool = _decode("v0.4 Qwen3-32B, 32 H100")
    eng = Engine(pool.budget, True, True, pool.running, pool.tokens, pool.block, "grow", 0.0, True)
    served = Run(step, eng, Workload(d.prompt, output, "burst", n, 0.0, n, False)).run()
    return n * output / served.tokens_per_second, Replica(step, pool, d.prompt, [output] * n, 1.0).seconds()


def test_a_burst_that_fits_drains_as_the_serving_simulation_does() -> None:
    # core/serving/scheduler.py, validated on vLLM 0.11 bursts (docs/evidence/speed.md section
    # 20): 256 requests of 1,500 tokens fit the 444 k-token pool; the same drain within 1 %
    served, run = _served_burst(256, 1500)
    assert run == pytest.approx(served, rel=0.01)


def test_through_a_preemption_the_victims_blocks_are_reused_first() -> None:
    # 256 x 3,000 tokens overflow the pool: the serving simulation keeps every freed full block
    # for the victim (speed.md section 20 leaves the eviction out); here the others' growth takes
    # the least recently freed blocks first, so the victims recompute more: slower, by < 15 %
    served, run = _served_burst(256, 3000)
    assert served < run < 1.15 * served


def test_k_steps_off_keep_the_steady_rollout_and_one_step_off_runs_the_scheduler() -> None:
    # NeMo RL async_utils.py (tag v0.6.0): with max_trajectory_age_steps > 1 each prompt group's
    # request starts as a slot frees, so no step's responses arrive at once and none drains to
    # the cap: the scheduler's burst run does not apply and rl_time's steady rollout stands. The
    # v0.6 Qwen3-30B-A3B 8-off row (docs/evidence/rl.md sections 2l and 2o).
    figure = next(f for f in OFF_POLICY if f.name == "v0.6 Qwen3-30B-A3B 8-off, 128+64 H100")
    s = parse_scenario(figure.recorded())
    d, _, _, step, pool = work_rl._decode(s, scenario_gpu(s))
    assert d.steady and pool is not None
    assert scheduled_rollout_seconds(d, step, pool) == rollout_seconds(d)
    # the same row one step off: the step's responses go out together, the scheduler runs
    one = parse_scenario(figure.recorded() | {"rl": {**figure.recorded()["rl"], "off_policy_steps": 1}})
    d1, _, _, step1, pool1 = work_rl._decode(one, scenario_gpu(one))
    assert not d1.steady
    assert scheduled_rollout_seconds(d1, step1, pool1) != pytest.approx(rollout_seconds(d1), rel=1e-3)


def test_the_run_counts_its_peak_batch_and_its_preemptions() -> None:
    # vLLM's num_requests_running gauge and num_preemptions counter, as the run keeps them: the
    # 64 prompts of 100 tokens all fit 8,000 tokens (64 run at once), their growth does not
    free = generation_run(_linear(), Pool(1e9, 1024, 8192, 16, True), 64, 100, 300, 1000)
    full = generation_run(_linear(), Pool(8_000, 1024, 8192, 16, True), 64, 100, 300, 1000)
    assert (free.peak_running, free.preemptions) == (64, 0)
    assert full.peak_running == 64 and full.preemptions > 0
    assert full.seconds == generation_seconds(
        _linear(), Pool(8_000, 1024, 8192, 16, True), 64, 100, 300, 1000
    )


def test_the_report_gives_the_run_beside_the_pool_s_batch() -> None:
    # v0.4 Qwen3-32B: rollout_batch stays the pool over prompt + mean (133 of 256, section 2o's
    # capped batch); the scheduler admits all 256 and preempts. 8 steps off-policy: no run, null
    figure = next(f for f in FIGURES if f.name == "v0.4 Qwen3-32B, 32 H100")
    rl = estimate_report(figure.recorded())["rl"]
    d = _decode("v0.4 Qwen3-32B, 32 H100")[0]
    assert rl["rollout_batch"] == d.batch < rl["rollout_peak_running"] == d.responses
    assert rl["rollout_preemptions"] > 0
    off = next(f for f in OFF_POLICY if f.name == "v0.6 Qwen3-30B-A3B 8-off, 128+64 H100")
    steady = estimate_report(off.recorded())["rl"]
    assert steady["rollout_peak_running"] is None and steady["rollout_preemptions"] is None
