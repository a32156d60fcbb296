"""One answer's engine figures from one layout under expert parallelism inside TP (vLLM
``--tensor-parallel-size 8 --enable-expert-parallel``; core/serving/engine_memory.py).

Each vLLM V1 worker holds ``experts / EP`` whole experts (vllm/model_executor/layers/fused_moe/
config.py ``FusedMoEParallelConfig.make``: "each device owns a set of experts fully") and prints
its own "Available KV cache memory" = fraction x total - (weights + peak + non-torch)
(``gpu_worker.py determine_available_memory``); ``kv_cache_utils.py`` derives the tokens and
the concurrency from those bytes. So the memory the engine reserves beside its pool, the pool and
the estimate's weights are one GPU's. Before the fix ``engine_memory`` read the scenario as set
(experts divided by TP and again by EP: 4.47 GiB of weights, 7.09 GiB reserved, a 32.94 GiB pool)
while the estimate read the engine's layout (27.60 GiB, a 9.81 GiB pool): "available KV" read
+209 % on the 8 x L40S log.

Record: tests/core/data/engine-logs-blind2.json
``vllm-v1-0.10.2-8xl40s-tp8-ep-qwen3-235b-a22b-fp8-32k-util09`` (its ``source``: '# Hosting
Qwen3-235B-A22B-Instruct-2507-FP8 on 8xL40S', log of 2025-09-24): "Available KV cache memory:
10.65 GiB", "Actual usage is 27.72 GiB for weight".
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.engines import cuda_total_bytes
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.views.capacity import capacity_curve

from .engine_replay_logs_blind2 import Q235_L40S, logged
from .replay_base import _vllm

GiB = 2**30


def _scenario(ep: int) -> dict[str, Any]:
    par = {"tensor": 8, "expert": ep} if ep > 1 else {"tensor": 8}
    base = _vllm("qwen3-235b-a22b", "0.10.2", "l40s-48gb", tp=8, max_context=32768)
    return {**base, "precision": {"weights": "fp8"}, "parallelism": par}


def _available_and_pool(ep: int) -> tuple[float, float, float, float]:
    """(available KV by the engine memory, its pool, the estimate's pool, the estimate's
    weights), bytes."""
    s = parse_scenario(_scenario(ep))
    gpu = scenario_gpu(s)
    em, _ = engine_memory(s, resolve(s.model), count_parameters(s.model), gpu)
    est = estimate(s)
    assert est.serving is not None
    available = (em.fraction or 0.0) * cuda_total_bytes(gpu) - em.reserved_bytes
    return available, em.kv_pool_bytes, est.serving.kv_pool_bytes, est.memory.weights


def test_reserved_bytes_and_pool_are_one_layouts() -> None:
    # The budget less what is reserved is the pool the estimate reports (within a byte's
    # rounding): both from the one worker's layout
    available, pool, est_pool, _ = _available_and_pool(8)
    assert available == pytest.approx(pool, abs=1.0)
    assert pool == est_pool


def test_ep_inside_tp_holds_what_tp_holds() -> None:
    # experts / EP whole experts are the bytes of every expert's TP slice (expert_in_tensor.py):
    # the memory figures are TP 8's, per-expert padding and scales apart
    assert _available_and_pool(8) == pytest.approx(_available_and_pool(1), rel=1e-9)


def test_available_kv_against_the_log() -> None:
    # Source: the record above; tolerance 10 % (the engine-log replays' TOLERANCE).
    # Estimate 9.81 GiB against 10.65 logged (-8 %); before the fix 32.94 (+209 %)
    available, _, _, weights = _available_and_pool(8)
    assert available / GiB == pytest.approx(logged(Q235_L40S, "kv_cache"), rel=0.10)
    assert weights / GiB == pytest.approx(logged(Q235_L40S, "usage", "Actual usage is"), rel=0.10)


def test_capacity_curve_reads_the_same_layout() -> None:
    # The capacity view runs the engine's rule itself (core/views/capacity.py): its users at the
    # scenario's context are the same with EP 8 inside TP 8 as with TP 8
    ep, tp = capacity_curve(_scenario(8)), capacity_curve(_scenario(1))
    assert ep.users_at(32768) == tp.users_at(32768) > 0
