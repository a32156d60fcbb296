"""Each engine that reserves a KV pool refuses an empty one in its own name and words
(core/serving/rules/pool.py ``PoolRule.empty_words``): before, SGLang's and TensorRT-LLM's
refusals quoted vLLM's error (docs/evidence/advice.md, "The window, a visual pass 2").

Llama 3.1 70B in BF16 (141 GB of weights) on one H100 SXM leaves every engine no pool.
"""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.estimate import estimate

ENGINES = ("vLLM", "SGLang", "TensorRT-LLM")
WORDS = {
    # vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory
    "vllm": "(vLLM's words: No available memory for the cache blocks)",
    # python/sglang/srt/model_executor/model_runner.py init_memory_pool
    "sglang": "(SGLang's words: Not enough memory. Please try to increase --mem-fraction-static)",
    # tensorrt_llm/_torch/pyexecutor/resource_manager.py get_max_atten_window_upper_bound
    "tensorrt-llm": "(TensorRT-LLM's words: Impossible to fit in any sequence in kvCache)",
}


def _reason(framework: str) -> str:
    e = estimate(
        {
            "model": {"preset": "llama-3.1-70b"},
            "framework": framework,
            "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 256},
            "serving": {"max_context": 4096},
            "hardware": {"gpu": "h100-sxm-80gb"},
        }
    )
    assert e.engine is not None and not e.engine.starts
    return e.engine.reason or ""


@pytest.mark.parametrize("framework", sorted(WORDS))
def test_an_empty_pool_is_refused_in_the_engines_own_words(framework: str) -> None:
    reason = _reason(framework)
    assert reason.startswith("no memory is left for the KV cache: "), reason
    assert reason.endswith(WORDS[framework]), reason
    own = WORDS[framework][1:].split("'s words")[0]
    # no other engine is named: the refusal is the engine's own
    assert [n for n in ENGINES if f"{n}'s words" in reason] == [own], reason


def test_sglangs_cause_is_its_static_fraction() -> None:
    # SGLang runs no profile: its pool is mem_fraction_static x free - weights
    # (model_runner.py profile_max_num_token), so the weights alone take the share
    assert "the weights take all the memory it may use" in _reason("sglang")
    assert "start-up test run" not in _reason("sglang")
