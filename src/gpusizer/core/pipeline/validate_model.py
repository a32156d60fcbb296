"""The model's own checks (core/pipeline/validate.py): a complete, self-consistent
architecture; each violation names the field and what would be allowed."""

from __future__ import annotations

import math

from ..errors import ScenarioError
from ..model.architecture import MIN_INFERRED_PARAMETERS, resolve
from ..model.specs import ModelSpec


def divisors(n: int, limit: int = 64) -> str:
    return ", ".join(str(d) for d in range(1, min(n, limit) + 1) if n % d == 0)


def all_divisors(n: int, shown: int = 16) -> str:
    """Every divisor of ``n``, up to ``n`` itself (256 experts: 1, 2, ... 128, 256, where
    :func:`divisors` stops at 64), the middle elided past ``shown`` of them to keep one line."""
    small = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    ds = sorted({*small, *(n // d for d in small)})
    if len(ds) <= shown:
        return ", ".join(map(str, ds))
    return ", ".join(map(str, ds[: shown - 4])) + ", ..., " + ", ".join(map(str, ds[-4:]))


def check_model(spec: ModelSpec) -> None:
    """The architecture must be complete (or size-only) and self-consistent."""
    if spec.rope_original_context is not None and spec.rope_scaling_factor is None:
        msg = "needs model.rope_scaling_factor (the factor that stretches this length)"
        raise ScenarioError("model.rope_original_context", msg)
    if spec.layers is None:
        if spec.parameters is None:
            raise ScenarioError(
                "model",
                "give a preset, a full architecture (layers, hidden_size, attention_heads, ...) "
                'or {"name", "parameters"}',
            )
        if spec.parameters < MIN_INFERRED_PARAMETERS:
            raise ScenarioError(
                "model.parameters",
                f"a model known only by its size needs at least {MIN_INFERRED_PARAMETERS:,} parameters; "
                f"got {spec.parameters:,} (give a smaller model's architecture: layers, hidden_size, ...)",
            )
        return
    for field in ("hidden_size", "attention_heads", "vocab_size"):
        if getattr(spec, field) is None:
            raise ScenarioError(f"model.{field}", "required with model.layers (a full architecture)")
    arch = resolve(spec)
    if spec.head_dim is None and spec.mla is None and arch.hidden % arch.heads:
        raise ScenarioError(
            "model.head_dim",
            f"hidden_size ({arch.hidden}) is not divisible by attention_heads ({arch.heads}); give head_dim",
        )
    if arch.heads % arch.kv_heads:
        raise ScenarioError(
            "model.kv_heads",
            f"must divide attention_heads ({arch.heads}); allowed: {divisors(arch.heads)}",
        )
    moe = spec.moe
    if moe is not None and moe.experts_per_token > moe.experts:
        raise ScenarioError("model.moe.experts_per_token", f"at most experts ({moe.experts})")
    if moe is not None and moe.expert_groups and moe.experts % moe.expert_groups:
        allowed = all_divisors(moe.experts)
        raise ScenarioError(
            "model.moe.expert_groups", f"must divide experts ({moe.experts}); allowed: {allowed}"
        )
    if spec.sliding_window_layers > arch.layers:
        raise ScenarioError("model.sliding_window_layers", f"at most layers ({arch.layers})")
    _check_hybrid(spec)


def _check_hybrid(spec: ModelSpec) -> None:
    """Recurrent layers fit in the model; MLP-free layers come off the dense layers."""
    arch = resolve(spec)
    if arch.mixer_layers > arch.layers:
        raise ScenarioError(
            "model.linear_attention.layers",
            f"linear_attention.layers + mamba.layers at most layers ({arch.layers}); got {arch.mixer_layers}",
        )
    if spec.sliding_window_layers > arch.attention_layers:
        raise ScenarioError(
            "model.sliding_window_layers", f"at most the attention layers ({arch.attention_layers})"
        )
    if spec.mlp_layers is not None and not arch.moe_layers <= spec.mlp_layers <= arch.layers:
        raise ScenarioError(
            "model.mlp_layers", f"between the MoE layers ({arch.moe_layers}) and layers ({arch.layers})"
        )
