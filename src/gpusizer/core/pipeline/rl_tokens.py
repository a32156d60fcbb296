"""What one RL post-training step generates, trains and computes (``workload.kind: "rl"``): its
responses, their longest, the tokens its training passes run and those its log-prob passes
compute with the padding of packed rows (core/pipeline/rl_roles.py builds the roles' scenarios
from them; verl ``data.max_prompt_length + data.max_response_length`` per sequence).

An unpacked row (an unpacked policy, or a critic that keeps its padding:
core/pipeline/rl_critic_padding.py) is its prompt left-padded to ``rl.prompt_cap`` where that is
stated, then the response padded to the longest. verl's dataset left-pads every prompt to
``data.max_prompt_length`` (``verl/utils/dataset/rl_dataset.py`` calls
``verl/utils/torch_functional.py`` ``tokenize_and_postprocess_data(..., max_length=
self.max_prompt_length, left_pad=True)``, which ``pad_sequence_to_length``s shorter prompts; line
191 at v0.3.0.post1, 269 at v0.5.0), the rollout strips that padding before the engine
(``vllm_rollout_spmd.py`` ``_pre_process_inputs``) and pads each response to
``response_length`` (``pad_2d_list_to_length``, l.243 at v0.3.0.post1, l.341 at v0.5.0), and the
actor without ``use_remove_padding`` runs ``actor_module(input_ids=input_ids,
attention_mask=...)`` over that whole (batch, prompt cap + response cap) tensor
(``verl/workers/actor/dp_actor.py`` l.148 at v0.3.0.post1), as the critic does
(``dp_critic.py``). Null: the mean prompt, as before.
"""

from __future__ import annotations

import math

from ..model.rl_spec import RLSpec
from ..model.specs import Scenario
from .rl_capacity_padding import pass_share
from .rl_check import rl_of
from .rl_logprob_batch import log_prob_micro, training_micro


def longest_response(rl: RLSpec) -> int:
    """Tokens of the longest response: the mean stretched by the spread."""
    return rl.rollout.longest_tokens


def responses(rl: RLSpec) -> int:
    """Responses generated per step."""
    return rl.rollout.prompts_per_step * rl.rollout.samples_per_prompt


def row_prompt(rl: RLSpec) -> int:
    """Prompt tokens of one row: the mean prompt, packed; unpacked, the prompt cap each row is
    left-padded to where ``rl.prompt_cap`` states it (module docstring), else the mean."""
    if rl.policy.sequence_packing or rl.prompt_cap is None:
        return rl.prompt_tokens
    return rl.prompt_cap


def trained_tokens(rl: RLSpec) -> float:
    """Tokens the training passes run per step: prompt + response of each response, packed;
    unpacked, each padded to its row's prompt + longest (the padding runs the math too)."""
    if rl.policy.sequence_packing:
        return responses(rl) * (rl.prompt_tokens + rl.rollout.response_tokens)
    return responses(rl) * (row_prompt(rl) + longest_response(rl))


def row_response(rl: RLSpec) -> int:
    """Response tokens of one micro-batch row: the longest, or the mean where a packed
    micro-batch counts responses at their own lengths (``micro_batch_unit`` "response")."""
    if rl.policy.sequence_packing and rl.policy.micro_batch_unit == "response":
        return max(1, math.ceil(rl.rollout.response_tokens))
    return longest_response(rl)


def computed_tokens(s: Scenario, training: bool = False) -> float:
    """Tokens the policy's log-prob passes (``training``: its update) compute per step: the
    trained tokens, and with packing the padding of each packed row, to its batch's longest under
    pipeline parallelism with ``rl.policy.pad_packed_rows`` (core/pipeline/rl_padding.py) or to its
    capacity with ``rl.policy.pad_rows_to_capacity`` (core/pipeline/rl_capacity_padding.py)."""
    rl = rl_of(s)
    padded = rl.policy.pad_packed_rows or rl.policy.pad_rows_to_capacity != "none"
    if not (rl.policy.sequence_packing and padded):
        return trained_tokens(rl)
    micro = training_micro(s) if training else log_prob_micro(s)  # NeMo RL logprob_mb_tokens
    row = (rl.prompt_tokens + row_response(rl)) * micro
    mini = rl.policy.mini_batch_size or responses(rl)
    return trained_tokens(rl) * pass_share(s, row, mini, training)
