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
