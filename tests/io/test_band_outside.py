"""A band's parenthesis says what it is where the estimate lies outside it (io/evidence_text.py
``banded``, ``band_words``): "43.5 s (44.2 s-1.2 min)" read as a typo. The published RL steps ran
1.02-1.63x the estimate (docs/evidence/rl.md, the ``speed/rl`` band of
src/gpusizer/presets/evidence-bands.json), so an RL step's estimate lay below its own band; a MoE
policy's still does (1.14-2.46x), a dense one's band now starts at it (1.00-1.77x)."""

from __future__ import annotations

import json
from typing import Any

from gpusizer import estimate_report
from gpusizer.io.evidence_text import TOOK, band_words, banded
from gpusizer.io.rl_text import rl_lines
from gpusizer.io.serving_text import speed_line, training_line
from gpusizer.io.wording import duration

# NeMo RL's async GRPO of Qwen2.5-7B on 8 H100s, the RL panel's scenario
NEMO_ASYNC = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
    "rl": {"framework": "nemo_rl", "rollout": {"prompts_per_step": 64, "tensor": 2, "async_engine": True}},
}
# the RL panel's case: estimate 43.5 s, published steps like it 1.02-1.63x that
STEP, BAND = 43.5, (44.2, 70.7)


def test_inside_the_band_the_short_form_is_kept() -> None:
    assert banded("22.4 tokens/s", (17.1, 25.0), lambda v: f"{v:.1f}", 22.4) == "22.4 tokens/s (17.1-25.0)"
    # on an edge is inside; without the estimate's value the old form
    assert banded("17.1", (17.1, 25.0), str, 17.1) == "17.1 (17.1-25.0)"
    assert banded("43.5 s", BAND, duration) == "43.5 s (44.2 s-1.2 min)"
    assert banded("43.5 s", None, duration, STEP, TOOK) == "43.5 s"


def test_outside_the_band_it_says_runs_like_this() -> None:
    assert banded("43.5 s", BAND, duration, STEP, TOOK) == "43.5 s (runs like this took 44.2 s-1.2 min)"
    assert banded("30.0", (17.1, 25.0), lambda v: f"{v:.1f}", 30.0) == "30.0 (runs like this: 17.1-25.0)"
    assert band_words((2.0, 3.0), str, 1.0, TOOK, " to ") == "runs like this took 2.0 to 3.0"


def _rl(step: float, lo: float, hi: float) -> dict[str, Any]:
    return {
        "algorithm": "grpo",
        "placement": "colocated",
        "responses_per_step": 512,
        "rollout_replicas": 4,
        "total_gpus": 8,
        "time_per_step_seconds": step,
        "time_per_step_seconds_range": [step * lo, step * hi],
        "phases": [],
        "tokens_generated_per_second": 12000.0,
        "tokens_trained_per_second": 18000.0,
        "steps": 100,
        "run_seconds": step * 100,
        "run_seconds_range": [step * 100 * lo, step * 100 * hi],
        "gpu_hours": 10.0,
        "cost": None,
    }


def test_the_cli_rl_lines_word_both_cases() -> None:
    below = "\n".join(rl_lines(_rl(STEP, 1.02, 1.63)))
    # each edge on the one duration scale (io/wording.py ``duration``: 70.9 s is 1.2 min)
    assert "time per step 43.5 s (runs like this took 44.4 s-1.2 min)" in below
    assert "100 steps: 1.2 h (runs like this took" in below
    inside = "\n".join(rl_lines(_rl(STEP, 0.8, 1.3)))
    assert "time per step 43.5 s (34.8-56.6 s)" in inside and "runs like this" not in inside


def test_serving_and_training_lines_word_both_cases() -> None:
    sv: dict[str, Any] = {
        "concurrency": 1,
        "running": 1,
        "ttft_seconds": 0.2,
        "ttft_p99_seconds": 0.3,
        "tpot_seconds": 0.01,
    }
    sv |= {"tokens_per_second_per_user": 90.0, "tokens_per_second": 90.0}
    sv |= {"ttft_seconds_range": [0.15, 0.25], "tokens_per_second_per_user_range": [95.0, 120.0]}
    line = speed_line(sv)
    assert "first token 200 ms (150-250 ms, p99 300 ms)" in line
    assert "90.0 tokens/s each (runs like this: 95.0-120.0)" in line
    compute = {"time_seconds": 86400.0, "time_seconds_range": [1.1 * 86400, 2 * 86400], "gpu_hours": 192}
    assert "1.0 days (runs like this took 1.1 to 2.0 days)" in (training_line(compute, 8) or "")


# the same run of Qwen3-30B-A3B: a MoE policy's band (speed/rl/colocated/moe, 1.14-2.46x) lies
# above its estimate; the dense band starts at it since verl's GSM8K LoRA steps wait for the
# longest rank's micro-batch (docs/evidence/rl.md section 96: p10 1.00)
NEMO_ASYNC_MOE = {**NEMO_ASYNC, "model": {"preset": "qwen3-30b-a3b"}}


def test_the_json_report_keeps_its_numbers() -> None:
    # the contract (docs/scenario-format.md "Evidence and bands") carries the range as numbers
    rep = estimate_report(NEMO_ASYNC_MOE)
    lo, hi = rep["rl"]["time_per_step_seconds_range"]
    assert isinstance(lo, float) and isinstance(hi, float)
    assert "runs like this" not in json.dumps(rep)
    # and this scenario's step lies below its band, so the CLI words it
    assert rep["rl"]["time_per_step_seconds"] < lo
    assert "runs like this took" in "\n".join(rl_lines(rep["rl"]))
