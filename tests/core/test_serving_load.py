"""Serving under a stated load (core/serving/scheduler.py, core/serving/load.py): the
scheduler's mechanics checked one by one against what they must give exactly or by bound.
Published figures are replayed in test_speed_figures.py."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of as _model
from gpusizer.core.registry.chat_template_parse import KWARGS_PARSE
from gpusizer.core.registry.engine_releases_vllm_v1 import VLLM_FRONT_END
from gpusizer.core.registry.engines import TOKENISE_PER_TOKEN
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.load import serving_load
from gpusizer.core.serving.scheduler import simulate
from gpusizer.core.serving.scheduler_run import Run
from gpusizer.core.serving.scheduler_types import TIME_BOXED_STEPS, Engine, Workload
from gpusizer.core.speed.step import StepModel


def _vllm(**serving: Any) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
        "serving": {"max_context": 8192, **serving},
    }


def _step(sc: dict[str, Any]) -> StepModel:
    s = parse_scenario(sc)
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *_model(s.model), gpu)
    return serving_load(s, gpu, em, st).step


def _sv(sc: dict[str, Any]) -> Any:
    sv = estimate(sc).serving
    assert sv is not None
    return sv


# vLLM's API server per 1,024-token request: its fixed cost and the prompt's tokenising
# the current release's chat cost: 0.11.0's measured one less the template parse 0.11.0 does on
# every request and later releases cache (core/registry/chat_template_parse.py)
FRONT_END_1K = VLLM_FRONT_END - KWARGS_PARSE + 1024 * TOKENISE_PER_TOKEN


def test_one_user_is_one_request_after_another() -> None:
    # a lone request: its prompt in one step (1,024 < the 8,192 budget), then 255 decode steps
    # whose context grows from 1,025 to 1,279 (their mean: the step at the middle, exact since
    # a decode step is linear in the context); E2E = TTFT + 255 TPOT; tokens/s = 256 / E2E;
    # TTFT and E2E as the client sees them, with the API server's cost per request
    sc = _vllm(load="steady", concurrency=1)
    sv, step = _sv(sc), _step(sc)
    assert sv.ttft_seconds == pytest.approx(step.prefill_seconds(1024) + FRONT_END_1K, rel=1e-9)
    assert sv.tpot_seconds == pytest.approx(step.decode_seconds(1, 1025 + 127), rel=1e-3)
    assert sv.e2e_seconds == pytest.approx(sv.ttft_seconds + 255 * sv.tpot_seconds, rel=1e-9)
    assert sv.tokens_per_second == pytest.approx(256 / sv.e2e_seconds, rel=1e-9)
    assert sv.ttft_p99_seconds == sv.ttft_seconds and sv.load == "steady"


def test_a_burst_queues_its_prompts_behind_each_other() -> None:
    # 32 prompts of 1,024 tokens against an 8,192-token budget: 8 per step, so the last wait
    # 4 steps; the mean is between one and four prefill steps, the p99 the last
    sv, step = _sv(_vllm(load="burst", concurrency=32)), _step(_vllm())
    one = step.prefill_seconds(1024)
    assert sv.ttft_p99_seconds > 3.5 * one
    assert one < sv.ttft_seconds < sv.ttft_p99_seconds


def test_under_load_prefill_chunks_slow_the_decodes() -> None:
    # while prompts wait, every vLLM step carries a prefill chunk (max_num_batched_
    # tokens), so the time per output token of 64 steady users is above a pure decode step
    # of 64 sequences at the same mean context
    sc = _vllm(load="steady", concurrency=64, requests=256)
    sv, step = _sv(sc), _step(sc)
    assert sv.tpot_seconds > 1.05 * step.decode_seconds(64, 1024 + 128)


def test_an_overloaded_rate_builds_a_queue() -> None:
    # Poisson arrivals above what the engine serves: requests wait longer and longer; the mean
    # wait of the i-th of R requests arriving at lambda and served at mu < lambda is about
    # i (1/mu - 1/lambda), so the mean TTFT is about R/2 (1/mu - 1/lambda) (within 35 %: the
    # service rate is not constant while the queue fills)
    # (16 requests run at most: beyond, arrivals wait for a seat)
    base = _vllm(load="rate", request_rate=1.0, requests=300, max_sequences=16)
    calm = _sv(base)
    assert calm.ttft_seconds < 0.2  # below capacity: no queue to speak of
    mu = _sv({**base, "serving": {**base["serving"], "load": "burst", "concurrency": 300}})
    served = mu.tokens_per_second / 256  # requests per second at saturation
    rate = 1.5 * served
    busy = _sv({**base, "serving": {**base["serving"], "request_rate": rate}})
    assert busy.ttft_seconds == pytest.approx(150 * (1 / served - 1 / rate), rel=0.35)
    assert busy.ttft_p99_seconds > 1.5 * busy.ttft_seconds


def test_the_pool_limits_running_requests_and_preemption_finishes_all() -> None:
    # a pool of ~20k tokens holds ~15 requests of 1,280 tokens: vLLM admits by what the prompt
    # needs and preempts when decodes outgrow the pool; every request still completes
    step = _step(_vllm())
    w = Workload(1024, 256, "burst", 64, 1.0, 64, False)
    small = Engine(8192, True, True, 1024, 20_000, 16, "grow")
    big = Engine(8192, True, True, 1024, 1_000_000, 16, "grow")
    res_small, res_big = simulate(step, small, w), simulate(step, big, w)
    assert res_small.completed == res_big.completed == 64
    assert res_small.running < 16 < res_big.running
    reserve = simulate(step, Engine(8192, True, True, 1024, 20_000, 16, "reserve"), w)
    assert reserve.completed == 64 and reserve.running <= 20_000 // 1280


def test_runs_are_deterministic_and_a_default_run_is_time_boxed() -> None:
    sc = _vllm(load="rate", request_rate=3.0, requests=200)
    assert _sv(sc) == _sv(sc)
    step = _step(_vllm())
    eng = Engine(8192, True, True, 4096, 10_000_000, 16, "grow")
    run = Run(step, eng, Workload(1024, 256, "steady", 4096, 1.0, 200_000, True, 0.3))
    res = run.run()
    assert run.evals <= TIME_BOXED_STEPS + 2 and run.st.done < 200_000
    # stopped before a request completed: the steps it ran give TPOT and tokens/s
    assert res.tpot == pytest.approx(run.st.decode_time / run.st.decode_steps) and res.tokens_per_second > 0


def test_a_rate_load_needs_its_rate() -> None:
    with pytest.raises(ScenarioError, match=r"serving\.request_rate"):
        estimate_report(_vllm(load="rate"))


def test_a_length_spread_desynchronises_the_waves() -> None:
    # identical requests of steady users stay in lockstep waves (all prompts at once); lengths
    # that differ spread the completions, so later prompts come one group at a time
    sc: dict[str, Any] = {**_vllm(load="steady", concurrency=64, requests=640), "framework": "sglang"}
    same, spread = _sv(sc), _sv({**sc, "serving": {**sc["serving"], "length_spread": 0.1}})
    assert spread.ttft_seconds < same.ttft_seconds


def test_vllm_0_11_sampler_peak_follows_flashinfer() -> None:
    # vLLM 0.11.0's profile run samples 1,024 sequences over the vocabulary: PyTorch's sort path
    # holds 38 B per logit, FlashInfer's top-k/top-p (the default when FlashInfer is installed)
    # 14 B. Mistral-Small 3.x (vocab 131,072): 4.75 GiB vs 1.75 GiB (2.1 GiB logged, with the
    # dummy forward's live activations; mechanisms in core/registry/engine_releases.py)
    sc: dict[str, Any] = {
        "model": {"preset": "mistral-small-3.1-24b"},
        "framework": "vllm",
        "workload": {"kind": "inference"},
        "serving": {"engine_version": "0.11.0", "max_context": 32768},
    }
    pytorch = estimate_report(sc)["per_gpu"]["temporary"]
    flashinfer = estimate_report({**sc, "serving": {**sc["serving"], "flashinfer_sampler": True}})
    assert pytorch == pytest.approx(1024 * 131072 * 38, rel=1e-6)
    assert flashinfer["per_gpu"]["temporary"] == pytest.approx(1024 * 131072 * 14, rel=1e-6)
    assert flashinfer["serving"]["kv_pool_bytes"] > estimate_report(sc)["serving"]["kv_pool_bytes"]


@pytest.mark.parametrize(
    ("version", "per_logit", "flashinfer"),
    [
        ("0.11.0", 38, False),
        ("0.19.0", 16, False),
        ("0.20.0", 16, False),
        ("0.21.0", 14, True),
        (None, 14, True),
    ],
)
def test_the_sampler_path_is_each_release_default(
    version: str | None, per_logit: int, flashinfer: bool
) -> None:
    # vLLM's default per release (core/registry/engine_releases.py): 0.11.0's PyPI wheel has no
    # FlashInfer (the sort); 0.19-0.20 install it but keep its sampler off (PR #26859); from
    # 0.21.0 it samples by default (PR #40376). The assumptions say which path the peak is for.
    sc: dict[str, Any] = {
        "model": {"preset": "mistral-small-3.1-24b"},
        "framework": "vllm",
        "workload": {"kind": "inference"},
        "serving": {"max_context": 32768, **({"engine_version": version} if version else {})},
    }
    rep = estimate_report(sc)
    assert rep["per_gpu"]["temporary"] == pytest.approx(1024 * 131072 * per_logit, rel=1e-6)
    note = next(a for a in rep["assumptions"] if a.startswith("profile-run sampler"))
    assert ("FlashInfer top-k/top-p" in note) is flashinfer and "default" in note


def test_tensorrt_llm_limits_hold_per_micro_batch() -> None:
    # _executor_loop_pp schedules each micro-batch with its own max_batch_size and
    # max_num_tokens (trtllm-bench sizes max_batch_size as the requests that fit / pp_size)
    from gpusizer.core.model.architecture import resolve
    from gpusizer.core.model.params import count_parameters
    from gpusizer.core.model.presets import scenario_gpu
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.serving.engine_memory import engine_memory
    from gpusizer.core.serving.load import serving_load

    def engine(pp: int) -> Any:
        s = parse_scenario(
            {
                "model": {"preset": "llama-3.1-8b"},
                "framework": "tensorrt-llm",
                "parallelism": {"pipeline": pp},
                "serving": {"max_sequences": 256, "prefill_chunk_tokens": 2048, "load": "burst"},
                "workload": {"kind": "inference", "batch_size": 1000},
            }
        )
        gpu = scenario_gpu(s)
        em, st = engine_memory(s, resolve(s.model), count_parameters(s.model), gpu)
        served = serving_load(s, gpu, em, st)
        assert served.run.completed == 1000
        return served.engine

    one, four = engine(1), engine(4)
    assert (four.max_running, four.budget) == (4 * one.max_running, 4 * one.budget) == (1024, 8192)


def test_the_api_server_cost_is_in_ttft_not_in_the_steps() -> None:
    # a request waits FRONT_END_1K's fixed part in vLLM's API server (chat template, the hand-off to the
    # scheduler, the first token streamed back) and 1.03 us a prompt token tokenising its text
    # (engines.py TOKENISE_PER_TOKEN): TTFT and E2E grow by it, TPOT
    # does not; an offline run (serving.api_server false, vLLM's LLM class) has none
    served, offline = (
        _sv(_vllm(load="steady", concurrency=1)),
        _sv(_vllm(load="steady", concurrency=1, api_server=False)),
    )
    assert served.ttft_seconds - offline.ttft_seconds == pytest.approx(FRONT_END_1K, rel=1e-9)
    assert served.e2e_seconds - offline.e2e_seconds == pytest.approx(FRONT_END_1K, rel=1e-9)
    assert served.tpot_seconds == offline.tpot_seconds
    # one user's next request waits for the last one as the client sees it
    assert served.tokens_per_second == pytest.approx(256 / served.e2e_seconds, rel=1e-9)
