"""A disaggregated SGLang decode replica of a hybrid model runs at most its state pool's
requests, as the aggregated server does (core/serving/decode_slots.py, core/serving/sglang_mamba.py).

Source: sgl-project/sglang python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
``_resolve_max_num_reqs``: ``max_num_reqs`` (unset ``--max-running-requests``: half the pool's
tokens within 2,048-4,096) is then ``min(max_num_reqs, max_mamba_cache_size // ratio)`` for a
hybrid model, and in ``--disaggregation-mode decode`` the decode server's
``HybridMambaDecodeReqToTokenPool(size=max_num_reqs, ...)`` holds its running requests.
Scenario: tests/core/test_sglang_mamba_running.py's (Qwen3.5-27B, 48 Gated DeltaNet layers of
64, H200, SGLang 0.5.16, 256 + 256 tokens, 1,024 users), split 1 prefill + 1 decode GPU."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import gpusizer.core.serving.decode_slots as slots_module
from gpusizer import estimate_report
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.serving.engine_memory import engine_memory

BASE: dict[str, Any] = {
    "model": {"preset": "qwen3.5-27b"},
    "framework": "sglang",
    "hardware": {"gpu": "h200-141gb"},
    "workload": {"kind": "inference", "prompt_tokens": 256, "generated_tokens": 256, "batch_size": 1024},
    "serving": {
        "load": "steady",
        "concurrency": 1024,
        "engine_version": "0.5.16",
        "disaggregated": {"prefill_gpus": 1, "decode_gpus": 1},
    },
}


def _slots(monkeypatch: pytest.MonkeyPatch, data: dict[str, Any]) -> list[int]:
    """The decode replica's running slots, as the split reads them."""
    seen: list[int] = []
    real = slots_module.decode_slots

    def spy(*args: Any) -> int:
        seen.append(real(*args))
        return seen[-1]

    monkeypatch.setattr(slots_module, "decode_slots", spy)
    estimate_report(data)
    return seen


def _state_cap(data: dict[str, Any]) -> int:
    s = parse_scenario(data)
    return engine_memory(s, *model_of(s.model), scenario_gpu(s))[0].state_cap


def test_the_decode_replica_takes_the_state_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unset ``max_running_requests``: the pool's own slots (2,048 or more) are capped at the
    state pool's requests (66 here, the aggregated run's cap, test_sglang_mamba_running.py)."""
    d = copy.deepcopy(BASE)
    d["name"] = "hybrid-split"
    cap = _state_cap(d)
    assert 1 < cap < 1024
    assert _slots(monkeypatch, d) == [cap]


def test_a_setting_below_the_cap_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    d = copy.deepcopy(BASE)
    d["name"] = "hybrid-split-8"
    d["serving"]["max_sequences"] = 8
    assert _slots(monkeypatch, d) == [8]


def test_a_dense_model_keeps_its_pool_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    """No recurrent layers: no state cap; the slots are the pool's (2,048-4,096), as before."""
    d = copy.deepcopy(BASE)
    d["name"] = "dense-split"
    d["model"] = {"preset": "qwen3-32b"}
    assert _state_cap(d) == 0
    (got,) = _slots(monkeypatch, d)
    assert 2048 <= got <= 4096
