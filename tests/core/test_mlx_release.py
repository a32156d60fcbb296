"""``workload.mlx_version``: from MLX 0.25.0 attention runs unfused under a gradient trace
(core/registry/mlx_releases.py, core/memory/attention_unfused.py).

ml-explore/mlx PR #2054 (e5d35aa18, first in v0.25.0, "no sdpa in grad"): v0.25.0
``mlx/fast.cpp`` ``if (!detail::in_grad_tracing() && implementation_supports_use_case)``; from
v0.26.0 ``ScaledDotProductAttention::use_fallback`` returns true ``if
(detail::in_grad_tracing())``. The fallback's softmax output is kept by every attention layer
that needs a gradient: micro-batch x heads x L^2 x 2 B (bf16) per layer. Exact bytes: no
tolerance. A scenario naming no release keeps v0.24.0's rule, byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.registry.mlx_releases import check_mlx_version, fuses_under_grad

HELDOUT = json.loads((Path(__file__).parent / "data" / "training-heldout.json").read_text())
PR47 = next(r for r in HELDOUT["records"] if r["id"].startswith("mlx-lm-pr47"))


def _lora(
    version: str | None = None,
    recompute: str = "none",
    framework: str = "mlx",
    rows: int = 2,
    length: int = 1024,
) -> dict[str, Any]:
    # Llama 3.2 1B (16 layers, 32 heads, head 64: fused by v0.24.0), adapters on all 16 layers
    workload: dict[str, Any] = {"kind": "lora", "micro_batch_size": rows, "sequence_length": length}
    if version is not None:
        workload["mlx_version"] = version
    return estimate_report(
        {
            "model": {"preset": "llama-3.2-1b"},
            "framework": framework,
            "hardware": {"gpu": "apple-m3-ultra-256gb"},
            "workload": workload,
            "parallelism": {"recompute": recompute},
            "precision": {"weights": "bf16"},
        }
    )


def test_no_release_is_v0_24s_rule_byte_for_byte() -> None:
    # mlx-lm PR #47's run (2025-03-22, v0.24.0's week): 0.928, unchanged by naming the release
    plain = estimate_report(PR47["recipe_scenario"])
    named = json.loads(json.dumps(PR47["recipe_scenario"]))
    named["workload"]["mlx_version"] = "0.24.0"
    assert estimate_report(named)["per_gpu"] == plain["per_gpu"]
    assert plain["per_gpu"]["total"] / PR47["figure_bytes"] == pytest.approx(0.9282, abs=0.0005)
    assert "mlx_version" not in plain["scenario"]["workload"]  # the echo reads as before


def test_from_0_25_every_layer_keeps_its_probabilities() -> None:
    # 16 layers x 2 rows x 32 heads x 1024^2 x 2 B, in the activations
    # against 0.24.2, the last fused release with 0.25.0's loss (mlx-lm's on 16-bit logits)
    old, new = _lora("0.24.2"), _lora("0.25.0")
    assert _lora("v0.29.0")["per_gpu"] == new["per_gpu"]
    extra = new["per_gpu"]["activations"] - old["per_gpu"]["activations"]
    assert extra == pytest.approx(16 * 2 * 32 * 1024**2 * 2)


def test_under_full_recompute_one_layers_probabilities_are_rebuilt() -> None:
    # mx.checkpoint keeps each layer's input; the rebuilt layer's probabilities join its phase,
    # the peak at 1 x 8192 (beside the three backward arrays of core/memory/attention_vjp.py)
    old = _lora("0.24.2", recompute="full", rows=1, length=8192)  # the same loss as 0.25.0
    new = _lora("0.25.0", recompute="full", rows=1, length=8192)
    assert new["per_gpu"]["total"] - old["per_gpu"]["total"] == pytest.approx(32 * 8192**2 * 2)


def test_the_release_boundary() -> None:
    assert fuses_under_grad(None) and fuses_under_grad("0.24.2") and fuses_under_grad("v0.24.0")
    assert not fuses_under_grad("0.25.0") and not fuses_under_grad("0.32.1")
    assert check_mlx_version("0.30") == "0.30"
    for bad in ("0.23.9", "latest", "0.2x"):
        with pytest.raises(ValueError, match=r"from 0\.24\.0"):
            check_mlx_version(bad)


def test_the_field_is_refused_for_another_framework() -> None:
    with pytest.raises(ScenarioError, match=r"workload\.mlx_version") as err:
        _lora("0.29.0", framework="huggingface")
    assert "mlx" in str(err.value)
