"""gpt-oss startup logs (MXFP4 MoE, sliding-window attention) replayed: weights as vLLM's MoE
backend lays them out (core/moe_layout.py), the sort-based sampler of the 0.10/0.11 profile run
(38 B per logit, core/engines.py), and the start-up check with sliding-window layers charged
their window (core/kv_request.py). Records in tests/core/data/engine-logs.json; each URL is in
the record's ``source``."""

from __future__ import annotations

from .replay_base import Replay, _vllm, available, logged, logged_after, needed, w

MARLIN_10 = "vllm-v1-0.10-h100-gpt-oss-120b-marlin-refused"  # vllm#23278
BATCH_1024 = "vllm-v1-0.11-h100-gpt-oss-120b-batched1024-refused"  # vllm#27508
TRITON_14 = "vllm-v1-0.14-h100-gpt-oss-120b-triton-oom"  # vllm#33155
A100_20B = "vllm-v1-0.19-a100-gpt-oss-20b-util065"  # myoceane.fr, 2026-04-18


def moe_replays() -> list[Replay]:
    """The gpt-oss records, each in its own settings (the replayed release in the record's
    ``engine_version_note``)."""
    return [
        Replay(
            MARLIN_10,
            _vllm("gpt-oss-120b", "0.10.1"),
            [
                ("weights GiB (Marlin layout)", w, logged(MARLIN_10, "weights")),
                ("available KV GiB", available, logged(MARLIN_10, "kv_cache")),
            ],
            starts=False,
        ),
        Replay(
            BATCH_1024,
            _vllm("gpt-oss-120b", "0.11.0", memory_fraction=0.95, prefill_chunk_tokens=1024),
            [
                ("available KV GiB", available, logged(BATCH_1024, "kv_cache")),
                ("KV needed by one request GiB", needed, logged_after(BATCH_1024, "(131072), (", "error")),
            ],
            starts=False,
        ),
        Replay(
            TRITON_14,
            _vllm("gpt-oss-120b", "0.19.0", memory_fraction=0.97, max_context=5120, max_sequences=1),
            [("weights GiB (Triton layout)", w, logged(TRITON_14, "weights"))],
            starts=False,
            known={
                "starts": "ran out of memory after the load at 0.97; where is not in the "
                "excerpt (the estimate leaves 12 GiB of pool)"
            },
        ),
        Replay(
            A100_20B,
            _vllm("gpt-oss-20b", "0.19.0", "a100-sxm-80gb", memory_fraction=0.65, max_context=131072),
            [
                ("weights GiB (Marlin layout)", w, logged(A100_20B, "weights")),
                ("available KV GiB", available, logged(A100_20B, "kv_cache")),
            ],
        ),
    ]
