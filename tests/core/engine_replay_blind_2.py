"""The second blind round of engine start-up logs (tests/core/data/engine-logs-blind.json;
docs/evidence/serving.md, the second blind-round section): 2026 vLLM V1 logs and TensorRT-LLM's
C++ runtime, found after the estimator was written and replayed as engine_replay_blind.py
replays the first round (each in its own settings, the logged number read from the data file),
without changing a rule to fit them.
"""

from __future__ import annotations

from .replay_base import MiB, Replay, _vllm, available, kv, tokens

QWEN17 = "vllm-v1-2026-01-24gb-qwen3-1.7b-seqs1-ctx1024"
CODER_5090 = "vllm-v1-2026-05-rtx5090-qwen3-coder-30b-a3b-fp8-16k-util095-refused"
TRT_A4000 = "trtllm-0.14-rtx-a4000-qwen25-coder-05b-int8-default-build"
# Qwen/Qwen3-1.7B's config.json (huggingface.co/Qwen/Qwen3-1.7B): no preset
QWEN3_17B = {
    "name": "Qwen3 1.7B",
    "family": "qwen3",
    "layers": 28,
    "hidden_size": 2048,
    "attention_heads": 16,
    "kv_heads": 8,
    "head_dim": 128,
    "ffn_hidden_size": 6144,
    "mlp": "gated",
    "activation": "silu",
    "vocab_size": 151936,
    "tied_embeddings": True,
    "max_context": 40960,
    "norm": "rmsnorm",
    "qk_norm": "head",
}
# The RTX A4000 is not in the catalog: 16 GB GDDR6 (NVIDIA's datasheet), taken as 16,376 MiB
A4000 = {"gpu": {"id": "rtx-a4000-16gb", "name": "RTX A4000", "memory_bytes": 16376 * MiB}}
TRT_BUFFERS = (
    "the default trtllm-build (max_batch_size 2048, max_seq_len 32,768) sizes the runtime "
    "buffers (2.66 GB logged) and the decoder (5.76 GB) by the batch, the context and Qwen's "
    "151,936-token vocabulary, before the free-memory fraction: the rule charges the 6.89 GiB "
    "traced to the C++ runtime's allocations (core/serving/trt_buffers.py; 2.82 -> 1.45), not "
    "the sampling layers' scratch; with the whole 8.42 GiB logged the pool would read about "
    "5.2 GiB (+14 %)"
)


def replays_blind_2() -> list[Replay]:
    """The second blind round (2026 vLLM V1, TensorRT-LLM's C++ runtime), each in its settings."""
    from .engine_replay_blind import logged  # at call time: that module builds its list from this

    return [
        Replay(
            QWEN17,
            {
                **_vllm("qwen3-8b", "0.14.0", "rtx-4090-24gb", max_context=1024, max_sequences=1),
                "model": QWEN3_17B,  # the preset argument is replaced by the inline config
            },
            [
                ("available KV GiB", available, logged(QWEN17, "kv_cache")),
                ("KV tokens", tokens, logged(QWEN17, "kv_cache_tokens")),
            ],
        ),
        Replay(
            CODER_5090,
            {
                **_vllm("qwen3-30b-a3b", "0.20.0", "rtx-5090-32gb", max_context=16384, memory_fraction=0.95),
                "precision": {"weights": "fp8"},
            },
            [],  # a start-up verdict only: the issue prints no figure
            starts=False,
        ),
        Replay(
            TRT_A4000,
            {
                "model": {"preset": "qwen2.5-0.5b"},
                "workload": {"kind": "inference"},
                "framework": "tensorrt-llm",
                "precision": {"weights": "int8", "kv_cache": "fp16"},
                "hardware": A4000,
                "serving": {"engine_version": "0.14.0"},
            },
            [
                ("KV pool GiB", kv, logged(TRT_A4000, "kv_cache", "Allocated")),
                ("KV tokens", tokens, logged(TRT_A4000, "kv_cache", "cache (")),
            ],
            known={
                "KV pool GiB": TRT_BUFFERS,
                "KV tokens": "as KV pool GiB",
            },
        ),
    ]
