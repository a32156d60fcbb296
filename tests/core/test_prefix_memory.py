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


def _llmd(users: int, shared: int | None, flashinfer: bool | None = None) -> dict[str, Any]:
    """One pod of the llm-d benchmark (Qwen3-32B, TP 2 on H100s, 64-token blocks) serving one
    customer's users: prompts of the shared prefix plus a question, one output token."""
    r = LLMD
    d = _scenario({"preset": r["model"]}, r["gpu"], users, r["shared"] + r["question"], r["output"])
    d["hardware"]["gpus_per_node"] = r["tensor"]
    d["parallelism"] = {"tensor": r["tensor"]}
    d["serving"].update(kv_block_tokens=r["block"], engine_version=r["engine_version"])
    if flashinfer is not None:
        d["serving"]["flashinfer_sampler"] = flashinfer
    if shared:
        d["serving"]["prefix"] = {"shared_tokens": shared}
    return d


def _demand(flashinfer: bool | None = None) -> float:
    """Share of the cluster's KV pool that every customer's users hold at once: the groups'
    KV (each prefix once, each user's own tokens) over the replicas' pools."""
    e = estimate(_llmd(LLMD["users_per_group"], LLMD["shared"], flashinfer)).engine
    assert e is not None and e.holds_load
    return LLMD["groups"] * e.load_bytes / (LLMD["replicas"] * e.kv_pool_bytes)


def test_llmd_shared_prefixes_fill_73_percent_of_the_pools() -> None:
    """llm-d's 150 customers of 5 users, a 6,000-token prefix and 1,200-token questions each,
    hold ~73 % of 8 pods' KV pools. Ours (vLLM 0.10.1's rules, the sort sampler): 87 %, +19 %,
    the whole gap our pool (263,296 tokens against the 307,328 the pods logged, -14 %); the
    load itself is 12,224 tokens a customer against the blog's 12,000 (whole 64-token blocks,
    the prefix's last 48 tokens per user, one output token)."""
    assert _demand() == pytest.approx(LLMD["published_demand"], rel=TOL), LLMD["source"]


def test_llmd_demand_is_the_prefix_held_once() -> None:
    """Without sharing the same users would need 2.6x our pools (the blog's arithmetic: 2.2x the
    logged ones, each user's 7,200 tokens): the figure is the sharing. FlashInfer's sampler
    (the other reading of the image) frees 3.5 GiB a rank and brings ours to +8 %."""
    alone = estimate(_llmd(LLMD["users_per_group"], None)).engine
    shared = estimate(_llmd(LLMD["users_per_group"], LLMD["shared"])).engine
    assert alone is not None and shared is not None
    no_share = LLMD["groups"] * alone.load_bytes / (LLMD["replicas"] * alone.kv_pool_bytes)
    assert no_share > 2.0 > 1.0 > _demand()  # the pods could not hold the users unshared
    assert _demand(flashinfer=True) == pytest.approx(LLMD["published_demand"], rel=0.10)


def test_llmd_pool_is_the_gap() -> None:
    """The pool each pod logged (307,328 tokens) against ours: the miss above is this one."""
    e = estimate(_llmd(1, None)).engine
    assert e is not None
    assert e.kv_capacity_tokens == pytest.approx(LLMD["published_pool_tokens"], rel=0.15)
