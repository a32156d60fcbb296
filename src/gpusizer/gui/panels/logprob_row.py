"""The RL panel's "Log-prob micro-batch" (``rl.policy.log_prob_micro_batch_size``) sizes the
scoring forwards of the policy's old log-probs and the reference's
(core/pipeline/rl_logprob_batch.py; verl ``rollout.`` / ``ref.log_prob_micro_batch_size_per_gpu``);
the critic's values and a reward model stay at the training micro-batch. Where neither pass runs
(``rl.policy.old_logprobs`` false, NeMo RL's force_on_policy_ratio, and no reference: the
algorithm's default, ``RLAlgorithm.reference``, or ``rl.reference.enabled`` false) the row is
disabled, its tooltip saying why (gui/why_disabled.py); enabled while it holds a value."""

from __future__ import annotations

from ...core.registry.rl_algorithms import RL_ALGORITHMS
from ..state import ScenarioState
from ..why_disabled import explain_disabled
from ..widgets import Form

PATH = "rl.policy.log_prob_micro_batch_size"


def logprob_reason(state: ScenarioState) -> str:
    """Why the field applies to no pass ("" where a log-prob pass runs, or it is unknown)."""
    if state.value("rl.policy.old_logprobs") is not False:
        return ""
    algorithm = RL_ALGORITHMS.get(str(state.value("rl.algorithm")))
    on = state.value("rl.reference.enabled")
    reference = (algorithm.reference if algorithm is not None else True) if on is None else bool(on)
    if reference:
        return ""
    return "no log-prob pass runs: the old-policy pass is off and there is no reference model"


def refresh_logprob_row(f: Form, state: ScenarioState) -> None:
    reason = logprob_reason(state)
    enabled = not reason or state.value(PATH) is not None
    f.enable(PATH, enabled)
    explain_disabled(f, PATH, "" if enabled else reason)
