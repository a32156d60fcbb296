"""SGLang's ``--scheduler-recv-interval`` (``serving.scheduler_recv_interval``;
core/serving/recv_poll.py): while decoding, new requests are taken in every N decode steps
(sgl-project/sglang ``managers/scheduler_recv_skipper.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving.recv_poll import RecvPoll
from tests.core.serving_runs import inferencex_1k1k, times, with_serving

# InferenceX's DeepSeek-R1 FP8 run on 8 B200 under SGLang 0.5.9, 1k/1k at 64 users
# (aiconfigurator-core 0.12.0 silicon_sample.csv row "dsr1_b200_sglang_fp8_agg_1024x1024_c64_cfg87",
# db-dump/2026-04-27, lmsysorg/sglang:v0.5.9-cu130: TTFT 799 ms, TPOT 22.5 ms); its launch script
# (SemiAnalysisAI/InferenceX benchmarks/single_node/dsr1_fp8_b200.sh) passes
# --scheduler-recv-interval 30 at TP 8 and 16 users or more.
DSR1: dict[str, Any] = {
    "model": {"preset": "deepseek-v3"},
    "framework": "sglang",
    "hardware": {"gpu": "b200-192gb"},
    "parallelism": {"tensor": 8},
    **inferencex_1k1k(64, engine_version="0.5.9"),
}
MEASURED_TTFT = 0.799


def _every(n: int | None) -> dict[str, Any]:
    return with_serving(DSR1, scheduler_recv_interval=n)


def test_the_skippers_counter() -> None:
    """Decode steps weigh 1, a prompt step 1,000: polls every N decode steps, and at the loop
    after a prompt step."""
    poll = RecvPoll(30)
    assert [poll.handle(0.0) for _ in range(30)].count(True) == 1  # the 30th loop
    assert poll.steps_to_poll() == 30
    poll.decoded(10)  # a stretch of 10 decode steps after that handle: 9 more loops counted
    assert poll.count == 9 and poll.steps_to_poll() == 21
    poll.after_prompt = True
    assert poll.handle(1.0) and poll.polled_at == 1.0


def test_a_request_waits_for_the_next_poll() -> None:
    """At 64 users a request reaches an engine that is decoding; with polls every 30 decode
    steps it waits part of a poll's period, so the first token comes later by a share of 30
    steps (the run's phase, not half exactly); every step still is one: polls do not change the
    step model. Measured 799 ms: the estimate moves toward it (0.17 -> 0.47, the rest is the
    prompt step, docs/evidence/speed.md), never past it."""
    plain, _ = times(DSR1)
    assert times(_every(1)) == times(DSR1)
    ten, _ = times(_every(10))
    thirty, tpot30 = times(_every(30))
    assert plain < ten < thirty < MEASURED_TTFT
    assert 5 * tpot30 < thirty - plain < 25 * tpot30


def test_an_idle_engine_takes_a_lone_user_at_once() -> None:
    """One user: nothing decodes when the request comes, the loop spins and receives at once."""
    one = with_serving(DSR1, concurrency=1, requests=4, length_spread=None)
    waited = with_serving(one, scheduler_recv_interval=30)
    assert times(waited) == times(one)


def test_refused_elsewhere() -> None:
    vllm = _every(30)
    vllm["framework"] = "vllm"
    vllm["serving"].pop("engine_version")
    with pytest.raises(ScenarioError) as err:
        estimate(vllm)
    assert "serving.scheduler_recv_interval" in str(err.value) and "sglang" in str(err.value)
    dp = _every(30)
    dp["parallelism"].update(attention_data=8, expert=8)
    with pytest.raises(ScenarioError) as err:
        estimate(dp)
    assert "DP attention" in str(err.value)
