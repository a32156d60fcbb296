"""A shared system prompt beside multi-turn histories (``serving.prefix.shared_tokens`` with
``turns``; core/serving/multi_turn.py): every conversation's turn k sends the system prompt,
its history and its new tokens (vLLM ``benchmarks/multi_turn`` and LMCache's multi-round QA
state an optional shared system prompt before each user's history). The system prompt's
whole blocks are the first of every chain: found by every turn, held once (vLLM's
reference-counted blocks, SGLang's radix tree: core/serving/prefix.py), never evicted while
turns run (every turn touches them). Scenario: tests/core/test_multiturn_rules.py's (Llama 3.1
8B, H100, vLLM, 32 users, 5 turns of 1,000 + 100 tokens; mean history 2,200)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.multi_turn import history, turn_cached
from gpusizer.core.sizing.feature_words import feature_part
from gpusizer.io.serving_text import feature_lines

SYSTEM = 2000


def _chat(system: int | None = SYSTEM, **prefix: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"turns": 5, **prefix}
    if system is not None:
        block["shared_tokens"] = system
    return {
        "model": {"preset": "llama-3.1-8b"},
        "hardware": {"gpu": "h100-sxm-80gb"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 100, "batch_size": 32},
        "serving": {"prefix": block},
    }


def test_the_system_prompt_is_before_every_turn() -> None:
    """Mean prompt 2,000 + 1,000 + 2,200 = 5,200; cached the system prompt's 2,000 (125 whole
    16-token blocks) plus the histories' 2,195 found without it; shared 2,000 held once."""
    sv = estimate_report(_chat())["serving"]
    plain = estimate_report(_chat(None))["serving"]
    assert sv["prefix_mean_prompt_tokens"] == SYSTEM + plain["prefix_mean_prompt_tokens"] == 5200
    assert sv["prefix_shared_tokens"] == SYSTEM
    assert sv["prefix_cached_tokens"] == SYSTEM + plain["prefix_cached_tokens"]
    assert sv["prefix_hit_rate"] == plain["prefix_hit_rate"] == 1.0


def test_a_history_miss_still_finds_the_system_prompt() -> None:
    """``hit_rate`` 0 (no history found): the system prompt's blocks still are (every turn
    touches them), so the prefill skips 2,000 tokens a request, not 0."""
    sv = estimate_report(_chat(hit_rate=0.0))["serving"]
    assert sv["prefix_cached_tokens"] == SYSTEM and sv["prefix_hit_rate"] == 0.0


def test_held_once_more_users_fit() -> None:
    """The pool holds each conversation's own tokens and one copy of the system prompt: the
    users it holds are (pool - 2,000) / 3,300, within one of the whole pool over 3,300 (the
    histories alone), far above the pool over 5,300 (a copy a request)."""
    sv = estimate_report(_chat())["serving"]
    plain = estimate_report(_chat(None))["serving"]
    assert plain["prefix_users_held"] - 1 <= sv["prefix_users_held"] <= plain["prefix_users_held"]
    assert sv["prefix_users_held"] > 1.5 * plain["prefix_users_held"] * 3300 / 5300


def test_the_histories_room_is_the_pool_less_the_system_prompt() -> None:
    """One user, a pool of the system prompt plus half of turn 5's history: the system prompt's
    2,000 and half the history's 4,400 (its front) are found."""
    s = parse_scenario(_chat())
    h = history(s, 5)
    assert turn_cached(s, 5, 1, SYSTEM + h / 2, 0, 1) == pytest.approx(SYSTEM + h / 2)


def test_no_offload_wait_for_the_system_prompt() -> None:
    """With a host tier and every history in the pool, nothing loads from the tier: the system
    prompt never leaves the GPU (the shared-prefix pattern's per-request load is not added)."""
    data = _chat()
    data["serving"]["kv_offload"] = {"capacity_gb": 200}
    sv = estimate_report(data)["serving"]
    assert sv["prefix_offload_tokens"] == 0 and sv["kv_offload_load_seconds"] == 0


def test_system_prompt_longer_than_a_turn_reads() -> None:
    """``shared_tokens`` above ``workload.prompt_tokens`` is refused for a single shared prefix,
    not beside turns (it is before them)."""
    single = _chat(None)
    single["serving"]["prefix"] = {"shared_tokens": SYSTEM}
    with pytest.raises(Exception, match=r"serving\.prefix\.shared_tokens"):
        estimate_report(single)
    assert estimate_report(_chat())["serving"]["prefix_shared_tokens"] == SYSTEM


def test_surfaces_say_the_system_prompt() -> None:
    """The CLI's multi-turn line and the Why name it; the single-prefix clause is not added."""
    est = estimate(parse_scenario(_chat()))
    part = feature_part(est)
    assert part is not None and "(a 2,000-token system prompt held once)" in part
    assert "prefix cache:" not in part
    sv = estimate_report(_chat())["serving"]
    (line,) = [x for x in feature_lines(sv) if "multi-turn" in x]
    assert line.endswith("the 2,000-token system prompt held once")
    notes = estimate_report(_chat())["assumptions"]
    assert any("a 2,000-token system prompt held once + history" in n for n in notes)


def test_without_the_system_prompt_as_before() -> None:
    """turns alone: no system prompt clause anywhere, nothing shared."""
    data = copy.deepcopy(_chat(None))
    sv = estimate_report(data)["serving"]
    assert sv["prefix_shared_tokens"] == 0
    assert all("system prompt" not in x for x in feature_lines(sv))
