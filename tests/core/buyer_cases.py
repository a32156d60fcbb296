"""The four buyer cases of issue 22 (docs/evidence/catalog.md, scripts/catalog_evidence.py):
70B serving for 50 users at 8k, DeepSeek-V3 serving, 8B LoRA, 70B on 1T tokens."""

from __future__ import annotations

from typing import Any

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.compare import size_gpus
from gpusizer.core.sizing.compare_rank import Money, price_options, sort_options
from gpusizer.core.sizing.solver import catalog_specs

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
    specs = catalog_specs(s.hardware)
    return {
        basis: sort_options(price_options(sized, specs, s.workload.is_training, Money(basis=basis)))
        for basis in ("cloud", "owned")
    }
