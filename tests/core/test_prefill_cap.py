"""SGLang's ``--max-prefill-tokens`` (``serving.max_prefill_tokens``; core/serving/prefill_cap.py)
and mixed prompt chunks, as aiconfigurator's generator launches SGLang for NVIDIA's sweeps
(ai-dynamo/aiconfigurator generator/rule_plugin/sglang.rule: ``agg enable_mixed_chunk = true``,
``max_prefill_tokens = SlaConfig.isl + 1500``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.serving.prefill_cap import prompts_taken
from tests.core.serving_runs import times, with_serving

# aiconfigurator-core 0.12.0 silicon_sample.csv (Apache-2.0), the row
# "meta_llama_llama_3_1_8b_instruct_..._h200_sxm_sglang_agg_4000x100_c40_tp1_epnone_..." of
# NVIDIA's H200 sweep under SGLang 0.5.6.post2 (Llama 3.1 8B block FP8, TP 1, 4,000 / 100 tokens,
# 40 users, aiperf: 20 requests a user): TTFT 398.25 ms, TPOT 32.49 ms.
LLAMA: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "sglang",
    "hardware": {"gpu": "h200-141gb"},
    "workload": {"kind": "inference", "prompt_tokens": 4000, "generated_tokens": 100},
    "precision": {"weights": "fp8", "quantization_rule": "fp8-block"},
    "parallelism": {"tensor": 1},
    "serving": {"load": "steady", "concurrency": 40, "requests": 800, "engine_version": "0.5.6.post2"},
}
MEASURED = (0.39825, 0.03249)


def _times(**serving: Any) -> tuple[float, float]:
    return times(with_serving(LLAMA, **serving))


def test_prompts_a_step_takes() -> None:
    """PrefillAdder.add_one_req: the first request always, each further one while its tokens
    are below what is left (2,500 - 160 decodes = 2,340: two of 1,000; 5,500 - 40: one of 4,000)."""
    assert prompts_taken(2340, 1000, first=True) == 2
    assert prompts_taken(5460, 4000, first=True) == 1
    assert prompts_taken(100, 4000, first=True) == 1  # the first, whatever its length
    assert prompts_taken(2000, 1000, first=False) == 1  # 1,000 < 2,000, then 1,000 is not < 1,000
    assert prompts_taken(1000, 1000, first=False) == 0


def test_the_generators_settings_move_the_row_as_measured() -> None:
    """Prompt steps alone (SGLang's default) keep the prompts of each round together, queued
    behind one another: TTFT 2.97x the measured, TPOT 0.60x. With the generator's mixed chunks
    and cap each prompt joins the decode steps: TPOT within 15 % of the measured 32.49 ms; TTFT
    then reads fast (the rest of the measured wait is not modelled; docs/evidence/speed.md, the
    section on SGLang's dense rows on H200)."""
    ttft0, tpot0 = _times()
    ttft, tpot = _times(mixed_prefill=True, max_prefill_tokens=5500)
    assert ttft0 / MEASURED[0] == pytest.approx(2.97, abs=0.05)
    assert tpot0 / MEASURED[1] == pytest.approx(0.60, abs=0.03)
    assert tpot / MEASURED[1] == pytest.approx(1.0, abs=0.15)
    assert ttft < ttft0 / 4


def test_the_cap_at_the_engines_default_changes_nothing() -> None:
    """At SGLang's default 16,384 the chunk (8,192 on an H200, less the decodes) binds first."""
    assert _times(max_prefill_tokens=16384) == _times()
    assert _times(mixed_prefill=True, max_prefill_tokens=16384) == _times(mixed_prefill=True)


def test_another_engine_is_refused_naming_the_field() -> None:
    sc = copy.deepcopy(LLAMA)
    sc["framework"] = "vllm"
    sc["serving"] = {"max_prefill_tokens": 5500}
    with pytest.raises(ScenarioError, match=r"serving\.max_prefill_tokens.*framework sglang"):
        estimate(sc)
