"""MLX's attention forward without a fused kernel (core/memory/attention_unfused.py;
docs/evidence/training.md, the section on MLX's unfused attention forward).

Sources:

- ml-explore/mlx v0.24.0 ``mlx/fast.cpp`` ``scaled_dot_product_attention``:
  ``sdpa_full_supported_head_dim = query_head_dim == value_head_dim && (query_head_dim == 64 ||
  query_head_dim == 80 || query_head_dim == 128)``, else ``return fallback(inputs)[0]``; the
  same list in ``mlx/backend/metal/scaled_dot_product_attention.cpp`` ``use_fallback`` through
  v0.32.0 (72 and 96 join at v0.32.1);
- mlx ``mlx/backend/common/ternary.h`` / ``mlx/backend/metal/softmax.cpp``: the ``where`` and the
  softmax take a donated input buffer, so one score-sized array is alive at a time;
- ml-explore/mlx-lm PR #839 (f18526f8, ``models/deepseek_v3.py``): the MLA prefill builds
  ``pe_scores`` [B, heads, L, keys] as the fused kernel's additive mask;
- tests/core/data/mlx-memory.json: mlx-lm PR #839's DeepSeek-V3 4-bit peaks, 383.213 GB at
  4,096 tokens and 398.605 GB at 16,384 on an M3 Ultra."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.memory.attention_unfused import (
    prefill_scores_bytes,
    training_scores_bytes,
    unfused_forward,
)
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.report import estimate_report
from gpusizer.core.pipeline.scenario import parse_scenario

RECORDS: dict[str, dict[str, Any]] = {
    r["id"]: r for r in json.loads((Path(__file__).parent / "data" / "mlx-memory.json").read_text())
}


def _train(preset: str, framework: str = "mlx", seq: int = 2048, recompute: str = "none") -> dict[str, Any]:
    return {
        "model": {"preset": preset},
        "framework": framework,
        "hardware": {"gpu": "apple-m3-ultra-512gb"},
        "workload": {"kind": "lora", "micro_batch_size": 2, "sequence_length": seq},
        "parallelism": {"recompute": recompute},
    }


def _both(raw: dict[str, Any]) -> tuple[Any, Any]:
    s = parse_scenario(raw)
    return s, resolve(s.model)


@pytest.mark.parametrize(
    ("preset", "unfused"),
    [
        ("llama-3.2-1b", False),  # head 64: sdpa_full
        ("llama-3.1-8b", False),  # head 128
        ("gemma-3-4b", True),  # head 256: fallback at every release
        ("deepseek-v3", True),  # MLA: query head 192, value head 128
    ],
)
def test_mlx_fuses_only_its_head_sizes(preset: str, unfused: bool) -> None:
    assert unfused_forward(*_both(_train(preset))) is unfused


def test_other_frameworks_are_always_fused() -> None:
    s, arch = _both(_train("gemma-3-4b", framework="huggingface"))
    assert not unfused_forward(s, arch)
    assert training_scores_bytes(s, arch) == 0.0
    assert prefill_scores_bytes(s, arch, 2048, 16384) == 0.0


def test_training_keeps_one_score_matrix_a_layer() -> None:
    s, arch = _both(_train("gemma-3-4b", seq=4096))
    # micro-batch 2 x 8 query heads x 4096^2 x 2 B (bf16), exact
    assert arch.heads == 8
    assert training_scores_bytes(s, arch) == 2 * 8 * 4096**2 * 2


def test_training_activations_grow_by_the_kept_scores() -> None:
    # every attention layer of a head-256 model keeps its softmax output; the same model's
    # full recompute keeps it for the rebuilt layer only
    none = estimate_report(_train("gemma-3-4b", seq=4096))["per_gpu"]["activations"]
    full = estimate_report(_train("gemma-3-4b", seq=4096, recompute="full"))["per_gpu"]["activations"]
    s, arch = _both(_train("gemma-3-4b", seq=4096))
    kept = training_scores_bytes(s, arch)
    assert none > arch.attention_layers * kept
    assert full < none and full > kept


def test_prefill_scores_of_a_chunk() -> None:
    raw = {"model": {"preset": "deepseek-v3"}, "framework": "mlx", "workload": {"kind": "inference"}}
    s, arch = _both(raw)
    # 2,048 queries x 16,384 keys x 128 heads x 2 B = 8.6 GB (mlx-lm's pe_scores)
    assert prefill_scores_bytes(s, arch, 2048, 16384) == 128 * 2048 * 16384 * 2


@pytest.mark.parametrize(
    ("record", "before", "after"),
    [
        ("mlx-pr839-m3ultra-deepseek-v3-4bit-4096", 0.9867, 0.9923),
        ("mlx-pr839-m3ultra-deepseek-v3-4bit-16384", 0.9508, 0.9723),
    ],
)
def test_deepseek_v3_prefill_scores_replayed(record: str, before: float, after: float) -> None:
    r = RECORDS[record]
    total = estimate_report(r["scenario"])["per_gpu"]["total"]
    # mlx-lm PR #839's "memory GB post" (mx.get_peak_memory); ratio was `before` without the
    # chunk's score matrix, within 0.001 of `after` with it
    assert total / 1e9 / r["published_gb"] == pytest.approx(after, abs=1e-3)
    assert after > before


def test_fused_mlx_answers_do_not_move() -> None:
    # head 128 on MLX: no scores kept or built (mlx-memory.json's Mistral / Llama / Qwen rows)
    s, arch = _both(RECORDS["mlx-issue1029-m4pro-llama3.1-8b-4bit-32k"]["scenario"])
    assert prefill_scores_bytes(s, arch, 2048, 32159) == 0.0
