"""``workload.lora_layers`` in the training step (core/speed/train_layer.py ``backward_share``):
the backward stops at the first adapted layer, unless the framework makes the embedding's
output require a gradient (PEFT under gradient checkpointing)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.frameworks import FRAMEWORKS
from gpusizer.core.speed.train_layer import backward_share, layer_compute, layer_context

LAYERS = 28  # Llama 3.2 3B


def _lora(fw: str, gpu: str, n: int | None, recompute: str = "none") -> dict[str, Any]:
    return {
        "model": {"preset": "llama-3.2-3b"},
        "framework": fw,
        "hardware": {"gpu": gpu},
        "workload": {"kind": "lora", "micro_batch_size": 4, "lora_layers": n, "training_tokens": 1e7},
        "parallelism": {"recompute": recompute},
    }


def _seconds(sc: dict[str, Any]) -> float:
    t = estimate(sc).compute.time_seconds
    assert t is not None
    return t


def test_every_layer_adapted_is_the_step_without_the_field() -> None:
    for fw, gpu in (("mlx", "apple-m4-max-128gb"), ("huggingface", "h100-sxm-80gb")):
        assert _seconds(_lora(fw, gpu, LAYERS)) == _seconds(_lora(fw, gpu, None))


def test_mlx_lora_backward_stops_at_the_first_adapted_layer() -> None:
    """mlx_lm.lora's default 16 of Llama 3.2 3B's 28 layers: the 12 below run forward only.
    The step's saving is the 12 layers' backward, as one layer's forward and backward say."""
    sc = _lora("mlx", "apple-m4-max-128gb", 16)
    whole, part = _seconds(_lora("mlx", "apple-m4-max-128gb", None)), _seconds(sc)
    s = parse_scenario(sc)
    c, _ = layer_context(s, estimate(sc).gpu)
    layer = layer_compute(c)
    assert backward_share(s, LAYERS) == pytest.approx(16 / LAYERS)
    # at most the 12 layers' backward of the 28 layers' time (the LM head and the optimizer
    # step take the rest of the step): within 15 % of that bound
    bound = (LAYERS - 16) * (sum(layer.parts) - sum(layer.forward_parts)) / (LAYERS * sum(layer.parts))
    saved = (whole - part) / whole
    assert 0.85 * bound < saved < bound


@pytest.mark.parametrize("fw", ["huggingface", "unsloth", "ms-swift", "axolotl"])
def test_peft_under_gradient_checkpointing_runs_the_backward_through_every_layer(fw: str) -> None:
    """PeftModel.__init__ calls enable_input_require_grads under gradient checkpointing: the
    embedding's output needs a gradient, so every layer runs its input-gradient backward."""
    assert FRAMEWORKS[fw].input_grads_with_recompute
    s = parse_scenario(_lora(fw, "h100-sxm-80gb", 16, "full"))
    assert backward_share(s, LAYERS) == 1.0
    plain = _lora(fw, "h100-sxm-80gb", 16) | {
        "parallelism": {"recompute": "none", "activation_offload": "none"}
    }
    assert backward_share(parse_scenario(plain), LAYERS) == pytest.approx(16 / LAYERS)


def test_frameworks_with_their_own_lora_stop_under_checkpointing_too() -> None:
    for fw, gpu in (("mlx", "apple-m4-max-128gb"), ("torchtune", "h100-sxm-80gb")):
        assert not FRAMEWORKS[fw].input_grads_with_recompute
        full, part = _seconds(_lora(fw, gpu, None, "full")), _seconds(_lora(fw, gpu, 16, "full"))
        assert part < 0.85 * full


def test_the_activations_follow_the_same_rule() -> None:
    """Under PEFT with gradient checkpointing every layer keeps its checkpointed input (the
    embedding's output needs a gradient); without checkpointing the layers below keep none."""
    h100 = "h100-sxm-80gb"
    full = [estimate(_lora("huggingface", h100, n, "full")).memory.activations for n in (None, 16)]
    assert full[0] == full[1]
    plain = [estimate(_lora("huggingface", h100, n)).memory.activations for n in (None, 16)]
    assert plain[1] < plain[0]
