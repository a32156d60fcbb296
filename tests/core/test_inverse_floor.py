"""A pool engine's inverse keeps its two terms apart (core/serving/inverse.py): bytes a feature
moves into the budget (a speculative proposer's weights, the shared prefix held once) move the
pool's term, not vLLM's start-up free check.

The expectation is the engine's own pair of checks (core/serving/rules/vllm.py):
``vllm/v1/worker/gpu_worker.py`` ``init_device`` refuses unless fraction x total is free at
start, and ``vllm/v1/core/kv_cache_utils.py`` ``check_enough_kv_cache_memory`` unless the pool
holds one request of ``max_context``. A layout that passes both on a card is held there, so the
smallest card that runs it (``required_bytes``) is no larger than that card. Before, a draft's
weights were added over the larger term even where the start-up check was it: Llama 3.3 70B FP8
with EAGLE-3 on 40 RTX 5070 12GB at fraction 0.85 started and held 5 requests of the load, yet
``required_bytes`` read 37 MB more than the card, and the count search found no RTX 5070 count
at any fraction where the 12.0 GB Arc B580 and RTX 3060 held on 40.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.sizing.layout_search import Evaluator
from gpusizer.core.sizing.layout_space import Layout
from gpusizer.core.sizing.search import catalog_targets, holds
from tests.core.test_inverse_draft import sized

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"
CHAT = "serve-70b-chat"  # Llama 3.3 70B FP8, EAGLE-3, shared 2,048-token prefix, vLLM 0.20


def case(name: str, fraction: float | None = None) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((BUYER / f"{name}.gpusizer.json").read_text())
    if fraction is not None:
        data["serving"]["memory_fraction"] = fraction
    return data


def row(data: dict[str, Any], gpu: str) -> dict[str, Any]:
    return {o["gpu"]: o for o in gpusizer.compare_gpus(data, gpus=[gpu])}[gpu]


def test_a_layout_both_checks_pass_is_no_larger_than_its_card() -> None:
    """PP 40 of the chat case on an RTX 5070 at 0.85, as the count search weighs it: the
    start-up check passes (0.15 of its 11.44 GiB total holds the 1.49 GiB of CUDA context and
    NCCL), the pool holds a max_context request and 5 of the load; the inverse is the larger
    of its terms (the draft added to the pool's alone) and within the card."""
    s = parse_scenario(case(CHAT, 0.85))
    g = catalog_targets(s, ["rtx-5070-12gb"])[0]
    held = Evaluator(s, g.hardware).scenario(Layout(tp=1, pp=40)).model_copy(update={"hardware": g.hardware})
    est = estimate(held)
    sv = est.serving
    assert sv is not None and sv.starts and est.requests_held == 5
    floor, pool = _terms(held)
    # the floor: init_device's free check, (1.49 GiB before the snapshot) / 0.15 + the driver's
    # 0.5 GiB = 10.42 GiB; the draft's 1.32 GiB / 0.85 went on it before, 11.98 GiB (12,858,274,995
    # bytes) over the card's 12,820,938,752; on the pool's term it reads 11.76 GiB
    assert 10.4 * 2**30 < floor < 10.45 * 2**30
    assert sv.required_bytes == max(floor, pool) == pool
    assert sv.required_bytes < g.capacity < 12_858_274_995
    assert holds(est, g.capacity)


def _terms(s: Any) -> tuple[int, int]:
    """(floor, pool's term) of the engine's inverse on ``s`` (core/serving/engine_memory.py)."""
    em, _ = engine_memory(s, resolve(s.model), count_parameters(s.model), gpu_spec(s.hardware.gpu))
    return em.floor_bytes, em.pool_need_bytes


def test_the_rtx_5070_holds_the_chat_case_where_the_other_12gb_cards_do() -> None:
    """The lever (core/sizing/fraction_lever.py) on the RTX 5070 read "no fraction fits" while
    the Arc B580 and RTX 3060 held on 40 at 0.85: it now names the same 40 (0.06 GiB less
    card, all of it in the pool's term, which 40 stages of two layers leave room for)."""
    for gpu in ("rtx-5070-12gb", "arc-b580-12gb", "rtx-3060-12gb"):
        lever = row(case(CHAT), gpu)["fraction_lever"]
        assert (lever["fraction"], lever["gpus"], lever["check"]) == (0.85, 40, "start_free"), (gpu, lever)
    # stated at 0.85, the count is over the consumer cap: the row says the cap, not memory
    o = row(case(CHAT, 0.85), "rtx-5070-12gb")
    assert o["unmet"] == "practical_limit", o["unmet_reason"]
    assert o["unmet_reason"].startswith("40 GPUs would hold it, but consumer cards stop at 32")


def test_16gb_cards_refuse_the_default_fraction_at_start_and_hold_at_0_9() -> None:
    """At vLLM 0.20's default 0.92 (vllm/config/cache.py) a 16 GB rank of several is refused
    by init_device: 0.08 of its 15.42 GiB total is less than the 1.49 GiB of CUDA context and
    NCCL, so free at start (13.93 GiB) < 0.92 x total (14.19 GiB), whatever the count; the
    per-GPU total under the card ("appears to hold") is the memory had it started. The search
    agrees (no count at 0.92); at 0.9 10 GPUs start and hold a replica (12 at 0.85 before:
    the draft's weights were counted over the start-up check's floor)."""
    data = case(CHAT) | {"hardware": {"gpu": "rtx-5080-16gb"}, "parallelism": {"pipeline": 10}}
    rep = gpusizer.estimate_report(data)
    assert rep["fits"] is False and rep["per_gpu"]["total"] < rep["gpu"]["memory_bytes"]
    assert (
        "free memory on the device (13.93 GiB) is less than memory_fraction x total (14.19 GiB)"
        in (rep["fit_reason"])
    )
    o = row(case(CHAT), "rtx-5080-16gb")
    # memory, not the consumer cap (core/sizing/practical.py, 32): the search ran to 4,096
    assert o["unmet"] == "memory" and "with up to 4,096 GPUs" in o["unmet_reason"]
    lever = o["fraction_lever"]
    assert (lever["stated_fraction"], lever["fraction"], lever["gpus"]) == (0.92, 0.9, 10), lever
    assert lever["check"] == "start_free"


@pytest.mark.parametrize(("gpu", "fraction", "pp"), [("rtx-5070-12gb", 0.85, 40), ("rtx-5080-16gb", 0.9, 10)])
def test_the_featured_inverse_round_trips_on_the_floor(gpu: str, fraction: float, pp: int) -> None:
    """The smallest card the inverse names, with the draft (EAGLE-3) and the shared prefix
    applied (core/serving/features.py ``featured_memory``), starts the engine, holds the load
    and fits (``MemoryRule.runs``; settings held fixed as in tests/core/test_memory_rules.py),
    and 200 MiB less does not (the slack of 42 and 160 MiB §55 left is gone: the draft's share of
    one max_context request, tests/core/test_inverse_draft.py). Before, the draft went over the
    start-up check's floor: 1.5 GiB more than needed, and a card 200 MiB under the answer still ran."""
    data = case(CHAT, fraction) | {"hardware": {"gpu": gpu}, "parallelism": {"pipeline": pp}}
    on, rule, spec = sized(data, gpu)
    need = on(spec.capacity_bytes).required_bytes
    at = on(need + 1)
    assert rule.runs(at, need + 1), (at.reason, at.holds_load, at.memory.total, need)
    below = need - 200 * 2**20
    assert not rule.runs(on(below), below), need
