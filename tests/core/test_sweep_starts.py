"""The Sweeps chart's fit test is the estimate's: a serving engine that does not start at a
value does not fit there, whatever its (reserved) peak. Llama 3.3 70B FP8 on one H100 80 GB
under vLLM with EAGLE-3 and the model's 131,072-token context: the weights and the drafter
leave a pool of ~2.2 GiB, and one request of max_context needs 40 GiB of KV cache
(2 x 80 layers x 8 KV heads x 128 x 2 B = 320 KiB a token), so vLLM refuses to start
(vllm/v1/core/kv_cache_utils.py ``check_enough_kv_cache_memory``); the chart said
"every prompt length up to 131,072 fits"."""

from __future__ import annotations

from gpusizer.core.pipeline.estimate import estimate, starts
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.views.sweep import sweep

EAGLE_70B = {
    "model": {"preset": "llama-3.3-70b"},
    "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 256},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "precision": {"weights": "fp8"},
    "serving": {"speculative": {"method": "eagle3"}},
}
VALUES = [1024, 4096, 16384, 65536, 131072]


def test_a_sweep_where_the_engine_does_not_start_fits_nowhere() -> None:
    s = parse_scenario(EAGLE_70B)
    est = estimate(s)
    assert not est.runs and not est.fits and not starts(s)  # one check, two callers
    r = sweep(s, "sequence_length", VALUES)
    assert all(t <= r.capacity_bytes for t in r.totals)  # the reserved pool alone would "fit"
    assert r.starts == (False,) * len(VALUES)
    assert r.largest_fitting is None and r.oom_at == VALUES[0]
    assert r.fits_under() == (False,) * len(VALUES)


def test_a_context_the_pool_holds_starts_and_fits_as_before() -> None:
    # the drafter's 1.31 GiB come out of the ~2.2 GiB budget (vLLM loads it before the profile
    # run), leaving a 0.88 GiB pool: max_context 4,096 (1.27 GiB with the drafter's layer) is
    # refused by the same check (core/serving/features.py ``reserve``); 2,560 (0.79 GiB) starts
    data = {**EAGLE_70B, "serving": {**EAGLE_70B["serving"], "max_context": 2560}}  # type: ignore[dict-item]
    s = parse_scenario(data)
    assert estimate(s).runs and starts(s)
    r = sweep(s, "sequence_length", [512, 1024, 2048])
    assert r.starts == (True, True, True) and r.largest_fitting == 2048 and r.oom_at is None
