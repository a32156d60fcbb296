"""The RL rollout line of ``gpusizer-cli estimate`` (io/rl_text.py) carries the scheduler run's
``rl.rollout_peak_running`` and ``rl.rollout_preemptions`` when they are set, and nothing when null
(docs/scenario-format.md, "Rollout scheduler run")."""

from __future__ import annotations

from typing import Any

from gpusizer.io.rl_text import rl_lines, rl_table

GiB = 2**30


def _rl(peak: int | None, preemptions: int | None) -> dict[str, Any]:
    return {
        "algorithm": "grpo",
        "placement": "colocated",
        "responses_per_step": 1024,
        "rollout_replicas": 8,
        "total_gpus": 8,
        "rollout_peak_running": peak,
        "rollout_preemptions": preemptions,
        "time_per_step_seconds": 120.0,
        "phases": [
            {
                "name": "rollout",
                "seconds": 80.0,
                "share": 0.67,
                "memory": {"total": 60 * GiB},
                "pool": "shared",
            }
        ],
        "tokens_generated_per_second": 5000.0,
        "tokens_trained_per_second": 9000.0,
        "steps": 100,
        "run_seconds": 12000.0,
        "gpu_hours": 26.7,
        "cost": None,
    }


def test_the_rollout_line_says_peak_and_preemptions() -> None:
    head = rl_lines(_rl(128, 37))[0]
    assert head.endswith("8 GPUs; up to 128 running at once, 37 preemptions a step per replica")
    assert "1 preemption a step" in rl_lines(_rl(128, 1))[0]
    assert "0 preemptions a step" in rl_lines(_rl(64, 0))[0]


def test_null_fields_leave_the_line_as_before() -> None:
    """Another engine than vLLM, off-policy steps or a pool too small: both null, nothing added."""
    for rl in (_rl(None, None), {k: v for k, v in _rl(None, None).items() if not k.startswith("rollout_p")}):
        assert (
            rl_lines(rl)[0] == "  RL grpo, colocated: 1,024 responses per step on 8 engine replica(s), 8 GPUs"
        )


def test_the_report_bullets_carry_the_same_words() -> None:
    bullets, _ = rl_table(_rl(2048, 1500), "GiB")
    assert bullets[0].endswith("up to 2,048 running at once, 1,500 preemptions a step per replica")
