"""SGLang start-up logs, a blind round (tests/core/data/engine-logs-sglang-blind.json): SGLang
0.4.1 - 0.5.19 on 80 GB Hopper parts, an RTX 3090 and 8 MI355X. Recorded as stated before any
replay, then replayed untuned through the same helpers as the other rounds
(tests/core/replay_base.py), each in its own settings, the logged number read from the data
file (never retyped). Releases older than the catalog's first SGLang entry (0.4.3,
core/registry/engine_releases_sglang.py) are replayed at its rules, as each record's
``engine_version_note`` says. What is off is reported with its reason in ``known``; records
that cannot be replayed are in ``UNCOVERED_SGLANG_BLIND``.
``python -m tests.core.engine_replay_sglang_blind`` prints the table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .replay_base import Replay, kv, tokens, w

DATA = Path(__file__).parent / "data" / "engine-logs-sglang-blind.json"
LOGS = {r["id"]: r for r in json.loads(DATA.read_text())}
TOLERANCE = 0.15  # the blind rounds' verdict: within 15 %

DOCS_JAN = "sglang-main-2025-01-docs-80gb-llama31-8b-131k-mfs088"
FA3_MAR = "sglang-main-2025-03-h100-llama31-8b-fa3-131k-mfs088"
R1_3090 = "sglang-0.4.2-rtx3090-wsl2-r1-distill-qwen-7b-131k-mfs088"
Q32_GKE = "sglang-0.5.19-h100-gke-qwen3-32b-8k-mfs090-memory-saver"
KIMI_355 = "sglang-0.5.8.post1-rocm-8xmi355x-tp8-kimi-k2.5-int4-262k-default"


def logged(record: str, field: str, label: str = "") -> float:
    """The number printed after ``label`` in a logged field (the first number without one)."""
    text = str(LOGS[record]["logged"][field])
    m = re.search(re.escape(label) + r"\s*(-?[\d,]*\.?\d+)", text)
    assert m, (record, field, label)
    return float(m.group(1).replace(",", ""))


def _sglang(preset: str, version: str, gpu: str, **serving: Any) -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "workload": {"kind": "inference"},
        "framework": "sglang",
        "hardware": {"gpu": gpu},
        "serving": {"engine_version": version, **serving},
    }


def _pool(record: str, tokens_field: str, tokens_label: str) -> list[tuple[str, Any, float]]:
    """The pool as SGLang prints it: K and V apiece (the pool is their sum) and its tokens."""
    return [
        ("KV pool GiB (K + V)", kv, 2 * logged(record, "kv_cache", "K size:")),
        ("KV tokens", tokens, logged(record, tokens_field, tokens_label)),
    ]


def _llama_replays() -> list[Replay]:
    """Llama-3.1-8B at TP 1 on an 80 GB part, 131,072 context, the default fraction."""
    jan = _sglang("llama-3.1-8b", "0.4.3", "h100-sxm-80gb", max_context=131072)
    mar = _sglang("llama-3.1-8b", "0.4.4", "h100-sxm-80gb", max_context=131072)
    return [
        Replay(DOCS_JAN, jan, _pool(DOCS_JAN, "max_total_num_tokens", "max_total_num_tokens=")),
        Replay(
            FA3_MAR,
            mar,
            [
                ("weights GiB", w, logged(FA3_MAR, "weights", "mem usage=")),
                *_pool(FA3_MAR, "kv_cache", "#tokens:"),
            ],
        ),
    ]


def _other_replays() -> list[Replay]:
    # DeepSeek-R1-Distill-Qwen-7B: the Qwen2.5-7B architecture with a 131,072 window
    r1 = _sglang("qwen2.5-7b", "0.4.3", "rtx-3090-24gb", max_context=131072)
    r1["model"] = {"preset": "qwen2.5-7b", "max_context": 131072}
    q32 = _sglang("qwen3-32b", "0.5.19", "h100-sxm-80gb", max_context=8192, memory_fraction=0.9)
    kimi = _sglang("kimi-k2.5", "0.5.8", "mi355x-288gb", max_context=262144, attention_backend="triton")
    kimi["parallelism"] = {"tensor": 8}
    return [
        Replay(R1_3090, r1, _pool(R1_3090, "max_total_num_tokens", "max_total_num_tokens=")),
        Replay(
            Q32_GKE,
            q32,
            [
                ("weights GiB", w, logged(Q32_GKE, "weights", "mem usage=")),
                ("KV pool GiB (K + V)", kv, logged(Q32_GKE, "kv_cache", "s,")),
                ("KV tokens", tokens, logged(Q32_GKE, "kv_cache", "GB for")),
            ],
        ),
        Replay(
            KIMI_355,
            kimi,
            [
                ("weights GiB", w, logged(KIMI_355, "weights", "mem usage=")),
                ("KV pool GiB", kv, logged(KIMI_355, "kv_cache", "KV size:")),
                ("KV tokens", tokens, logged(KIMI_355, "kv_cache", "#tokens:")),
            ],
        ),
    ]


_KNOWN: dict[str, dict[str, str]] = {}


def replays_sglang_blind() -> list[Replay]:
    """Every replayable record of engine-logs-sglang-blind.json, each in its own settings; the
    reasons of the figures that are off in ``known``."""
    out = [*_llama_replays(), *_other_replays()]
    for rp in out:
        rp.known.update(_KNOWN.get(rp.record, {}))
    return out


REPLAYS_SGLANG_BLIND = replays_sglang_blind()
UNCOVERED_SGLANG_BLIND = {
    "sglang-2025-07-docker-desktop-24gb-gpu-not-stated-llama31-8b": "the GPU is not stated",
    "sglang-0.4.6.post2-wsl2-gpu-not-stated-qwen3-0.6b-40k": "the GPU is not stated, and "
    "other processes hold all but 3.23 GB of it",
}


if __name__ == "__main__":
    from .engine_replay import table

    for x in table(REPLAYS_SGLANG_BLIND):
        ok = x.ok if x.name == "starts" else abs(x.error) <= TOLERANCE
        print(
            f"{'ok ' if ok else 'OFF'} {x.record:<64} {x.name:<22} {x.estimate:>14,.2f} "
            f"{x.logged:>14,.2f} {x.error:+7.1%}"
        )
