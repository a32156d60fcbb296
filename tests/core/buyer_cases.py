"""The four buyer cases (docs/evidence/catalog.md, scripts/catalog_evidence.py):
70B serving for 50 users at 8k, DeepSeek-V3 serving, 8B LoRA, 70B on 1T tokens; and the
catalog's price coverage, counted the same way by the test and the evidence file."""

from __future__ import annotations

from typing import Any

from gpusizer.core.model.presets import gpu_presets, gpu_spec, system_presets
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.compare import size_gpus
from gpusizer.core.sizing.compare_rank import Money, price_options, sort_options
from gpusizer.core.sizing.miss_rank import Goals
from gpusizer.core.sizing.search import catalog_specs

CASES: dict[str, dict[str, Any]] = {
    "70B serving, 50 users at 8k": {
        "name": "Llama 3.1 70B, 50 users at 8k context",
        "model": {"preset": "llama-3.1-70b"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 7168, "generated_tokens": 1024},
        "serving": {"max_context": 8192},
        "targets": {"users": 50},
    },
    "DeepSeek-V3 serving": {
        "name": "DeepSeek-V3 (FP8 checkpoint), 16 users at 8k context",
        "model": {"preset": "deepseek-v3"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 7168, "generated_tokens": 1024},
        "serving": {"max_context": 8192},
        "targets": {"users": 16},
    },
    "8B LoRA": {
        "name": "Llama 3.1 8B LoRA on 100M tokens",
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "lora", "sequence_length": 2048, "micro_batch_size": 4, "training_tokens": 1e8},
    },
    "70B on 1T tokens": {
        "name": "Llama 3.1 70B pre-training on 1T tokens",
        "model": {"preset": "llama-3.1-70b"},
        "framework": "megatron",
        "workload": {"kind": "pretraining", "sequence_length": 4096, "training_tokens": 1e12},
    },
}


def options_on_both(scenario: dict[str, Any], whole_nodes: bool = True) -> dict[str, list[dict[str, Any]]]:
    """The comparison priced on each basis (one search)."""
    s = parse_scenario(scenario)
    sized = size_gpus(s, whole_nodes=whole_nodes)
    specs, goals = catalog_specs(s.hardware), Goals.of(s)
    return {
        basis: sort_options(price_options(sized, specs, s.workload.trains, Money(basis=basis)), "cost", goals)
        for basis in ("cloud", "owned")
    }


# Not rented by the hour (desk-side and unified-memory machines), China-only, or a discontinued
# HPC part: a missing rental price is then not a gap. Sold only as racks: a missing per-GPU
# purchase price is then not a gap (the rack's system has one).
NOT_RENTED = {
    "apple-m3-ultra-256gb": "Mac Studio: Mac clouds rent Mac minis by the day or month",
    "apple-m3-ultra-512gb": "Mac Studio: Mac clouds rent Mac minis by the day or month",
    "apple-m4-max-128gb": "Mac Studio: Mac clouds rent Mac minis by the day or month",
    "dgx-spark-128gb": "desk-side device, not rented by the hour",
    "ryzen-ai-max-395-128gb": "mini-PC SoC, not rented by the hour",
    "h20-96gb": "China-only part",
    "mi250x-gcd-64gb": "discontinued HPC part (Frontier, LUMI)",
}
RACK_ONLY = {"gb200-186gb", "gb300-288gb"}


def dated(date: str | None) -> bool:
    """A 2025-26 date (the issue's basis for purchase prices; rentals are dated 2025-26 too)."""
    return date is not None and date[:4] in ("2025", "2026")


def gpu_coverage() -> tuple[list[str], dict[str, str]]:
    """(GPUs covered, {GPU not covered: what is missing}): covered = a 2025-26 purchase price
    (or sold only as a rack) and a dated rental price on a stated basis (on-demand or
    marketplace), or not rented by the hour (``NOT_RENTED``)."""
    covered, gaps = [], {}
    for gid in gpu_presets():
        g = gpu_spec(gid)
        buy = (g.list_price_usd is not None and dated(g.list_price_date)) or gid in RACK_ONLY
        rent = (
            (g.price_per_hour is not None and dated(g.price_per_hour_date))
            or (g.price_per_hour_marketplace is not None and dated(g.price_per_hour_marketplace_date))
            or gid in NOT_RENTED
        )
        if buy and rent:
            covered.append(gid)
        else:
            gaps[gid] = ", ".join(w for w, ok in (("purchase", buy), ("rental", rent)) if not ok)
    return covered, gaps


def system_coverage() -> tuple[list[str], dict[str, str]]:
    """(systems covered, {system not covered: what is missing}), as :func:`gpu_coverage`."""
    covered, gaps = [], {}
    for s in system_presets().values():
        buy = s.list_price_usd is not None and dated(s.list_price_date)
        rent = s.price_per_hour is not None or s.gpu in NOT_RENTED
        if buy and rent:
            covered.append(s.id)
        else:
            gaps[s.id] = ", ".join(w for w, ok in (("purchase", buy), ("rental", rent)) if not ok)
    return covered, gaps
