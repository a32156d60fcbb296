"""Scenarios that tests in several folders start from (core, io, gui), as the JSON a file holds.

Each is a plain dict shared between modules: a test that changes one builds a new dict
(``{**MOE_SPLIT, ...}``) or a deep copy, never edits it in place."""

from __future__ import annotations

from typing import Any


def vllm_serving(preset: str = "llama-3.1-8b", gpu: str = "h100-sxm-80gb", **blocks: Any) -> dict[str, Any]:
    """vLLM serving ``preset`` on ``gpu`` at a batch of 16, with ``blocks`` (``parallelism``,
    ``serving``, ...) added as given."""
    return {
        "model": {"preset": preset},
        "framework": "vllm",
        "workload": {"kind": "inference", "batch_size": 16},
        "hardware": {"gpu": gpu},
        **blocks,
    }


def megatron_moe_pretraining(global_batch: int = 512, **parallelism: Any) -> dict[str, Any]:
    """Qwen3-30B-A3B pre-training under Megatron on 8-GPU H100 nodes at 4,096 tokens a row, one
    row a micro-batch (NeMo RL's and Megatron-Bridge's Qwen3-30B-A3B training shape), with
    ``parallelism`` as given."""
    return {
        "model": {"preset": "qwen3-30b-a3b"},
        "framework": "megatron",
        "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
        "workload": {
            "kind": "pretraining",
            "sequence_length": 4096,
            "micro_batch_size": 1,
            "global_batch_size": global_batch,
        },
        "parallelism": parallelism,
    }


# Llama 3.1 8B under vLLM on one H100
VLLM = vllm_serving()
# Qwen3-30B-A3B (128 experts) on H100s under vLLM, split into one prefill and one decode replica
# of TP 2: the prefill pool's attention-DP ranks and expert span apply
MOE_SPLIT = vllm_serving(
    "qwen3-30b-a3b",
    parallelism={"tensor": 2},
    serving={"disaggregated": {"prefill_gpus": 2, "decode_gpus": 2}},
)
# Qwen3-30B-A3B RL under Megatron on GB200, experts over 8 GPUs: the fused MoE permutation applies
RL_MOE: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "megatron",
    "workload": {"kind": "rl"},
    "hardware": {"gpu": "gb200-186gb"},
    "parallelism": {"expert": 8, "data": 8},
}
# Qwen2.5-7B RL under FSDP on 8 H100s, its rollout on 8 more (split placement)
RL_SPLIT: dict[str, Any] = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
    "rl": {"placement": "split", "rollout": {"gpus": 8, "tensor": 1, "prompts_per_step": 64}},
}
# Llama 3.1 70B under vLLM for 64 users at a 1 s first token and 30 tokens/s each, split 4 + 4
# H100 at TP 4: 8 H100 aggregated miss the first token (2.65 s), a split meets it
LLAMA_70B_PD: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "framework": "vllm",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"tensor": 4},
    "workload": {"kind": "inference", "prompt_tokens": 4000, "generated_tokens": 500, "batch_size": 64},
    "serving": {"concurrency": 64, "load": "steady", "disaggregated": {"prefill_gpus": 4, "decode_gpus": 4}},
    "targets": {"users": 64, "max_ttft_seconds": 1.0, "min_tokens_per_second_per_user": 30},
}
