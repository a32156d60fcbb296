"""Where verl's replayed steps fall short, phase by phase (docs/evidence/rl.md, the section
"verl's small-model steps phase by phase"; ``scripts/rl_verl_phases.py`` prints the table).

The shortfall of each step with printed timers is split over ours' phases against verl's timers
of the same work (``gen``; ``old_log_prob`` + ``ref`` + ``values``; ``update_actor`` +
``update_critic``). Nothing is modelled here: these pin the reading the section records, so that
a later change that moves a phase shows here first."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "scripts"))
from rl_verl_phases import gap_shares, records, rows, timers_of

BY_ID = {r["id"]: r for r in records()}

# phase -> (share of the step's shortfall, absolute tolerance), read on this tree
GAPS = {
    # the 1B on GSM8K: every phase short, none holding half (rl.md sections 52, 70); 0.36, 0.28
    # and 0.33 before its ranks waited for the longest micro-batch (rl.policy.
    # balanced_micro_batches false: rl.md, the stragglers section); 0.40, 0.27, 0.30 before the
    # rollout returned each token's log-prob (rl.rollout.returns_logprobs, verl's V1 default)
    "verl-grpo-llama3.2-1b-8xh100": {
        "rollout": (0.33, 0.03),
        "log_probs": (0.30, 0.03),
        "training": (0.33, 0.03),
    },
    # the 7B on GSM8K (within 25 %): the rollout holds the gap, its passes now read over (1.10,
    # 1.16: the longest of 8 micro-batches of 40 responses); 0.96, 0.03, -0.03 before the
    # stragglers; 1.51, -0.16, -0.42 before the rollout's log-prob output
    "verl-grpo-qwen2.5-7b-8xh100": {
        "rollout": (1.77, 0.05),
        "log_probs": (-0.24, 0.03),
        "training": (-0.63, 0.03),
    },
    # the GRPO 0.5B: V0 eager decode steps (rl.md section 52c), passes about a third; on the
    # A100 first recorded 0.68, 0.10, 0.23; 0.61, 0.11, 0.27 before its training micro-batch
    # held at most the rank's share of the mini-batch (core/pipeline/rl_logprob_batch.py)
    "verl-grpo-qwen2.5-0.5b-8xa100": {
        "rollout": (0.67, 0.04),
        "log_probs": (0.12, 0.03),
        "training": (0.21, 0.03),
    },
    # the PPO 0.5B: the host-paced training micro-batches (rl.md sections 70b, 72b)
    "verl-ppo-qwen2.5-0.5b-8xa100": {
        "rollout": (-0.01, 0.03),
        "log_probs": (0.135, 0.03),
        "training": (0.85, 0.04),  # 0.86 on the A100
    },
    # RLinf's verl + SGLang steps: the rollout alone (rl.md section 77c); the 1.5B's old_log_prob
    # timer lacks the reference, which ours' log_probs holds, hence its negative share
    "verl-rlinf-r1-distill-1.5b-8xh100": {
        "rollout": (1.02, 0.05),
        "log_probs": (-0.16, 0.03),
        "training": (-0.01, 0.03),
    },
    "verl-rlinf-r1-distill-7b-64xh100": {
        "rollout": (0.93, 0.05),
        "log_probs": (0.03, 0.03),
        "training": (0.01, 0.03),
    },
}


@pytest.mark.parametrize("record_id", sorted(GAPS))
def test_the_shortfall_sits_where_the_section_says(record_id: str) -> None:
    shares = gap_shares(rows(BY_ID[record_id]))
    for phase, (share, tol) in GAPS[record_id].items():
        assert shares[phase] == pytest.approx(share, abs=tol), (record_id, phase, shares)


def test_deepscalers_steps_print_no_phase_timer() -> None:
    # rllm-org/rllm issue 29 gives the step alone: only the step is compared (rl.md section 74)
    for record_id in ("verl-deepscaler-1.5b-8k-8xh200", "verl-deepscaler-1.5b-8k-8xa100"):
        found = rows(BY_ID[record_id])
        assert [r.phase for r in found if r.published is not None] == ["step"], record_id


@pytest.mark.parametrize(
    ("record_id", "unpriced"),
    [
        # 71.044 s less gen, old_log_prob, ref, update_actor: reward 0.87 + adv 0.13 + 0.13 s of
        # driver work outside every timer (the W&B summary's timing_s lines)
        ("verl-grpo-llama3.2-1b-8xh100", 1.13),
        # 447.36 s less the same four: reward 5.14 + adv 0.47 + 1.33 s (RLinf's table)
        ("verl-rlinf-r1-distill-7b-64xh100", 6.94),
    ],
)
def test_the_driver_between_phases_is_under_two_percent_of_the_step(record_id: str, unpriced: float) -> None:
    # the reward on the CPU, the advantages, _balance_batch and the DataProto handling between
    # phases are what the step holds beyond the phase timers: too small to be the gap
    record = BY_ID[record_id]
    t = timers_of(record)
    rest = record["measured"]["step"] - sum(t[n] for n in ("gen", "old_log_prob", "ref", "update_actor"))
    assert rest == pytest.approx(unpriced, abs=0.01)
    assert rest / record["measured"]["step"] < 0.02
