"""TensorRT-LLM's attention-DP balance as a prompt hold (``serving.attention_dp_balance_iterations``;
core/serving/adp_balance.py): a rank's prompts wait until every rank holds one, or for the
timeout (NVIDIA/TensorRT-LLM ``_torch/pyexecutor/py_executor.py`` ``_balance_adp_requests``)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving.adp_balance import AdpBalance, harmonic
from tests.core.serving_runs import inferencex_1k1k, times, with_serving

# InferenceX's DeepSeek-R1 NVFP4 run on 8 B200 with attention DP 8 and EP 8 under TensorRT-LLM
# release:1.2.0rc6.post3, 1k/1k at 64 users (aiconfigurator-core 0.12.0 silicon_sample.csv row
# "2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c64_tp8_0_ep8_0_976", measured
# 2026-02-06: TTFT 1,085 ms, TPOT 12.3 ms). Its launch script (SemiAnalysisAI/InferenceX
# benchmarks/single_node/dsr1_fp4_b200_trt.sh) sets "attention_dp_config: batching_wait_iters: 0
# / enable_balance: true / timeout_iters: 60".
DSR1: dict[str, Any] = {
    "model": {"preset": "deepseek-r1"},
    "framework": "tensorrt-llm",
    "hardware": {"gpu": "b200-192gb"},
    "precision": {"weights": "nvfp4", "quantization_rule": "modelopt"},
    "parallelism": {"tensor": 8, "expert": 8, "attention_data": 8},
    **inferencex_1k1k(64, engine_version="1.2.0rc6.post3"),
}
MEASURED_TTFT = 1.085


def test_the_count_releases_every_timeout_without_the_other_ranks() -> None:
    """No rate yet (the other ranks never all ready): a waiting prompt goes in when the count,
    which grows every step, reaches the timeout; with no decodes running at once."""
    b = AdpBalance(timeout=60, ranks=8)
    held = [b.handle(float(t), 0.5, True, 0.0) for t in range(1, 61)]
    assert held[:59] == [True] * 59 and held[59] is False and b.count == 0
    assert not AdpBalance(60, 8).handle(1.0, 0.5, False, 0.0)


def test_every_rank_holding_a_prompt_lets_them_in() -> None:
    """At rate r a rank, the 7 others all hold one H(7) / r after the last release; a prompt the
    last release could not fit goes in at once (every rank, alike, holds such)."""
    b = AdpBalance(timeout=60, ranks=8, released_at=10.0)
    assert b.others_ready(2.0) == pytest.approx(10.0 + harmonic(7) / 2.0)
    assert b.handle(11.0, 10.5, True, 2.0)
    assert not b.handle(12.0, 10.5, True, 2.0)
    b.released_at = 12.0
    assert not b.handle(12.1, 11.9, True, 2.0)
    assert math.isinf(AdpBalance(60, 8).others_ready(0.0))


def test_a_loaded_rank_waits_as_measured() -> None:
    """The first token grows by tens of decode steps (0.12 of measured without the balance, the
    engine's time per token barely moving); within 30 % of the measured 1,085 ms with it."""
    plain, plain_tpot = times(DSR1)
    waited = with_serving(DSR1, attention_dp_balance_iterations=60, attention_dp_batching_iterations=0)
    held, held_tpot = times(waited)
    assert plain / MEASURED_TTFT < 0.2
    assert held / MEASURED_TTFT == pytest.approx(1.0, abs=0.3)
    assert held_tpot == pytest.approx(plain_tpot, rel=0.1)


def test_the_batching_wait_once_every_rank_holds_a_prompt() -> None:
    """``batching_wait_iters`` (TensorRT-LLM's default 10): once every rank holds a prompt and
    all decode, that many steps pass before they go in; the waiting count rests meanwhile."""
    b = AdpBalance(timeout=50, ranks=4, batching=10, released_at=0.0)
    held = [b.handle(1.0 + t, 0.5, True, 100.0) for t in range(11)]
    assert held == [True] * 10 + [False] and b.count == 0 and b.released_at == 11.0
    b.released_at = 0.0
    assert b.handle(20.0, 0.5, True, 100.0) and b.hold_steps(20.0, 100.0, 0.01) == 10
    b.decoded(10, 20.1, 0.01)
    assert b.batched == 10 and not b.handle(20.2, 0.5, True, 100.0)
    assert not AdpBalance(50, 4, batching=10).handle(1.0, 0.5, False, 100.0)


@pytest.mark.parametrize("change", ["vllm", "no attention DP", "batching without the balance"])
def test_refused_elsewhere(change: str) -> None:
    sc = with_serving(DSR1, attention_dp_balance_iterations=60)
    field = "serving.attention_dp_balance_iterations"
    if change == "vllm":
        sc["framework"] = "vllm"
        sc["serving"].pop("engine_version")
        sc.pop("precision")
        sc["parallelism"] = {"tensor": 8}
    elif change == "no attention DP":
        sc["parallelism"] = {"tensor": 8}
    else:
        sc["serving"].update(attention_dp_balance_iterations=None, attention_dp_batching_iterations=10)
        field = "serving.attention_dp_batching_iterations"
    with pytest.raises(ScenarioError) as err:
        estimate(sc)
    assert field in str(err.value)
