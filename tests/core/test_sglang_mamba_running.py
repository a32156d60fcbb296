"""SGLang's state-pool cap on the requests run at once, in the simulated run: for a hybrid model
(Gated DeltaNet / Mamba layers beside attention) ``init_memory`` takes
``max_num_reqs = min(max_num_reqs, max_mamba_cache_size // 3)`` (sgl-project/sglang
python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py, read at 001ccef0,
``MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO`` = 3), whatever ``--max-running-requests`` is
set to. With short requests the KV share holds far more requests than the state slots, so the
slots, not the KV tokens, limit the run (core/serving/sglang_mamba.py, core/serving/load.py).
A vLLM hybrid and an SGLang dense transformer keep their running limit as before."""

from __future__ import annotations

import copy
from typing import Any

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.load import serving_load

# Qwen3.5-27B (48 Gated DeltaNet layers of 64) on one H200 under SGLang 0.5.16, as the cookbook
# cells of tests/core/test_speed_sglang_regimes.py, but 256 + 256 tokens a request and 1,024
# users: the KV share holds thousands of such requests, the state pool 66 (that file's cap).
BASE: dict[str, Any] = {
    "model": {"preset": "qwen3.5-27b"},
    "framework": "sglang",
    "hardware": {"gpu": "h200-141gb"},
    "workload": {"kind": "inference", "prompt_tokens": 256, "generated_tokens": 256},
    "serving": {"load": "steady", "concurrency": 1024, "requests": 1024, "engine_version": "0.5.16"},
}


def _run(scenario: dict[str, Any]) -> tuple[Any, Any]:
    s = parse_scenario(scenario)
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), gpu)
    return em, serving_load(s, gpu, em, st)


def _setting(scenario: dict[str, Any]) -> int | None:
    """The engine's own running limit (the setting or the release's default)."""
    s = parse_scenario(scenario)
    return engine_memory(s, *model_of(s.model), scenario_gpu(s))[1].max_sequences


def test_a_hybrid_on_sglang_runs_at_most_its_state_slots() -> None:
    em, served = _run(BASE)
    per = BASE["workload"]["prompt_tokens"] + BASE["workload"]["generated_tokens"]
    assert em.kv_capacity_tokens // per > 10 * em.state_cap  # the KV share does not bind
    assert 1 < em.state_cap < 1024
    assert served.engine.max_running == em.state_cap
    assert served.run.running <= em.state_cap  # the mean requests in a decode step


def test_a_set_max_running_requests_is_capped_too() -> None:
    # init_memory takes the min after reading --max-running-requests
    em, served = _run({**BASE, "serving": {**BASE["serving"], "max_sequences": 512}})
    assert served.engine.max_running == em.state_cap < 512
    small = {**BASE, "serving": {**BASE["serving"], "max_sequences": 8}}
    em, served = _run(small)
    assert served.engine.max_running == 8  # a setting below the cap stays


def test_vllm_and_a_dense_model_keep_their_limits() -> None:
    vllm = copy.deepcopy(BASE)
    vllm["framework"] = "vllm"
    del vllm["serving"]["engine_version"]
    em, served = _run(vllm)
    assert em.state_cap == 0
    assert served.engine.max_running == _setting(vllm)  # max_num_seqs, the release's default
    dense = {**BASE, "model": {"preset": "qwen3-32b"}}
    em, served = _run(dense)
    assert em.state_cap == 0
    assert served.engine.max_running == 1024  # the users: SGLang's unset limit, as before


def test_the_state_slots_a_request_follow_the_release_and_the_platform() -> None:
    # sgl-project/sglang#28151 (merged 2026-06-18, first in 0.5.15): auto -> extra_buffer where
    # overlap is on, 3 + MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP (2) slots a request; before it
    # auto -> no_buffer, 3; ROCm falls back to no_buffer (extra_buffer needs FLA: sglang#29965)
    from gpusizer.core.model.presets import gpu_spec
    from gpusizer.core.serving.sglang_mamba import slots_per_request

    h200, mi300x = gpu_spec("h200-141gb"), gpu_spec("mi300x-192gb")
    for version, slots in (("0.5.3", 3), ("0.5.14", 3), ("0.5.15", 5), ("0.5.16", 5), (None, 5)):
        serving = {**BASE["serving"], "engine_version": version}
        if version is None:
            del serving["engine_version"]
        s = parse_scenario({**BASE, "serving": serving})
        assert slots_per_request(s, h200) == slots, version
        assert slots_per_request(s, mi300x) == 3
    em, _ = _run(BASE)
    old, _ = _run({**BASE, "serving": {**BASE["serving"], "engine_version": "0.5.14"}})
    # the same states, 5 a request instead of 3 (the pool and its split unchanged)
    assert old.state_cap * 3 // 5 <= em.state_cap <= (old.state_cap * 3 + 2) // 5
