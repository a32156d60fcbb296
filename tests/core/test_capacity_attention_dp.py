"""The capacity view (core/views/capacity.py) under attention data parallelism reads the engine's
layout, one attention-DP rank's (core/serving/attention_dp.py ``rank_view``), as the estimate's
serving block does: at the scenario's own context its users equal the estimate's
``serving.max_concurrency`` (floored) and its users set the estimate's ``serving.concurrency``.

Mechanism: SGLang ``--tp 8 --dp 8 --enable-dp-attention`` (docs.sglang.io "DP, DPA and SGLang
DP Router") and vLLM ``--data-parallel-size 8 --enable-expert-parallel`` give each attention-DP
rank its own KV cache and requests; docs/scenario-format.md "Attention data parallelism": the
report's serving block is one rank's. Stated case: DeepSeek V3 on 8 x H200, 1,000 + 1,000 tokens,
512 users, ``max_context`` 2,000. Before the change the view ran the rule on the scenario as set
and read 216 users (SGLang) and 855 (vLLM) against the estimate's 103 and 242 per rank.
Tolerance: exact (the same rule on the same layout, a whole count).
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.views.capacity import capacity_curve

CONTEXT = 2000  # prompt + output, the scenario's max_context


def _deepseek(framework: str, parallelism: dict[str, int]) -> dict[str, Any]:
    return {
        "model": {"preset": "deepseek-v3"},
        "framework": framework,
        "hardware": {"gpu": "h200-141gb"},
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 1000},
        "parallelism": parallelism,
        "serving": {"concurrency": 512, "max_context": CONTEXT},
    }


@pytest.mark.parametrize(
    ("framework", "parallelism", "ranks"),
    [
        ("sglang", {"tensor": 8, "attention_data": 8}, 8),
        ("vllm", {"tensor": 8, "attention_data": 8, "expert": 8}, 8),
        ("sglang", {"tensor": 8}, 1),  # without attention DP: the curve as before
    ],
    ids=["sglang-adp8", "vllm-dp8-ep", "sglang-tp8"],
)
def test_capacity_at_the_scenarios_context_is_the_estimates(
    framework: str, parallelism: dict[str, int], ranks: int
) -> None:
    sc = _deepseek(framework, parallelism)
    sv = estimate(sc).serving
    assert sv is not None and sv.starts
    curve = capacity_curve(sc, [CONTEXT])
    assert curve.users_at(CONTEXT) == math.floor(sv.max_concurrency + 1e-9) > 0
    assert curve.concurrency == sv.concurrency == math.ceil(512 / ranks)
    assert ("attention-DP" in curve.engine) == (ranks > 1)
