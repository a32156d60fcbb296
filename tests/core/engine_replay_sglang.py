"""SGLang startup logs replayed under the rules of core/registry/sglang_reserve.py: the default
``mem_fraction_static`` with the cuts its version makes (a multimodal model's, DP attention,
speculative decoding, DeepEP). Records in tests/core/data/engine-logs.json; each URL is in the
record's ``source``."""

from __future__ import annotations

from .replay_base import Replay, kv, logged_after, tokens, w

GEMMA3 = "sglang-gemma3-h200-class"  # sglang PR 4826, main of 2025-03-27


def sglang_replays() -> list[Replay]:
    """The SGLang records the reserve rules decide, each in its own settings."""
    return [
        Replay(
            GEMMA3,
            {  # Gemma3ForConditionalGeneration at the 0.4.3 - 0.4.5 default: 0.88 (TP 1) x 0.95
                "model": {"preset": "gemma-3-4b"},
                "workload": {"kind": "inference"},
                "framework": "sglang",
                "hardware": {"gpu": "h200-141gb"},
                "serving": {"engine_version": "0.4.4"},
            },
            [
                ("weights GiB", w, logged_after(GEMMA3, "mem usage=", "weights")),
                ("KV pool GiB (K + V)", kv, 2 * logged_after(GEMMA3, "K size:", "kv_cache")),
                ("KV tokens", tokens, logged_after(GEMMA3, "#tokens:", "kv_cache")),
            ],
        ),
    ]
