"""serving.prefix's memory against Prompt Cache's published figures (Gim et al., MLSys 2024,
arXiv 2311.04934; tests/core/data/serving-features.json ``prefix_memory_prompt_cache``;
docs/evidence/serving.md §10, round 5): the KV a batch holds when its prompts share one cached
module, and what one cached token costs per model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.estimate import estimate

DATA = json.loads((Path(__file__).parent / "data" / "serving-features.json").read_text())
PC = DATA["prefix_memory_prompt_cache"]
TOL = 0.25  # the bar: a published figure within 25 %
MIB = 2**20  # Table 2's "MB" are MiB: 4 x layers x hidden_size bytes / 2^20 in every entry


def _scenario(model: dict[str, Any], gpu: str, users: int, prompt: int, output: int) -> dict[str, Any]:
    return {
        "model": model,
        "framework": "vllm",
        "hardware": {"gpu": gpu},
        "workload": {
            "kind": "inference",
            "prompt_tokens": prompt,
            "generated_tokens": output,
            "batch_size": users,
        },
        "serving": {"concurrency": users, "load": "steady"},
    }


def _model(row: dict[str, Any]) -> dict[str, Any]:
    return row["model_block"] if "model_block" in row else {"preset": row["model"]}


def test_shared_module_halves_the_batch_footprint() -> None:
    """§5.4: 100 requests of 2K-token prompts sharing one 1K-token module hold 50 % less KV
    with paged sharing. Ours: 1 - (1,024 + 100 x 1,025) / (100 x 2,049) = 49.5 % (the module
    held once, each request its own 1,024 prompt tokens and one output token)."""
    r = PC["sharing"]
    base = _scenario({"preset": r["model"]}, r["gpu"], r["users"], r["prompt"], r["output"])
    shared = _scenario({"preset": r["model"]}, r["gpu"], r["users"], r["prompt"], r["output"])
    shared["serving"]["prefix"] = {"shared_tokens": r["shared"]}
    alone, together = (estimate(x).engine for x in (base, shared))
    assert alone is not None and together is not None
    assert alone.holds_load and together.holds_load  # both arms fit: the ratio is of held KV
    reduction = 1 - together.load_bytes / alone.load_bytes
    assert reduction == pytest.approx(r["published_reduction"], rel=TOL), PC["source"]


def _cached_mib_per_token(row: dict[str, Any]) -> float:
    """Bytes of a cached 1,024-token module (§5.5's example length) over its tokens, in MiB."""
    d = _scenario(_model(row), "h200-141gb", 1, 1025, 1)
    d["serving"]["prefix"] = {"shared_tokens": 1024}
    sv = estimate_report(d)["serving"]
    assert sv["prefix_shared_tokens"] == 1024  # whole 16-token blocks, the last prompt token apart
    return float(sv["prefix_shared_tokens"] * sv["kv_bytes_per_token"]) / 1024 / MIB


@pytest.mark.parametrize("row", [r for r in PC["per_token"] if r["within"]], ids=lambda r: r["id"])
def test_cached_token_bytes(row: dict[str, Any]) -> None:
    """Table 2, multi-head models: one cached token is 4 x layers x hidden_size bytes at 16 bits
    (Llama 2 7B 0.50, 13B 0.78, Falcon-RW-1B 0.18, MPT-30B 1.31 MiB; ours the same to 4 %)."""
    ours = _cached_mib_per_token(row)
    assert ours == pytest.approx(row["published_mib_per_token"], rel=TOL), PC["source"]


@pytest.mark.parametrize("row", [r for r in PC["per_token"] if not r["within"]], ids=lambda r: r["id"])
def test_cached_token_bytes_query_head_sized(row: dict[str, Any]) -> None:
    """Table 2, grouped-query models (Llama 2 70B, Falcon 40B and 180B): the table sizes the
    cache by the query heads, as the prototype allocates it (promptcache/model/__init__.py
    ``get_cache_shape``), where an engine keeps the 8 KV heads. The miss is that ratio, no other:
    ours / published = kv_heads / attention_heads within 1 %."""
    ours = _cached_mib_per_token(row)
    m = estimate(_scenario(_model(row), "h200-141gb", 1, 1025, 1)).scenario.model
    assert m.kv_heads is not None and m.attention_heads is not None
    heads = m.kv_heads / m.attention_heads
    assert ours / row["published_mib_per_token"] == pytest.approx(heads, rel=0.01), row["note"]
    assert ours < (1 - TOL) * row["published_mib_per_token"]  # reported as a miss, not hidden


LLMD = DATA["prefix_memory_llmd"]
QWEN, LLAMA = LLMD["qwen_73"], LLMD["llama_x37"]


def _pod(row: dict[str, Any], users: int, prompt: int, output: int, shared: int | None) -> dict[str, Any]:
    """One llm-d pod (vLLM on H100s at the row's TP, 64-token blocks, release 0.10.1)."""
    d = _scenario({"preset": row["model"]}, LLMD["gpu"], users, prompt, output)
    d["hardware"]["gpus_per_node"] = row["tensor"]
    d["parallelism"] = {"tensor": row["tensor"]}
    d["serving"].update(kv_block_tokens=LLMD["block"], engine_version=LLMD["engine_version"])
    if shared:
        d["serving"]["prefix"] = {"shared_tokens": shared}
    return d


def _qwen(shared: int | None, flashinfer: bool | None = None) -> Any:
    """One customer's users on a Qwen3-32B pod: the shared prefix plus a question each."""
    d = _pod(QWEN, QWEN["users_per_group"], QWEN["shared"] + QWEN["question"], QWEN["output"], shared)
    if flashinfer is not None:
        d["serving"]["flashinfer_sampler"] = flashinfer
    e = estimate(d).engine
    assert e is not None and e.holds_load
    return e


def _demand(shared: int | None = QWEN["shared"], flashinfer: bool | None = None) -> float:
    """Share of the 8 pods' pools the 150 customers' users hold at once."""
    e = _qwen(shared, flashinfer)
    return QWEN["groups"] * e.load_bytes / (QWEN["replicas"] * e.kv_pool_bytes)


def test_llmd_shared_prefixes_fill_73_percent_of_the_pools() -> None:
    """llm-d's 150 customers of 5 users, a 6,000-token prefix and 1,200-token questions each,
    hold ~73 % of 8 Qwen3-32B pods' pools. Ours (vLLM 0.10.1's rules, the sort sampler): 87 %,
    +19 %, the gap our pool (263,296 tokens against the 307,328 each pod logged, -14 %); the load
    is 12,224 tokens a customer against llm-d's 12,000 (whole 64-token blocks: the prefix's last
    48 tokens stay each user's; one output token)."""
    assert _demand() == pytest.approx(QWEN["published_demand"], rel=TOL), LLMD["source"]
    assert _qwen(QWEN["shared"]).kv_capacity_tokens == pytest.approx(QWEN["published_pool_tokens"], rel=0.15)


def test_llmd_demand_is_the_prefix_held_once() -> None:
    """Unshared, the same users need 2.6x our pools (llm-d's arithmetic: 2.2x the logged ones):
    the figure is the sharing. FlashInfer's sampler (the other reading of the image) frees
    3.5 GiB a rank and brings ours to +8 %."""
    assert _demand(shared=None) > 2.0 > 1.0 > _demand()
    assert _demand(flashinfer=True) == pytest.approx(QWEN["published_demand"], rel=0.10)


def test_llmd_prefix_slots_beside_the_running_requests() -> None:
    """llm-d's X-37 sizing: a Llama-3.1-70B pod (TP 4 on H100s) holds 56 distinct 8,000-token
    prefixes beside 8 running requests of 1,000 question + 500 decoded tokens. Ours: the pod's
    pool less the load (one prefix shared, 8 requests' own tokens), in whole prefixes, plus the
    load's own: 48 (-14 %), the pool again (401,024 tokens against the 461,376 logged)."""
    r = LLAMA
    e = estimate(_pod(r, r["in_flight"], r["shared"] + r["question"], r["live_decode"], r["shared"])).engine
    assert e is not None and e.holds_load
    slots = 1 + int((e.kv_pool_bytes - e.load_bytes) // (r["shared"] * e.kv_bytes_per_token))
    assert slots == pytest.approx(r["published_slots"], rel=TOL), LLMD["source"]
    assert e.kv_capacity_tokens == pytest.approx(r["published_pool_tokens"], rel=0.15)
