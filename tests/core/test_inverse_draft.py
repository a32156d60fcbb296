"""A pool engine's inverse with a speculative draft and a shared prefix round-trips: the card
size ``required_bytes`` names runs, 200 MiB (here 16 MiB) less does not
(core/serving/inverse.py ``kv_moved``, ``need_cut``; core/serving/features.py ``reserve``).

The engine's checks this inverts: vLLM ``vllm/v1/core/kv_cache_utils.py``
``check_enough_kv_cache_memory`` refuses unless the pool holds one request of ``max_context``,
the proposer's layers in the KV cache spec (so its KV too), once the draft's weights took their
share of the budget; TensorRT-LLM 1.0 ``tensorrt_llm/_torch/pyexecutor/_util.py``
``_cal_max_tokens`` sizes the pool as ``(total - peak + profiling KV) x
free_gpu_memory_fraction``, the peak holding the target's and the draft's weights, so the draft
takes ``fraction`` of its bytes from the pool and the smallest device grows by its bytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.features import featured_memory
from gpusizer.core.serving.rules import memory_rule

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"
MiB = 2**20


def chat(**changes: Any) -> dict[str, Any]:
    """Llama 3.3 70B FP8, EAGLE-3, a shared 2,048-token prefix, max_context 8,192 (vLLM 0.20)."""
    data: dict[str, Any] = json.loads((BUYER / "serve-70b-chat.gpusizer.json").read_text())
    return data | changes


def sized(data: dict[str, Any], gpu: str) -> Any:
    """``on(capacity)``: the featured engine memory on ``gpu`` resized to ``capacity`` bytes
    (settings held fixed, as tests/core/test_inverse_floor.py), and the rule."""
    s = parse_scenario(data)
    spec, rule = gpu_spec(gpu), memory_rule(s.profile)
    arch, counts = resolve(s.model), count_parameters(s.model)
    st_ = rule.settings(s, spec)

    def on(capacity: int) -> Any:
        card = spec.model_copy(update={"usable_memory_bytes": capacity})
        return featured_memory(s, arch, counts, rule.memory(s, arch, counts, card, st_), st_)

    return on, rule, spec


CASES = [
    # (gpu, fraction, pipeline): the three the bisection of docs/evidence/serving.md §55 left
    # 42 MiB, 160 MiB and 1.4 GiB above the smallest card that ran
    ("rtx-5070-12gb", 0.85, 40),
    ("rtx-5080-16gb", 0.9, 10),
    ("h100-sxm-80gb", 0.92, 1),
]


@pytest.mark.parametrize(("gpu", "fraction", "pp"), CASES)
def test_draft_and_prefix_round_trip_within_16_mib(gpu: str, fraction: float, pp: int) -> None:
    """The named card runs; 16 MiB less does not (before: the forward let the draft shrink the
    pool under one max_context request and still start, so cards up to 1.4 GiB under the
    answer ran; the inverse had the request's draft KV missing)."""
    serving = chat()["serving"] | {"memory_fraction": fraction}
    on, rule, spec = sized(chat(serving=serving, hardware={"gpu": gpu}, parallelism={"pipeline": pp}), gpu)
    need = on(spec.capacity_bytes).required_bytes
    at = on(need + 1)
    assert rule.runs(at, need + 1), (at.reason, at.holds_load, need)
    below = need - 16 * MiB
    short = on(below)
    assert not rule.runs(short, below), need
    # the check that refuses is the engine's own: one max_context request over the pool
    assert not short.starts and "one request of max_context 8,192 tokens" in (short.reason or "")


def test_the_prefix_saving_moves_no_need_a_max_context_request_sets() -> None:
    """On one H100 at 0.92 one 8,192-token request (2.68 GiB of KV, more with EAGLE-3's layer)
    sets the pool's need, not the load: the prefix changes no byte of the inverse."""
    serving = chat()["serving"] | {"memory_fraction": 0.92}
    base = chat(serving=serving, hardware={"gpu": "h100-sxm-80gb"})
    no_prefix = base | {"serving": {k: v for k, v in serving.items() if k != "prefix"}}
    with_p, _, spec = sized(base, "h100-sxm-80gb")
    without, _, _ = sized(no_prefix, "h100-sxm-80gb")
    em = with_p(spec.capacity_bytes)
    assert em.request_bytes > em.load_bytes
    assert em.required_bytes == without(spec.capacity_bytes).required_bytes


def test_tensorrt_llm_draft_weights_count_once_in_the_inverse() -> None:
    """TensorRT-LLM (free_gpu_memory_fraction 0.9 of what the weights leave): EAGLE-3's 0.70 GB
    per GPU (TP 2) raise the smallest device by their bytes, not by bytes / 0.9 (78 MB more
    before), and take 0.9 of them from the pool; the answer round-trips within 16 MiB."""
    data = chat(framework="tensorrt-llm", parallelism={"tensor": 2}, hardware={"gpu": "h100-sxm-80gb"})
    data["serving"] = {k: v for k, v in data["serving"].items() if k != "prefix"}
    on, rule, spec = sized(data, "h100-sxm-80gb")
    no_draft = data | {"serving": {k: v for k, v in data["serving"].items() if k != "speculative"}}
    bare, _, _ = sized(no_draft, "h100-sxm-80gb")
    em, em0 = on(spec.capacity_bytes), bare(spec.capacity_bytes)
    w = em.memory.weights - em0.memory.weights
    assert 0.69e9 < w < 0.71e9
    # the pool gives up 0.9 x the draft's weights (within a byte of rounding)
    assert abs((em0.kv_pool_bytes - em.kv_pool_bytes) - 0.9 * w) <= 1
    need = em.required_bytes
    assert rule.runs(on(need + 1), need + 1)
    assert not rule.runs(on(need - 16 * MiB), need - 16 * MiB)
