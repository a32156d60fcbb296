"""DeepSpeed's context parallelism is Ulysses: the context ranks split the attention heads, so
the degree must divide them (and divide the k/v heads or be a multiple of them). DeepSpeed
v0.19.5 deepspeed/runtime/sequence_parallel/ulysses_sp.py ``UlyssesSPAttentionHF.__init__``
raises "Attention head count 32 is not divisible by SP size 3"; ring attention (Megatron-Core,
torch context_parallel) takes any head count."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer import ScenarioError, estimate_report
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.layout_space import layout_space

# Qwen2.5-0.5B's shape: 14 query heads, 2 k/v heads
SMALL: dict[str, Any] = {
    "layers": 24,
    "hidden_size": 896,
    "attention_heads": 14,
    "kv_heads": 2,
    "ffn_hidden_size": 4864,
    "vocab_size": 151936,
}


def _scenario(framework: str, context: int, model: dict[str, Any] | None = None, seq: int = 8192) -> Any:
    return {
        "model": model or {"preset": "llama-3.1-8b"},
        "framework": framework,
        "workload": {"sequence_length": seq},
        "parallelism": {"context": context},
    }


@pytest.mark.parametrize(
    ("context", "model", "seq", "words"),
    [
        (3, None, 6144, "must divide attention_heads (32) under DeepSpeed"),  # 32 heads
        (6, None, 6144, "allowed: 1, 2, 4, 8, 16, 32"),
        (4, SMALL, 8192, "must divide attention_heads (14)"),
        # 14 heads split 7 ways, but 2 k/v heads neither split nor replicate evenly over 7
        (7, SMALL, 14336, "must divide kv_heads (2) or be a multiple of it"),
    ],
)
def test_deepspeed_context_must_split_the_heads(
    context: int, model: dict[str, Any] | None, seq: int, words: str
) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report(_scenario("deepspeed", context, model, seq))
    assert err.value.field == "parallelism.context" and words in err.value.message


@pytest.mark.parametrize(
    ("framework", "context", "model", "seq"),
    [
        ("deepspeed", 4, None, 8192),  # 32 heads, 8 k/v heads: 8 each, 2 k/v heads each
        ("deepspeed", 2, SMALL, 8192),  # 14 heads / 2, 2 k/v heads / 2
        ("deepspeed", 8, None, 8192),  # k/v heads 8: one each
        ("megatron", 3, None, 6144),  # ring attention: any head count
        ("fsdp", 3, None, 6144),
    ],
)
def test_head_splitting_layouts_accepted(
    framework: str, context: int, model: dict[str, Any] | None, seq: int
) -> None:
    assert estimate_report(_scenario(framework, context, model, seq))["per_gpu"]["activations"] > 0


def test_the_sizing_proposes_only_head_splitting_degrees_under_deepspeed() -> None:
    """The layout search offers DeepSpeed no context degree its Ulysses would refuse."""
    cps: dict[str, set[int]] = {}
    for fw in ("deepspeed", "megatron"):
        s = parse_scenario(_scenario(fw, 1, SMALL, 131072))
        arch = resolve(s.model)
        cps[fw] = {c for _, _, c, _ in layout_space(s, arch, arch.heads, ("none",), 4096).shapes}
    assert cps["deepspeed"] == {1, 2}  # 14 heads and 2 k/v heads: 2 only (7, 14 fail the k/v rule)
    assert {4, 8, 16} <= cps["megatron"]
