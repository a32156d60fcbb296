"""The policy's own log-prob forward, skipped where the run skips it (``rl.policy.old_logprobs``).

Source: NeMo RL ``nemo_rl/algorithms/grpo.py`` at tag v0.7.0 (``grpo_train`` and
``async_grpo_train``): with ``loss_fn.force_on_policy_ratio`` true and no
``seq_logprob_error_threshold`` the loop prints "Skipping prev_logprobs
(force_on_policy_ratio=True)..." and fills ``prev_logprobs`` with zeros; the reference's
``get_reference_policy_logprobs`` still runs. The flag requires ``train_global_batch_size`` equal to
the step's responses (one update a rollout). docs/evidence/rl.md, the v0.7 section."""

from __future__ import annotations

import pytest

from gpusizer import estimate_report

from .rl_figures_v07 import V07_ON


def _phases(scenario: dict) -> dict[str, float]:
    return {p["name"]: p["seconds"] for p in estimate_report(scenario)["rl"]["phases"]}


def _pair(name: str) -> tuple[dict, dict]:
    figure = next(f for f in V07_ON if f.name == name)
    return figure._replace(old_logprobs=True).scenario(), figure.scenario()


def test_the_default_keeps_the_policy_s_forward() -> None:
    # the field's default (true) is every answer before it: verl's old_log_prob, NeMo RL before
    # v0.7.0's recipes; the replays that skip it state false
    on, off = _pair("v0.7 Qwen3-32B, 32 H100")
    assert "old_logprobs" not in on["rl"]["policy"]
    assert off["rl"]["policy"]["old_logprobs"] is False


def test_skipping_it_halves_a_dense_policy_s_scoring_with_its_reference() -> None:
    # two scoring forwards of one model (the policy and its host-kept reference) become one:
    # the log-prob phase's FLOPs, its FP32 log-softmax and its host pacing all halve (the
    # tolerance: nothing else in the phase, 1 %)
    on, off = _pair("v0.7 Qwen3-32B, 32 H100")
    both, ref_only = _phases(on)["log_probs"], _phases(off)["log_probs"]
    assert ref_only == pytest.approx(both / 2, rel=0.01)
    assert _phases(off)["training"] == pytest.approx(_phases(on)["training"])


def test_without_a_reference_nothing_is_scored() -> None:
    # no reference (GRPO without its KL term) and no old-policy pass: no log-prob forward
    _, off = _pair("v0.7 Qwen3-32B, 32 H100")
    off["rl"]["reference"] = {"enabled": False}
    assert _phases(off)["log_probs"] == pytest.approx(0.0, abs=1e-9)
