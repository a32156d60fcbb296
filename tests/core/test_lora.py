"""The adapters' two walks in core/lora.py agree."""

from __future__ import annotations

import pytest

from gpusizer.core.memory.lora import adapter_tensors, lora_trainable
from gpusizer.core.model.presets import model_presets
from gpusizer.core.pipeline.scenario import parse_scenario


@pytest.mark.parametrize("preset", sorted(model_presets()))
def test_adapter_tensors_add_up_to_the_adapter_count(preset: str) -> None:
    # Two walks of the same adapters (core/lora.py): the tensor list the optimizer rules size
    # (8-bit small-tensor share, paged share, largest tensor) holds exactly the parameters
    # counted, shared experts included (DeepSeek-V3 lacked 25.66 M of them). Exact.
    spec = parse_scenario({"model": {"preset": preset}}).model
    targets = ("q", "k", "v", "o", "gate", "up", "down", "lm_head")
    listed = sum(n * count for n, count in adapter_tensors(spec, 16, targets))
    assert listed == lora_trainable(spec, 16, targets)[0]
