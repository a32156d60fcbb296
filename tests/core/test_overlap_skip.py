"""TensorRT-LLM's overlap scheduler in the simulated run (``Scheduling.overlap_skip``,
core/serving/scheduler_run.py; docs/evidence/speed.md, the section on TensorRT-LLM's first
tokens in NVIDIA's H100 sweeps).

The PyTorch executor's overlap loop (py_executor.py ``_executor_loop_overlap``, 1.0): each pass
fetches new requests, schedules and launches step n + 1, then waits for step n and sends its
tokens. A request that arrives while step n + 1 runs is fetched at the next pass and runs in
step n + 2; a closed-loop user's next request follows the last token of step n, so it misses
steps n + 1 and n + 2. An idle engine blocks on its queue and takes a request at once."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.registry.engine_releases_cpp import TENSORRT_LLM
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.load import serving_load
from gpusizer.core.serving.scheduler import simulate
from gpusizer.core.serving.scheduler_types import Engine, Workload
from gpusizer.core.speed.step import StepModel

PROMPT, OUTPUT = 4096, 512


def _trt() -> dict[str, Any]:
    return {
        "model": {"preset": "qwen3-32b"},
        "framework": "tensorrt-llm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": PROMPT, "generated_tokens": OUTPUT},
        "precision": {"weights": "fp8"},
        "serving": {"engine_version": "1.0.0rc3"},
    }


def _step() -> StepModel:
    s = parse_scenario(_trt())
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), gpu)
    return serving_load(s, gpu, em, st).step


# aiconfigurator's generated engine for 8 users at 4k prompts: max_num_tokens 8 + 4096 + 1500,
# one prompt a step beside the decodes; the pool holds every request
ENGINE = Engine(8 + PROMPT + 1500, False, True, 8, 1_000_000, 32, "reserve", overlap_skip=2)


Load = Literal["steady", "burst", "rate"]


def _run(load: Load, users: int, requests: int, skip: int) -> Any:
    w = Workload(PROMPT, OUTPUT, load, users, 0.0, requests, False)
    return simulate(_step(), replace(ENGINE, overlap_skip=skip), w)


def test_the_pytorch_releases_skip_two_steps_the_cpp_runtime_none() -> None:
    skips = {r.version: r.scheduling.overlap_skip for r in TENSORRT_LLM}
    assert skips == {"0.5.0": 0, "0.19.0": 2, "1.0.0": 2}


@pytest.mark.parametrize(("load", "users", "requests"), [("steady", 1, 5), ("burst", 8, 8)])
def test_an_idle_engine_takes_a_request_at_once(load: Load, users: int, requests: int) -> None:
    # one user's next request finds the engine idle; a burst arrives before any step runs
    with_skip, without = _run(load, users, requests, 2), _run(load, users, requests, 0)
    assert with_skip.ttft == pytest.approx(without.ttft, rel=1e-9)
    assert with_skip.tpot == pytest.approx(without.tpot, rel=1e-9)


def test_a_returning_user_waits_two_steps_behind_the_others() -> None:
    # 8 users, exact lengths: after the first round each returning request misses two steps,
    # most of them another user's 4k prompt, so the mean first token grows by more than one
    # prompt step (the first round, an idle engine's, is unchanged)
    with_skip, without = _run("steady", 8, 80, 2), _run("steady", 8, 80, 0)
    prompt_step = _run("steady", 1, 1, 0).ttft
    assert with_skip.ttft > without.ttft + prompt_step
    assert with_skip.completed == without.completed == 80
