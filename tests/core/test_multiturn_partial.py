"""Partial hits of a partly evicted multi-turn history (core/serving/multi_turn.py ``held``):
both engines evict a history from its tail, so what survives of a conversation the pool no
longer holds whole is its front, and the next turn finds that much.

Sources: sgl-project/sglang python/sglang/srt/mem_cache/radix_cache.py (read at 006b0e3d)
``evict``: a heap of the evictable leaves by ``last_access_time`` (LRU), each popped leaf's
parent pushed once childless, and ``_match_prefix_helper`` stamping every node of the matched
path with one access time, so a conversation's chain goes leaf (newest turn) first; vLLM
``vllm/v1/core/single_type_kv_cache_manager.py`` ``free``: "Free blocks in reverse order so
that the tail blocks are freed first" into ``FreeKVCacheBlockQueue`` (``kv_cache_utils.py``:
"the least recently used block is at the front"), and ``get_computed_blocks`` matches the
longest run of cached blocks from the first."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.multi_turn import held, history


def _chat(request: int = 512, output: int = 64, rounds: int = 10) -> Any:
    return parse_scenario(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "sglang",
            "workload": {"kind": "inference", "prompt_tokens": request, "generated_tokens": output},
            "serving": {"prefix": {"turns": rounds}},
        }
    )


def _exact(h: int, capacity: float, users: int) -> float:
    """The share found, enumerated: the user at place p of one round and q of the next (each
    of ``users`` places equally likely, independent: bench_multiturn's random ready queue) has
    ``users - 1 - p + q`` others' histories of ``h`` more recent than its own; LRU keeps those,
    and of its own the front ``capacity - n h`` tokens."""
    total = 0.0
    for p in range(users):
        for q in range(users):
            n = users - 1 - p + q
            total += min(1.0, max(0.0, capacity / h - n))
    return total / users**2


def test_one_user_finds_the_front_that_fits() -> None:
    """One conversation whose history is twice the pool finds half of it (before: none)."""
    s = _chat()
    h = history(s, 5)
    assert held(s, 5, h / 2, 1) == pytest.approx(0.5)
    assert held(s, 5, 2 * h, 1) == 1.0


@pytest.mark.parametrize("users,k", [(4, 6), (16, 8), (128, 4), (128, 10)])
def test_the_law_is_the_enumerated_order(users: int, k: int) -> None:
    """``held``'s closed form against the enumerated random order, over capacities from a
    tenth to two rounds of histories: equal to float rounding."""
    s = _chat()
    h = history(s, k)
    for c in (0.1, 0.4, 0.8, 1.0, 1.3, 1.9):
        cap = c * h * users
        assert held(s, k, cap, users) == pytest.approx(_exact(h, cap, users), abs=1e-9)


def test_the_front_adds_to_the_whole_histories() -> None:
    """The share found lies between the share of turns whose whole history fits beside the
    others' and the share whose others alone fit (the rule before counted the latter whole,
    its history left out of the room: PR 27010's L1 rounds 8-9, 0.089 and 0.071 of the prompt
    then, serving.md)."""
    s = _chat()
    h, users = history(s, 10), 128

    places = [(users - 1 - p + q) for p in range(users) for q in range(users)]
    for cap in (50_000, 150_000, 262_144, 400_000):
        whole = sum(1 for n in places if (n + 1) * h <= cap) / len(places)
        others = sum(1 for n in places if n * h <= cap) / len(places)
        assert whole <= held(s, 10, cap, users) <= others
