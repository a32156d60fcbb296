"""Draining a vLLM burst by prompt length: V1's admission by the first chunk's blocks, its prefix
cache through a preemption, and vLLM 0.11's Hopper rates (docs/evidence/speed.md sections 20
and 102)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.load import serving_load
from gpusizer.core.serving.scheduler_run import Run
from gpusizer.core.serving.scheduler_types import Engine, Workload

_RECORD = next(
    r
    for r in json.loads((Path(__file__).parent / "data" / "speed-figures.json").read_text())
    if r["id"] == "gpustack-vllm-0.11.0-qwen3-14b-h100-random-burst"
)


def _scenario(label: str) -> dict[str, Any]:
    return next(e["scenario"] for e in _RECORD["replay"] if e["label"] == label)


def _drain_seconds(label: str, requests: int) -> float:
    sv = estimate(_scenario(label)).serving
    assert sv is not None
    return requests * parse_scenario(_scenario(label)).workload.generated_tokens / sv.tokens_per_second


def test_a_burst_drains_as_its_prompt_length_grows() -> None:
    """GPUStack's vLLM 0.11.0 bursts of 500 Qwen3-14B requests on one H100 SXM: 98.91 s at
    2000/100 tokens, 227.57 s at 4000/200 (2.30x; the page's "Benchmark duration"). The model
    gave 3.9x when it admitted two prompts where one fit and recomputed every preempted prompt;
    2.65x now, within 20 % of the published growth. The drains themselves come out 1.47x and
    1.69x fast at the vendor Hopper GEMM share: that page's H100 runs every engine's bursts
    slower than the share other Hopper sources give (docs/evidence/speed.md section 104), a
    host's, not vLLM 0.11's, so not modelled."""
    two = _drain_seconds("output tokens/s (2000/100 x500)", 500)
    four = _drain_seconds("output tokens/s (4000/200 x500)", 500)
    assert four / two == pytest.approx(227.57 / 98.91, rel=0.20)
    assert 98.91 / two == pytest.approx(1.69, rel=0.03) and 227.57 / four == pytest.approx(1.47, rel=0.03)


def test_vllm_0_11_steps_on_hopper_against_the_pages_step_statistics() -> None:
    """The paged-KV share of ``vllm-0.11`` was solved from the 4K burst's median inter-token
    latency (43.93 ms); the 2K burst's (46.01 ms) is out of sample: a pure decode step over the
    full pool. Its P99 (642.06 ms) was read as a step with a full 8,192-token budget and set a
    16-bit GEMM share of 0.367; at the vendor Hopper share that step is 0.36 s, and the page's
    P99 is 1.77x it: the host's (docs/evidence/speed.md section 104)."""
    s = parse_scenario(_scenario("output tokens/s (2000/100 x500)"))
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), gpu)
    step = serving_load(s, gpu, em, st).step
    ctx = 2050.0
    running = em.kv_capacity_tokens / ctx
    decode = step.seconds(running, running * step.positions(ctx), sampled=running)
    assert decode == pytest.approx(0.04601, rel=0.05)
    chunk = 8192 - running
    full, rest = int(chunk // 2000), chunk % 2000
    a, r = step.chunk(0, 2000)
    a2, r2 = step.chunk(0, rest)
    mixed = step.seconds(
        running, running * step.positions(ctx), chunk, full + 1, full * a + a2, full * r + r2
    )
    assert 0.64206 / mixed == pytest.approx(1.77, rel=0.03)


def _run(cached: bool) -> Run:
    """A run of 24 requests of 1,000 + 200 tokens into a pool of 10,000 tokens: 9 fit their
    prompts, then the decodes outgrow the pool and the newest are preempted."""
    sc = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "hardware": {"gpu": "h100-sxm-80gb"},
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 200},
    }
    s = parse_scenario(sc)
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), gpu)
    step = serving_load(s, gpu, em, st).step
    eng = Engine(8192, True, True, 1024, 10_000, 16, "grow", cached_preemption=cached)
    return Run(step, eng, Workload(1000, 200, "burst", 24, 1.0, 24, False))


def test_admission_takes_the_blocks_of_the_first_chunk() -> None:
    """vLLM V1 schedules a waiting request only when ``allocate_slots`` finds blocks for the
    chunk it is given (a whole 1,000-token prompt under an 8,192-token budget): 9 of 1,016
    tokens fit in 10,000, not the 19 that half a prompt each would let in."""
    run = _run(cached=False)
    plan, _ = run._plan()
    assert sum(g.n for g, _ in plan) == 9


def test_a_preempted_request_keeps_its_cached_blocks() -> None:
    """With V1's prefix cache a preempted request is found again up to its last full block and
    recomputes the rest; without it, the whole prompt and output so far."""
    for cached in (False, True):
        run = _run(cached)
        res = run.run()
        assert res.completed == 24
    fresh, kept = _run(False), _run(True)
    fresh.run()
    kept.run()
    assert kept.now < fresh.now  # less recomputed, the same requests served
