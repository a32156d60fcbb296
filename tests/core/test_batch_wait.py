"""TensorRT-LLM's batch waiting (``serving.batch_wait_iterations``, ``batch_wait_tokens_ratio``;
core/serving/batch_wait.py): prompts held while decodes run, as ``PyExecutor._waiting_requests``
holds them (NVIDIA/TensorRT-LLM ``tensorrt_llm/_torch/pyexecutor/py_executor.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving.batch_wait import holds, scheduled_tokens
from tests.core.serving_runs import inferencex_1k1k, times, with_serving

# InferenceX's Llama 3.1 70B FP8 run on 4 B200 under TensorRT-LLM, 1k/1k at 4 users
# (aiconfigurator-core 0.12.0 aiconfigurator_core/systems/silicon_sample.csv, row
# "...llama-3.1-70b...b200...trtllm...tp4...c4", measured 2025-10-29: TTFT 192 ms, TPOT 6.6 ms).
# Its launch script (SemiAnalysisAI/InferenceX benchmarks/70b_fp8_b200_trt_slurm.sh at 9596d23d7)
# sets "--max_num_tokens 16384" and, at 1k/1k with TP below 8, "batch_wait_max_tokens_ratio: 0.9"
# and "batch_wait_timeout_iters: 20"; the client draws lengths over 0.8-1.0 of 1,024.
LLAMA_TP4: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "framework": "tensorrt-llm",
    "hardware": {"gpu": "b200-192gb"},
    "precision": {"weights": "fp8"},
    "parallelism": {"tensor": 4},
    **inferencex_1k1k(4, prefill_chunk_tokens=16384),
}
MEASURED_TTFT, MEASURED_TPOT = 0.192, 0.0066


def _waiting(**wait: Any) -> dict[str, Any]:
    return with_serving(LLAMA_TP4, **wait)


def test_the_engines_stop_rule() -> None:
    """``stop_waiting = count >= timeout_iters or tokens >= ratio * max_num_tokens``: held while
    neither holds; a ratio of 0 stops every wait (tokens >= 0), so does a timeout of 0."""
    assert holds(0, 20, 0.9, 1_000, 16_384)
    assert holds(19, 20, 0.9, 1_000, 16_384)
    assert not holds(20, 20, 0.9, 1_000, 16_384)
    assert not holds(0, 20, 0.9, 14_746, 16_384)
    assert not holds(0, 20, 0.0, 1_000, 16_384)
    assert not holds(0, 0, 0.9, 1_000, 16_384)


def test_scheduled_tokens_are_whole_prompts_within_the_budget() -> None:
    class G:
        def __init__(self, n: int, need: int) -> None:
            self.n, self.need = n, need

    assert scheduled_tokens([G(3, 1000)], decodes=100, room=8, budget=8192) == 3_100
    assert scheduled_tokens([G(10, 1000)], decodes=100, room=8, budget=8192) == 8_100
    assert scheduled_tokens([G(10, 1000)], decodes=100, room=2, budget=8192) == 2_100


def test_twenty_steps_held_reach_the_measured_first_token() -> None:
    """At 4 users a prompt always arrives beside three decoding users and never reaches 0.9 x
    16,384 tokens, so each is held the 20 steps of the timeout: the first token grows by about
    20 decode steps, the time per token does not move. Measured 192 ms (InferenceX, above): the
    estimate within 25 % with the wait (without it 0.44, far too early)."""
    plain, plain_tpot = times(LLAMA_TP4)
    held, held_tpot = times(_waiting(batch_wait_iterations=20, batch_wait_tokens_ratio=0.9))
    assert held_tpot == pytest.approx(plain_tpot, rel=0.03)
    # the held steps are pure decode steps, shorter than the mean TPOT, which counts the steps
    # with a prompt too: 20 of them came to 18.05 TPOTs, 17.80 once the overlap scheduler's
    # skipped steps and trtllm-serve's re-solved cost per request moved the run a little
    assert 17 * plain_tpot < held - plain < 21 * plain_tpot
    assert held / MEASURED_TTFT == pytest.approx(1.0, abs=0.25)
    assert plain / MEASURED_TTFT < 0.6
    assert held_tpot / MEASURED_TPOT == pytest.approx(1.0, abs=0.1)


def test_off_by_default_and_without_a_ratio() -> None:
    """The engine's defaults (both 0) and a timeout without a ratio leave the run as it was."""
    plain = times(LLAMA_TP4)
    assert times(_waiting(batch_wait_iterations=0, batch_wait_tokens_ratio=0.0)) == plain
    assert times(_waiting(batch_wait_iterations=20)) == plain


def test_attention_dp_runs_without_it() -> None:
    """The executor skips batch waiting under attention DP (``if not self.enable_attention_dp
    and self.enable_batch_waiting``)."""
    dsr1: dict[str, Any] = {
        "model": {"preset": "deepseek-r1"},
        "framework": "tensorrt-llm",
        "hardware": {"gpu": "b200-192gb"},
        "parallelism": {"tensor": 8, "attention_data": 8, "expert": 8},
        **inferencex_1k1k(64),
    }
    waited = with_serving(dsr1, batch_wait_iterations=40, batch_wait_tokens_ratio=0.8)
    assert times(waited) == times(dsr1)


@pytest.mark.parametrize("field", ["batch_wait_iterations", "batch_wait_tokens_ratio"])
def test_other_engines_refuse_it(field: str) -> None:
    sc = _waiting(**{field: 0.5 if field.endswith("ratio") else 20})
    sc["framework"] = "vllm"
    sc["serving"].pop("prefill_chunk_tokens")
    with pytest.raises(ScenarioError) as err:
        estimate(sc)
    assert f"serving.{field}" in str(err.value) and "tensorrt-llm" in str(err.value)
