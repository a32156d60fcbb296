"""NeMo RL steps logged phase by phase, replayed (tests/core/rl_phase_logs.py; docs/evidence/rl.md 2h).

What these logs add to the performance summary's totals: which timer the colocated model
misses. On the four logged steps the log-prob forwards land within 10 % (0.69 for the 70B at
TP 4 PP 4), Megatron's training within 3 % on the 8B, and what stays short on every row is
the generation (0.65-0.80) and the refit timer (0.12-0.33)."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report

from .rl_phase_logs import LOGS, dtensor

# model / measured seconds of each timer, as docs/evidence/rl.md section 2h records them
RECORDED = {
    "#959 rerun Llama 3.1 8B Megatron, 8 H100": {
        "step": 0.741,
        "rollout": 0.673,
        "log_probs": 1.03,
        "training": 1.03,
        "refit": 0.21,
    },
    "#959 rerun Llama 3.1 70B Megatron, 64 H100": {
        "step": 0.604,
        "rollout": 0.801,
        "log_probs": 0.69,
        "training": 0.68,
        "refit": 0.12,
    },
    "v0.3 blog Llama 3.1 8B DTensor, 8 H100": {
        "step": 0.727,
        "rollout": 0.651,
        "log_probs": 1.06,
        "training": 0.79,
        "refit": 0.33,
    },
    "#959 rerun Llama 3.1 8B DTensor, 8 H100": {
        "step": 0.702,
        "rollout": 0.684,
        "log_probs": 1.09,
        "training": 0.78,
        "refit": 0.22,
    },
}


def _ratios(figure, backend: str, measured: dict[str, float]) -> dict[str, float]:
    scenario = dtensor(figure) if backend == "dtensor" else figure.scenario()
    rl = estimate_report(scenario)["rl"]
    seconds = {p["name"]: p["seconds"] for p in rl["phases"]}
    out = {name: seconds[name] / measured[name] for name in ("rollout", "log_probs", "training")}
    # NeMo RL's refit timer (prepare_for_generation) holds the moves and the refit together
    moved = seconds["weight_sync"] + sum(t["seconds"] for t in rl["transitions"])
    return out | {"step": rl["time_per_step_seconds"] / figure.measured, "refit": moved / measured["refit"]}


@pytest.mark.parametrize(("figure", "backend", "measured"), LOGS, ids=lambda f: getattr(f, "name", ""))
def test_each_logged_timer_is_as_recorded(figure, backend, measured) -> None:
    # source: NVIDIA-NeMo/RL issue #959's table (Total step time, Policy training, Refit,
    # Generation, Get logprobs); tolerance 3 % of the recorded ratio (drift of the model, not
    # accuracy). The generation and the refit timer stay short on every row.
    ratios = _ratios(figure, backend, measured)
    for name, recorded in RECORDED[figure.name].items():
        assert ratios[name] == pytest.approx(recorded, rel=0.03), name
    assert ratios["rollout"] < 0.85 and ratios["refit"] < 0.5


def test_the_logged_steps_within_25_percent() -> None:
    # docs/evidence/rl.md section 2h: 0 of 4 logged steps within 25 % (0.60-0.74)
    steps = [_ratios(f, b, m)["step"] for f, b, m in LOGS]
    assert len(steps) == 4 and not [s for s in steps if abs(s - 1) <= 0.25]
