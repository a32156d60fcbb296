"""MLX's unfused attention backward (core/memory/attention_vjp.py, ``FrameworkProfile.attention_vjp_scores``).

ml-explore/mlx v0.24.0 ``mlx/fast.cpp`` ``Custom::vjp`` differentiates the SDPA's unfused fallback
(still so on Metal at v0.32.1): one layer's backward holds three [batch, heads, L, L] arrays in the
activations' dtype (``Softmax::vjp``: the probabilities, their product with the cotangent and the
product with its row sum). Checked against mlx-lm PR #47's "Peak mem 69.810 GB" (Llama 3.2 1B
bf16 LoRA at 4 x 4096), tests/core/data/training-heldout.json.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.memory.attention_vjp import attention_vjp_bytes
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.registry.frameworks import FRAMEWORKS


def _lora(framework: str, seq: int = 4096, batch: int = 4) -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.2-1b"},
        "framework": framework,
        "hardware": {"gpu": "apple-m3-ultra-256gb" if framework == "mlx" else "h100-sxm-80gb"},
        "workload": {
            "kind": "lora",
            "micro_batch_size": batch,
            "sequence_length": seq,
            "lora_targets": ["q", "v"],
        },
        "precision": {"weights": "bf16"},
    }


def test_mlx_holds_three_score_matrices_in_one_layers_backward() -> None:
    # Llama 3.2 1B: 32 query heads; 3 x 4 x 32 x 4096^2 x 2 B (bf16) = 12.88 GB
    est = estimate(_lora("mlx"))
    assert attention_vjp_bytes(est.scenario, resolve(est.scenario.model)) == 3 * 4 * 32 * 4096**2 * 2


def test_only_a_profile_without_a_fused_attention_backward_pays_it() -> None:
    # every profile but MLX's has a fused (flash) backward: nothing added, answers unchanged
    assert [f for f, p in FRAMEWORKS.items() if p.attention_vjp_scores] == ["mlx"]
    est = estimate(_lora("huggingface"))
    assert attention_vjp_bytes(est.scenario, resolve(est.scenario.model)) == 0.0


def test_the_scores_grow_with_the_square_of_the_sequence_and_the_batch() -> None:
    # a polynomial of degree 2 in the sequence and 1 in the batch, as the phases' sweeps need
    def scores(seq: int, batch: int) -> float:
        est = estimate(_lora("mlx", seq, batch))
        return attention_vjp_bytes(est.scenario, resolve(est.scenario.model))

    one = scores(1024, 1)
    assert scores(2048, 1) == 4 * one
    assert scores(1024, 2) == 2 * one


def test_mlx_lm_pr47_without_splitting() -> None:
    # mlx-lm PR #47 (awni, 2025-03-22): "Trained Tokens 81900, Peak mem 69.810 GB" after 5
    # iterations of batch 4 at --max-seq-length 4096; mx.get_peak_memory() / 1e9. 15 %: the
    # held-out bar; 0.744 without the scores
    total = estimate_report(_lora("mlx"))["per_gpu"]["total"]
    assert total / 69.81e9 == pytest.approx(0.928, abs=0.01)
