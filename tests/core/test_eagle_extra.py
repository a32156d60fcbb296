"""The EAGLE heads' own projections read in each draft pass (core/serving/eagle_extra.py):
EAGLE-1's fc over [embedding, feature] (vLLM llama_eagle.py), EAGLE-3's qkv over 2h inputs and
its fc over three auxiliary hidden states once a proposal (vLLM llama_eagle3.py)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.scenario import model_spec
from gpusizer.core.serving.eagle_extra import head_extra

LLAMA = resolve(model_spec({"preset": "llama-3.1-8b"}))  # hidden 4096, 32 q heads, 8 kv heads of 128


def test_llama_3_1_8b_heads_read_their_projections() -> None:
    """EAGLE-1: 2 x 4096^2 = 33.6 M a pass; EAGLE-3: 4096 x (4096 + 2 x 1024) = 25.2 M a pass
    and 3 x 4096^2 = 50.3 M once (the configs of yuhuili/EAGLE-LLaMA3.1-Instruct-8B and
    EAGLE3-LLaMA3.1-Instruct-8B: hidden 4096)."""
    e1, e3 = head_extra("eagle", LLAMA, 1), head_extra("eagle3", LLAMA, 1)
    assert e1 is not None and e3 is not None
    assert (e1.per_pass, e1.per_proposal) == (pytest.approx(33.55e6, rel=1e-3), 0.0)
    assert e3.per_pass == pytest.approx(25.17e6, rel=1e-3)
    assert e3.per_proposal == pytest.approx(50.33e6, rel=1e-3)


def test_split_by_tensor_parallelism_and_none_for_other_methods() -> None:
    one, eight = head_extra("eagle3", LLAMA, 1), head_extra("eagle3", LLAMA, 8)
    assert one is not None and eight is not None and eight.per_pass == one.per_pass / 8
    assert head_extra("mtp", LLAMA, 1) is None and head_extra("ngram", LLAMA, 1) is None
