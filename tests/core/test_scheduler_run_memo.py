"""A simulated run remembers its prompt chunks and prompt-step times (core/serving/
scheduler_run.py ``Run._chunk``, ``_prompt_step``): the step model is a pure function of its
work, so each run gives exactly (==, not approx) what the run without the memos gives; the
memos are the run's own, so no run reads another's. (The skipped holds, preemption and room
checks that cannot act are checked whole by scripts/compare_plan_dump.py: every buyer case's
``compare`` and ``plan`` byte-identical.)"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.load import serving_load
from gpusizer.core.serving.scheduler_run import Run
from gpusizer.core.serving.scheduler_types import Engine, Workload
from gpusizer.core.speed.step import StepModel


class _Forgets(dict[Any, Any]):
    """A memo that keeps nothing: every step is worked out anew, as before the memo."""

    def __setitem__(self, key: Any, value: Any) -> None:
        return None


def llama_8b_step() -> StepModel:
    """vLLM's step model of Llama 3.1 8B on one H100 at 3,000 + 256 tokens (shared by the
    scheduler-memo and P/D flow tests)."""
    s = parse_scenario(
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "vllm",
            "hardware": {"gpu": "h100-sxm-80gb"},
            "workload": {"kind": "inference", "prompt_tokens": 3000, "generated_tokens": 256},
            "serving": {"max_context": 8192},
        }
    )
    gpu = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), gpu)
    return serving_load(s, gpu, em, st).step


WORKLOADS = {
    # the P/D prefill pool's run (core/serving/disagg_queue.py): 200 Poisson arrivals, one token
    "prefill-pool": Workload(3000, 1, "rate", 64, 2.0, 200, False),
    "prefill-pool-gamma": Workload(3000, 1, "rate", 64, 4.0, 200, False, burstiness=0.5),
    "steady-spread": Workload(3000, 64, "steady", 32, 1.0, 96, False, 0.3),
    "burst-preempting": Workload(1024, 256, "burst", 64, 1.0, 64, False),
}


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_the_memos_change_no_answer(name: str) -> None:
    step, w = llama_8b_step(), WORKLOADS[name]
    # a 2,048-token budget splits the 3,000-token prompts; the small pool preempts the burst
    eng = Engine(2048, True, True, 1024, 20_000 if name.startswith("burst") else 2_000_000, 16, "grow")
    remembered = Run(step, eng, w)
    got = remembered.run()
    forgetful = Run(step, eng, w)
    forgetful._chunks, forgetful._times = _Forgets(), _Forgets()
    assert got == forgetful.run()  # exact: the same floats, summed in the same order
    assert 0 < len(remembered._times) < remembered.steps  # the prompt steps repeat their shapes
