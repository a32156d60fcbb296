"""NeMo RL steps logged phase by phase, replayed (tests/core/rl_phase_logs.py; docs/evidence/rl.md 2h).

What these logs add to the performance summary's totals: which timer the colocated model
misses. On the four logged steps (and the v0.3 blog's two, read the same way) the log-prob
forwards land within 10 % on the 8B rows (0.69-0.77 on the 70B at TP 4 PP 4) and Megatron's
training within 4 % on the 8B; what stays short on every row is the generation timer
(0.65-0.84: 14-20 s a step), the refit timer (0.07-0.17: 3-24 s) and the timers the model
has no phase for (data_processing, reward_calculation, logprob_inference_prep,
training_prep: 3-14 s against the model's 0.3-0.6 s reload of the training states)."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report

from .rl_figures import PHASED
from .rl_phase_logs import LOGS, dtensor

# model / measured seconds of each timer, as docs/evidence/rl.md section 2h records them; "prep"
# is the step's time outside the four listed timers (data_processing, reward_calculation,
# logprob_inference_prep, training_prep), against the model's reload of the training states
RECORDED = {
    "#959 rerun Llama 3.1 8B Megatron, 8 H100": {
        "step": 0.741,
        "rollout": 0.679,
        "log_probs": 1.03,
        "training": 1.03,
        "refit": 0.099,
        "prep": 0.080,
    },
    "#959 rerun Llama 3.1 70B Megatron, 64 H100": {
        "step": 0.604,
        "rollout": 0.809,
        "log_probs": 0.686,
        "training": 0.679,
        "refit": 0.068,
        "prep": 0.045,
    },
    "v0.3 blog Llama 3.1 8B DTensor, 8 H100": {
        "step": 0.727,
        "rollout": 0.656,
        "log_probs": 1.057,
        "training": 0.794,
        "refit": 0.172,
        "prep": 0.080,
    },
    "#959 rerun Llama 3.1 8B DTensor, 8 H100": {
        "step": 0.702,
        "rollout": 0.689,
        "log_probs": 1.086,
        "training": 0.775,
        "refit": 0.115,
        "prep": 0.036,
    },
    "v0.3 Llama 3.1 8B, 8 H100": {
        "step": 0.758,
        "rollout": 0.650,
        "log_probs": 1.017,
        "training": 0.982,
        "refit": 0.158,
        "prep": 0.187,
    },
    "v0.3 Llama 3.1 70B, 64 H100": {
        "step": 0.732,
        "rollout": 0.838,
        "log_probs": 0.765,
        "training": 0.755,
        "refit": 0.125,
        "prep": 0.212,
    },
}
ROWS = LOGS + tuple((figure, "megatron", measured) for figure, measured in PHASED)


def _ratios(figure, backend: str, measured: dict[str, float]) -> dict[str, float]:
    """Model / measured seconds, each model term in the timer NeMo RL v0.3.0 runs it in.

    grpo.py and megatron_policy_worker.py at v0.3.0: `generation` ends with
    finish_generation (the engine's sleep); `prepare_for_generation` holds
    offload_before_refit / offload_after_refit (the training states to host), the engine's
    wake and the refit; logprob_inference_prep and training_prep move the weights and the
    optimizer states back (the model's state_reload)."""
    scenario = dtensor(figure) if backend == "dtensor" else figure.scenario()
    rl = estimate_report(scenario)["rl"]
    sec = {p["name"]: p["seconds"] for p in rl["phases"]} | {
        t["name"]: t["seconds"] for t in rl["transitions"]
    }
    rest = figure.measured - sum(measured.values())
    return {
        "step": rl["time_per_step_seconds"] / figure.measured,
        "rollout": (sec["rollout"] + sec["engine_sleep"]) / measured["rollout"],
        "log_probs": sec["log_probs"] / measured["log_probs"],
        "training": sec["training"] / measured["training"],
        "refit": (sec["weight_sync"] + sec["state_offload"] + sec["engine_wake"]) / measured["refit"],
        "prep": sec["state_reload"] / rest,
    }


@pytest.mark.parametrize(("figure", "backend", "measured"), ROWS, ids=lambda f: getattr(f, "name", ""))
def test_each_logged_timer_is_as_recorded(figure, backend, measured) -> None:
    # source: NVIDIA-NeMo/RL issue #959's table (Total step time, Policy training, Refit,
    # Generation, Get logprobs); tolerance 3 % of the recorded ratio (drift of the model, not
    # accuracy). The generation and the refit timer stay short on every row.
    ratios = _ratios(figure, backend, measured)
    for name, recorded in RECORDED[figure.name].items():
        assert ratios[name] == pytest.approx(recorded, rel=0.03), name
    assert ratios["rollout"] < 0.85 and ratios["refit"] < 0.2 and ratios["prep"] < 0.25


def test_the_logged_steps_within_25_percent() -> None:
    # docs/evidence/rl.md section 2h: 0 of 4 logged steps within 25 % (0.60-0.74)
    steps = [_ratios(f, b, m)["step"] for f, b, m in LOGS]
    assert len(steps) == 4 and not [s for s in steps if abs(s - 1) <= 0.25]
