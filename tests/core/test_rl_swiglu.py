"""Megatron's SwiGLU without ``bias_activation_fusion`` (core/pipeline/rl_swiglu.py;
docs/evidence/rl.md section 16).

Sources: NeMo RL v0.4.0 ``grpo_math_1B.yaml`` (no ``bias_activation_fusion`` key; PR #1241 adds it
after the branch), Megatron-Bridge 62f4704 ``GPTModelProvider.bias_activation_fusion = False``
(kept by the Qwen3 providers), Megatron-LM af73aa2 ``TEGroupedMLP.forward`` and ``MLP.forward``.
The bytes are counted from that code; no RL figure sets them."""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.rl_swiglu import (
    DENSE_BACKWARD,
    DENSE_FORWARD,
    ROUTED_BACKWARD,
    ROUTED_FORWARD,
    extra_bytes_per_token,
    unfused_swiglu_seconds,
)
from gpusizer.core.pipeline.scenario import parse_scenario

from .rl_figures import FIGURES


def _model(preset: str):
    return parse_scenario({"model": {"preset": preset}}).model


def test_the_bytes_are_the_code_s_passes() -> None:
    # routed: silu 4 + mul 6 + FP32 probs mul 6 + cast back 6, against the fused kernel's 6
    assert ROUTED_FORWARD == (4 + 6 + 6 + 6) - 6
    # backward: cast 6, probs mul 8 + 6, mul 6 + 6, silu 6, the chunk's concatenation 8; fused 10
    assert ROUTED_BACKWARD == (6 + 8 + 6 + 6 + 6 + 6 + 8) - 10
    # dense: train_ops' eager gated MLP (5·a) against the fused (3·a), a = 2 bytes
    assert DENSE_FORWARD == 5 * 2 - 3 * 2
    assert DENSE_BACKWARD == (8 + 6 + 6 + 6) - 10


def test_qwen3_30b_a3b_routes_eight_experts_of_768() -> None:
    # 48 MoE layers x 8 x 768 values a token: 16 bytes each forward, 36 backward
    fwd, bwd = extra_bytes_per_token(_model("qwen3-30b-a3b"))
    assert fwd == pytest.approx(48 * 8 * 768 * 16)
    assert bwd == pytest.approx(48 * 8 * 768 * 36)


def test_a_dense_model_counts_its_mlp() -> None:
    # Qwen3-32B: 64 layers x 25,600 values, 4 bytes more forward, 16 backward
    fwd, bwd = extra_bytes_per_token(_model("qwen3-32b"))
    assert fwd == pytest.approx(64 * 25600 * 4)
    assert bwd == pytest.approx(64 * 25600 * 16)


def test_recompute_runs_the_forward_again() -> None:
    m = _model("qwen3-30b-a3b")
    fwd, bwd = extra_bytes_per_token(m)
    logprobs, train = unfused_swiglu_seconds(m, 1e6, 8, 1e12, 2, recompute=True)
    assert logprobs == pytest.approx(2 * fwd * 1e6 / 8 / 1e12)
    assert train == pytest.approx((2 * fwd + bwd) * 1e6 / 8 / 1e12)


def test_only_the_v04_qwen3_replays_run_it_unfused() -> None:
    unfused = {f.name for f in FIGURES if not f.scenario()["rl"]["policy"]["bias_activation_fusion"]}
    assert unfused and all(n.startswith("v0.4 Qwen3") for n in unfused)
    assert not any(n.startswith("v0.4 Llama") or "DeepSeek" in n for n in unfused)
